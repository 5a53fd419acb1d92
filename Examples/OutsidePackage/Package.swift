// swift-tools-version: 6.1
// A package of a user's own that depends on navwatch by path and imports
// only its products: Scripts/test builds it and crawls a loopback site with
// it, so the products' public API is enough to crawl from Swift.
import PackageDescription

let package = Package(
    name: "OutsidePackage",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "navwatch", path: "../..")],
    targets: [
        .executableTarget(
            name: "OutsideCrawl",
            dependencies: [
                .product(name: "NavWatch", package: "navwatch"),
                .product(name: "NavWatchCrawler", package: "navwatch"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
