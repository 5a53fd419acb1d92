import GRDB

extension SQLiteCrawlStore {
    /// The schema, as migrations from the first version on: a database
    /// opened by `init(path:)` or `init(readingAt:)` is brought to the last.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // `IF NOT EXISTS`: databases of the first version have these tables
        // but no record of migrations.
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS frontier (
                    url TEXT PRIMARY KEY NOT NULL,
                    depth INTEGER NOT NULL,
                    parent TEXT,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    not_before REAL NOT NULL DEFAULT 0,
                    seq INTEGER NOT NULL
                );
                CREATE INDEX IF NOT EXISTS frontier_ready ON frontier (state, depth, seq);
                CREATE TABLE IF NOT EXISTS reports (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    url TEXT NOT NULL UNIQUE,
                    outcome TEXT NOT NULL,
                    json TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2: workers, leases, hosts, settings") { db in
            try db.execute(sql: """
                ALTER TABLE frontier ADD COLUMN host TEXT NOT NULL DEFAULT '';
                ALTER TABLE frontier ADD COLUMN worker TEXT;
                ALTER TABLE frontier ADD COLUMN lease_until REAL NOT NULL DEFAULT 0;
                ALTER TABLE reports ADD COLUMN worker TEXT;
                CREATE TABLE hosts (host TEXT PRIMARY KEY NOT NULL, next_at REAL NOT NULL);
                CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
                """)
            for url in try String.fetchAll(db, sql: "SELECT url FROM frontier") {
                try db.execute(sql: "UPDATE frontier SET host = ? WHERE url = ?", arguments: [FrontierEntry.host(of: url), url])
            }
        }
        migrator.registerMigration("v3: every request of a page") { db in
            try db.execute(sql: "ALTER TABLE reports ADD COLUMN requests TEXT")
        }
        migrator.registerMigration("v4: the link graph, anchors, aliases, entry kinds") { db in
            try db.execute(sql: """
                ALTER TABLE frontier ADD COLUMN kind TEXT NOT NULL DEFAULT 'page';
                ALTER TABLE frontier ADD COLUMN alias_of TEXT;
                ALTER TABLE reports ADD COLUMN kind TEXT NOT NULL DEFAULT 'page';
                ALTER TABLE reports ADD COLUMN anchors TEXT;
                CREATE TABLE links (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    source TEXT NOT NULL,
                    target TEXT NOT NULL,
                    href TEXT NOT NULL,
                    fragment TEXT,
                    text TEXT NOT NULL,
                    rel TEXT,
                    element TEXT NOT NULL
                );
                CREATE INDEX links_target ON links (target);
                """)
        }
        migrator.registerMigration("v5: counting loaded pages from an index") { db in
            // `lease` counts the loaded pages for `maxPages` every time: over
            // the reports' JSON that is a scan of the whole file per page.
            try db.execute(sql: "CREATE INDEX reports_counted ON reports (outcome, kind)")
        }
        migrator.registerMigration("v6: the next frontier position from an index") { db in
            // Each insert numbers its entry MAX(seq) + 1: without this index
            // that is a scan of the whole frontier per link of every page.
            try db.execute(sql: "CREATE INDEX frontier_seq ON frontier (seq)")
            // `lease` counts the external links left to check: from this
            // index, not a scan of the frontier.
            try db.execute(sql: "CREATE INDEX frontier_kind ON frontier (kind, state)")
        }
        migrator.registerMigration("v7: hosts paced after push backs") { db in
            try db.execute(sql: """
                ALTER TABLE hosts ADD COLUMN backoff REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN too_fast REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN answers INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN push_backs INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN widest REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN widened_at REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN leased_at REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN lease_gap REAL NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v8: text fragments matched against pages") { db in
            try db.execute(sql: "ALTER TABLE reports ADD COLUMN text_fragments TEXT")
        }
        migrator.registerMigration("v9: routes reached by clicks") { db in
            try db.execute(sql: "ALTER TABLE links ADD COLUMN route TEXT")
        }
        migrator.registerMigration("v10: links learned from the renders of a kind") { db in
            try db.execute(sql: "ALTER TABLE links ADD COLUMN learned_from TEXT")
        }
        migrator.registerMigration("v11: resources pages embed") { db in
            try db.execute(sql: "ALTER TABLE links ADD COLUMN resource TEXT")
        }
        migrator.registerMigration("v12: no index of the links' targets") { db in
            // No statement reads links by their target: the link graph is read
            // whole. Keeping the index up to date was two thirds of the time
            // of storing a page's links (each commit rewrote the index pages
            // its links' targets are scattered over).
            try db.execute(sql: "DROP INDEX IF EXISTS links_target")
        }
        return migrator
    }
}
