/// The statements on a crawl's reports and links, written once for both
/// crawl stores, as `FrontierSQL` is for the frontier; `dialect` spells
/// the little that SQLite and PostgreSQL spell differently.
///
/// What stays written per database: the schemas (their column types and
/// migrations, in `SQLiteCrawlStore+Schema` and `PostgresCrawlStore+Schema`),
/// inserting frontier entries and links (SQLite numbers entries itself and
/// inserts a row a statement; PostgreSQL inserts a page's rows from arrays
/// in one statement), the settings row, and PostgreSQL's lock and clock.
///
/// The tables, in both schemas:
/// - `reports`: a row per URL reported, numbered by `seq` in the order
///   stored, with its `outcome`, its `kind` ('page', or the
///   `FrontierEntry.Kind` of a link or resource to check), its report as
///   `json` (and its `requests` apart), the `anchors` its fragments can
///   point at and the `text_fragments` found in it;
/// - `links`: a row per link or resource of a page, numbered by `seq`.
package struct ReportSQL: Sendable {
    package let dialect: SQLDialect

    package init(_ dialect: SQLDialect) {
        self.dialect = dialect
    }

    private var frontier: SQLText { dialect.table("frontier") }
    private var reports: SQLText { dialect.table("reports") }
    private var links: SQLText { dialect.table("links") }

    // MARK: Storing

    /// Stores `report`, of an entry of `kind`, unless a report of its URL is
    /// stored: returns its `seq` when it was stored, no row when not.
    package func store(_ report: PageLoadReport, kind: FrontierEntry.Kind, worker: String?) -> SQLStatement {
        """
        INSERT INTO \(reports) (url, outcome, json, worker, requests, kind, anchors)
        VALUES (\(report.url), \(report.outcome.rawValue), \(report.jsonLine), \(worker), \(report.requestsJSON),
                \(kind.isCheck ? kind.rawValue : "page"), \(report.anchorsText))
        ON CONFLICT (url) DO NOTHING RETURNING seq
        """
    }

    /// Replaces the report of `report.url` with `report` (its timings measured again).
    package func update(_ report: PageLoadReport) -> SQLStatement {
        "UPDATE \(reports) SET json = \(report.jsonLine) WHERE url = \(report.url)"
    }

    /// Saves which text fragments were found on the page at `url`.
    package func recordTextFragments(_ found: [String: Bool], for url: String) -> SQLStatement {
        "UPDATE \(reports) SET text_fragments = \(TextFragmentTarget.text(found)) WHERE url = \(url)"
    }

    // MARK: Reading

    /// At most `limit` reports stored after `position`, in the order stored:
    /// `seq`, `json`, and `requests` (null unless `includingRequests`).
    package func reports(after position: Int64, limit: Int, includingRequests: Bool) -> SQLStatement {
        let requests: SQLText = includingRequests ? "requests" : "CAST(NULL AS TEXT)"
        return "SELECT seq, json, \(requests) FROM \(reports) WHERE seq > \(Int(position)) ORDER BY seq LIMIT \(limit)"
    }

    /// How many links are stored.
    package var linkCount: SQLStatement {
        "SELECT COUNT(*) FROM \(links)"
    }

    /// Every link, in the order stored (a page's together), as the columns
    /// `source`, `target`, `href`, `fragment`, `text`, `rel`, `element`,
    /// `route`, `learned_from` and `resource`.
    package var allLinks: SQLStatement {
        "SELECT source, target, href, fragment, text, rel, element, route, learned_from, resource FROM \(links) ORDER BY seq"
    }

    /// Every URL that is an alias (a redirect's target covered by another
    /// report), with the URL whose report covers it: `url`, `alias_of`.
    package var aliases: SQLStatement {
        "SELECT url, alias_of FROM \(frontier) WHERE alias_of IS NOT NULL"
    }

    /// Every report's `url`, `anchors` and `text_fragments`: the link
    /// graph keeps those of the pages its fragment links point at
    /// (`LinkGraph.fragmentTargets`). Chosen from the links already read:
    /// the same choice as a join of the links with the frontier took longer
    /// than reading them all.
    package var anchors: SQLStatement {
        "SELECT url, anchors, text_fragments FROM \(reports)"
    }

    /// Each link with a text fragment (`:~:`) to a page loaded ok: the
    /// page's `url` (through an alias), the link's `fragment`, and the
    /// page's `text_fragments` found so far.
    package var textFragmentLinks: SQLStatement {
        """
        SELECT r.url, l.fragment, r.text_fragments FROM \(links) l
        LEFT JOIN \(frontier) f ON f.url = l.target
        JOIN \(reports) r ON r.url = COALESCE(f.alias_of, l.target)
        WHERE l.fragment LIKE '%:~:%' AND r.outcome = 'ok' AND r.kind = 'page'
        """
    }

    // MARK: Counting

    /// The reports per `PageLoadReport.Tally`: a row per tally with any,
    /// of its name, its count, and how many of them failed.
    package var tallies: SQLStatement {
        """
        SELECT \(Self.tally) AS tally, COUNT(*), SUM(CASE WHEN \(Self.failure) THEN 1 ELSE 0 END)
        FROM \(reports) GROUP BY 1
        """
    }

    /// Per worker (ordered by name): its leases held now, and the pages it
    /// loaded, the links and resources it checked, and of those the ones
    /// that failed.
    package var workerCounts: SQLStatement {
        """
        SELECT worker, SUM(leased), SUM(loaded), SUM(checked), SUM(failed) FROM (
            SELECT worker, 1 AS leased, 0 AS loaded, 0 AS checked, 0 AS failed FROM \(frontier) WHERE state = 'leased'
            UNION ALL
            SELECT worker, 0, CASE WHEN \(Self.tally) = 'loaded' THEN 1 ELSE 0 END,
                   CASE WHEN \(Self.tally) = 'checked' THEN 1 ELSE 0 END, CASE WHEN \(Self.failure) THEN 1 ELSE 0 END
            FROM \(reports) WHERE worker IS NOT NULL) AS shares
        GROUP BY worker ORDER BY worker
        """
    }

    /// A report row's `PageLoadReport.Tally`, from its `outcome` and
    /// `kind`, as `Tally(outcome:isCheck:)` decides it.
    private static let tally: SQLText = {
        func outcomes(_ tally: PageLoadReport.Tally) -> String {
            SQLText(in: PageLoadReport.Outcome.self) { PageLoadReport.Tally(outcome: $0, isCheck: false) == tally }.sql
        }
        return SQLText("CASE WHEN outcome \(outcomes(.skipped)) THEN 'skipped' "
                       + "WHEN outcome \(outcomes(.blocked)) THEN 'blocked' "
                       + "WHEN kind = 'page' THEN 'loaded' ELSE 'checked' END")
    }()

    /// Whether a report row failed (`Outcome.isFailure`).
    private static let failure = SQLText("outcome " + SQLText(in: PageLoadReport.Outcome.self, where: \.isFailure).sql)
}
