// swift-tools-version: 6.1
// navwatch is licensed under the Apache License 2.0: see LICENSE.
import PackageDescription

let package = Package(
    name: "navwatch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "NavWatch", targets: ["NavWatch"]),
        .library(name: "NavWatchRx", targets: ["NavWatchRx"]),
        .library(name: "NavWatchCrawler", targets: ["NavWatchCrawler"]),
        .library(name: "NavWatchPostgres", targets: ["NavWatchPostgres"]),
        .library(name: "NavWatchReports", targets: ["NavWatchReports"]),
        .library(name: "NavWatchTesting", targets: ["NavWatchTesting"]),
        .executable(name: "navwatch", targets: ["navwatch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // NavWatchTesting's routes: a certificate per host for the https they intercept.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        // `Scripts/docs`: the products' DocC catalogues.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Layer 0: the system WebKitGTK 4.1 (GTK 3) library.
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        // Layer 1: flat C that turns GObject signals into plain C callbacks.
        // It also holds the web process extension (web-extension/), which the
        // WebProcessExtension plugin builds into a shared object for NavWatch.
        .target(name: "CNavShim", dependencies: ["CWebKitGTK"], exclude: ["web-extension"]),
        .plugin(name: "WebProcessExtension", capability: .buildTool()),
        // navwatch's version, from CHANGELOG.md's latest release heading, for `navwatch --version`.
        .plugin(name: "ReleaseVersion", capability: .buildTool()),
        // Layer 0, no WebKit: small helpers every layer shares (one answer
        // from several sources, a stable hash, durations as numbers).
        .target(name: "NavWatchSupport"),
        // Layer 2: the WebKit thread, its executor and global actor, the display.
        .target(name: "WebKitThread", dependencies: ["CNavShim"]),
        // Layer 3: WebView, navigations, their folds and the navigation delegate.
        .target(name: "NavWatch", dependencies: ["WebKitThread", "CNavShim", "NavWatchSupport"],
                plugins: ["WebProcessExtension"]),
        // Layer 4: the delegate proxy and typed observables (`view.rx`).
        .target(
            name: "NavWatchRx",
            dependencies: [
                "NavWatch", "WebKitThread",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 4: web-first assertions for end-to-end tests (`expect(locator)`), on Swift Testing.
        // Its routes answer a view's requests through a proxy of their own (NIO),
        // https included (a certificate per host), and send the rest on (AsyncHTTPClient).
        .target(
            name: "NavWatchTesting",
            dependencies: [
                "NavWatch",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Layer 4, beside the engine (no WebKit): plain HTTP for what the
        // crawler asks without a web view: robots.txt, sitemaps and links
        // that leave the crawl's scope.
        .target(
            name: "NavWatchHTTP",
            dependencies: [
                "NavWatchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Layer 0: Debian's Gumbo, an HTML5 tree builder in C.
        .systemLibrary(name: "CGumbo", pkgConfig: "gumbo", providers: [.apt(["libgumbo-dev"])]),
        // Layer 4, beside the engine (no WebKit): HTML documents read without
        // rendering them, by the rendered path's rules, for the crawl's static checks.
        .target(name: "NavWatchHTML", dependencies: ["CGumbo"]),
        // Layer 4, beside the engine (no WebKit): the private-address guard,
        // a filtering HTTP proxy that crawls send every request through (the
        // engine's and their own).
        .target(
            name: "NavWatchGuard",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Layer 5: the crawler, its page-load reports, their budgets and its SQLite crawl store.
        .target(
            name: "NavWatchCrawler",
            dependencies: [
                "NavWatch", "NavWatchRx", "NavWatchHTTP", "NavWatchGuard", "NavWatchHTML", "NavWatchSupport", "WebKitThread",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // Layer 6: the crawl store on PostgreSQL, shared by workers on many machines.
        .target(
            name: "NavWatchPostgres",
            dependencies: [
                "NavWatchCrawler", "NavWatchSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 6: what a crawl's reports become for people and other tools:
        // HAR, CSV and JSON Lines, the HTML report, and the listings of links,
        // diffs and budgets (text, Markdown, JUnit, GitHub annotations).
        .target(
            name: "NavWatchReports",
            dependencies: [
                "NavWatch", "NavWatchCrawler", "NavWatchSupport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            // The HTML report's style sheet and script, compiled into the binary.
            resources: [.embedInCode("Resources/report.css"), .embedInCode("Resources/report.js")],
            // HAR's creator version.
            plugins: ["ReleaseVersion"]
        ),
        // A loopback HTTP(S) server for the CLI's demo site, the examples and the tests; no product.
        .target(
            name: "LoopbackServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Layer 7: the command-line tool; its commands live in a library so tests can reach them.
        .target(
            name: "NavWatchCLI",
            dependencies: [
                "NavWatch", "NavWatchRx", "NavWatchCrawler", "NavWatchPostgres", "NavWatchGuard", "NavWatchReports",
                "NavWatchSupport", "LoopbackServer", "WebKitThread",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["ReleaseVersion"]
        ),
        .executableTarget(name: "navwatch", dependencies: ["NavWatchCLI"]),
        // The `ReactiveCompatible` example of NavWatchRx.docc: a type of the user's own with `.rx` members.
        .target(name: "PageCheckerExample", dependencies: ["NavWatchRx"], path: "Examples/PageChecker"),
        .testTarget(name: "PageCheckerExampleTests", dependencies: ["PageCheckerExample", "NavWatchTestSupport", "LoopbackServer"],
                    path: "Examples/PageCheckerTests"),
        // The README's "Testing your web app": a small app and its end-to-end tests.
        .testTarget(name: "WebAppTests", dependencies: ["NavWatchRx", "NavWatchTesting", "LoopbackServer"], path: "Examples/WebAppTests"),
        // The README's "Crawling from Swift": a site's headings, descriptions,
        // canonical links and word counts as CSV, through the products alone.
        .target(name: "SiteInventory", dependencies: ["NavWatch", "NavWatchCrawler"], path: "Examples/SiteInventory"),
        .testTarget(name: "SiteInventoryTests", dependencies: ["SiteInventory", "LoopbackServer", "NavWatchTestSupport"],
                    path: "Examples/SiteInventoryTests"),
        // NavWatchReports.docc's example: a crawl's HAR and CSV from Swift, built so that it keeps compiling.
        .executableTarget(name: "CrawlHARExample", dependencies: ["NavWatchCrawler", "NavWatchReports"], path: "Examples/CrawlHAR"),
        // The `for await` example of the getting-started articles, built so that it keeps compiling.
        .executableTarget(name: "ForAwaitExample", dependencies: ["NavWatchRx"], path: "Examples/ForAwait"),
        // What the tests share and users never install: the fixture site, a
        // TLS certificate whose private key is public, waits with deadlines.
        .target(name: "NavWatchTestSupport", dependencies: ["LoopbackServer", "NavWatchHTTP"], path: "Tests/Support"),
        // Scripts/bench's in-process measurements (bridge overhead, memory over time).
        .executableTarget(
            name: "navwatch-bench",
            dependencies: [
                "NavWatch", "NavWatchRx", "NavWatchCrawler", "NavWatchGuard", "NavWatchSupport", "NavWatchTesting", "LoopbackServer",
                "CNavShim", "WebKitThread",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/NavwatchBench"
        ),
        .testTarget(name: "NavWatchTests", dependencies: ["NavWatch", "NavWatchTestSupport", "CNavShim", "WebKitThread", "LoopbackServer"]),
        .testTarget(name: "NavWatchTestingTests", dependencies: ["NavWatchTesting", "NavWatchTestSupport", "LoopbackServer", "NavWatchGuard"]),
        .testTarget(name: "NavWatchRxTests", dependencies: ["NavWatchRx", "NavWatch", "NavWatchTestSupport", "WebKitThread", "LoopbackServer"]),
        .testTarget(name: "NavWatchHTMLTests", dependencies: ["NavWatchHTML"]),
        .testTarget(
            name: "NavWatchGuardTests",
            dependencies: [
                "NavWatchGuard", "LoopbackServer", "NavWatchTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "NavWatchHTTPTests", dependencies: ["NavWatchHTTP", "NavWatchTestSupport", "LoopbackServer"]),
        .testTarget(name: "NavWatchCLITests", dependencies: [
            "NavWatchCLI", "NavWatch", "NavWatchRx", "NavWatchCrawler", "NavWatchPostgres", "NavWatchReports",
            "NavWatchGuard", "NavWatchTestSupport", "LoopbackServer", "WebKitThread",
        ]),
        // Fuzz passes over the five parsers that read strangers' bytes, from
        // the seed corpus in Tests/NavWatchFuzzTests/Corpus (Scripts/fuzz runs a long one).
        .testTarget(
            name: "NavWatchFuzzTests",
            dependencies: [
                "NavWatchGuard", "NavWatchHTTP", "NavWatchCrawler", "NavWatchHTML", "NavWatchCLI", "NavWatchSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Corpus")]
        ),
        .testTarget(
            name: "NavWatchCrawlerTests",
            dependencies: [
                "NavWatchCrawler", "NavWatchPostgres", "NavWatchTestSupport", "NavWatch", "NavWatchRx", "NavWatchGuard",
                "NavWatchHTML", "WebKitThread", "LoopbackServer",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
