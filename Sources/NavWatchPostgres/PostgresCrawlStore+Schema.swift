import Logging
import PostgresNIO

extension PostgresCrawlStore {
    /// Creates the tables, columns and indexes that are missing. CREATE INDEX
    /// and ALTER TABLE lock their table even when IF NOT EXISTS finds nothing
    /// to do (ALTER TABLE exclusively), and a worker joining a running crawl
    /// would then deadlock with the workers storing pages: they run only when
    /// their index or column is missing.
    static func createSchema(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(7417200001)", logger: logger)
        for statement: PostgresQuery in [
            """
            CREATE TABLE IF NOT EXISTS navwatch_settings (
                id int PRIMARY KEY CHECK (id = 1),
                json text NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS navwatch_frontier (
                url text PRIMARY KEY,
                depth bigint NOT NULL,
                parent text,
                state text NOT NULL CHECK (state IN ('queued', 'leased', 'done')),
                attempts bigint NOT NULL DEFAULT 0,
                not_before float8 NOT NULL DEFAULT 0,
                seq bigserial NOT NULL,
                host text NOT NULL,
                worker text,
                lease_until float8 NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE IF NOT EXISTS navwatch_reports (
                seq bigserial PRIMARY KEY,
                url text NOT NULL UNIQUE,
                outcome text NOT NULL,
                json text NOT NULL,
                worker text)
            """,
            """
            CREATE TABLE IF NOT EXISTS navwatch_links (
                seq bigserial PRIMARY KEY,
                source text NOT NULL,
                target text NOT NULL,
                href text NOT NULL,
                fragment text,
                text text NOT NULL,
                rel text,
                element text NOT NULL)
            """,
            "CREATE TABLE IF NOT EXISTS navwatch_hosts (host text PRIMARY KEY, next_at float8 NOT NULL)",
        ] {
            try await connection.query(statement, logger: logger)
        }
        for (table, column, type) in [
            ("navwatch_reports", "requests", "text"),
            ("navwatch_reports", "kind", "text NOT NULL DEFAULT 'page'"),
            ("navwatch_reports", "anchors", "text"),
            ("navwatch_reports", "text_fragments", "text"),
            ("navwatch_links", "route", "text"),
            ("navwatch_links", "learned_from", "text"),
            ("navwatch_links", "resource", "text"),
            ("navwatch_frontier", "kind", "text NOT NULL DEFAULT 'page'"),
            ("navwatch_frontier", "alias_of", "text"),
            ("navwatch_hosts", "backoff", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "too_fast", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "answers", "integer NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "push_backs", "integer NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "widest", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "widened_at", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "leased_at", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "lease_gap", "float8 NOT NULL DEFAULT 0"),
        ] {
            let present = try await connection.query("""
                SELECT 1 FROM pg_attribute WHERE attrelid = \(table)::regclass AND attname = \(column) AND NOT attisdropped
                """, logger: logger).collect()
            if present.isEmpty {
                try await connection.query("ALTER TABLE \(unescaped: table) ADD COLUMN IF NOT EXISTS \(unescaped: column) \(unescaped: type)",
                                           logger: logger)
            }
        }
        for (index, definition) in [
            ("navwatch_frontier_ready", "navwatch_frontier (state, depth, seq)"),
            // `lease` counts the loaded pages for `maxPages` every time.
            ("navwatch_reports_counted", "navwatch_reports (outcome, kind)"),
        ] {
            let present = try await connection.query("SELECT 1 WHERE to_regclass(\(index)) IS NOT NULL", logger: logger).collect()
            if present.isEmpty {
                try await connection.query("CREATE INDEX IF NOT EXISTS \(unescaped: index) ON \(unescaped: definition)", logger: logger)
            }
        }
        // No statement reads links by their target (the link graph is read
        // whole); keeping such an index up to date was most of the cost of
        // storing a page's links.
        try await connection.query("DROP INDEX IF EXISTS navwatch_links_target", logger: logger)
    }
}
