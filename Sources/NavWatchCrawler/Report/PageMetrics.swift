import Foundation

/// What a finished page's timing entries say beyond its `Timings`, measured
/// only from entries the engine has (see "Metrics" in NavWatchCLI.docc/AfterTheLoadEvent.md):
///
/// - `firstByteToLastResource`: from the document's first byte to the end
///   of the last resource that ended before the page's facts were read;
/// - `renderBlockingRequests`: scripts and style sheets (Resource Timing
///   initiators `script`, `link` and `css`) that started before the first
///   contentful paint; nil when there was none;
/// - `domSize`: the document's elements when it finished;
/// - `largestResource`: the resource with the most bytes on the wire
///   (encoded body), the document included; nil when the engine shows no size;
/// - `largestContentfulPaint`: the engine's last `largest-contentful-paint`
///   entry, or nil with `largestContentfulPaintUnavailable` saying why
///   (WebKitGTK 2.50 has no such entries; upstream WebKit has them since
///   October 2025).
///
/// Every field is written, null where unknown.
public struct PageMetrics: Codable, Sendable, Equatable {
    /// One resource of the page.
    public struct Resource: Codable, Sendable, Equatable {
        /// Its URL.
        public var url: String
        /// Its body's bytes on the wire (encoded).
        public var bytes: Int
    }

    /// The engine's last `largest-contentful-paint` entry.
    public struct LargestContentfulPaint: Codable, Sendable, Equatable {
        /// Milliseconds since the navigation started (Navigation Timing's clock).
        public var time: Double
        /// Its area in CSS pixels.
        public var size: Int
        /// `tag#id` or `tag.class`; nil when the element left the document.
        public var element: String?
        /// The image's URL; nil for text.
        public var url: String?
    }

    /// Why a report has no largest contentful paint. The raw values are the
    /// report's sentences.
    public enum LCPUnavailable: String, Codable, Sendable, CaseIterable {
        /// The engine has no `largest-contentful-paint` entries at all.
        case noLCPEntries = "this WebKit has no largest-contentful-paint entries"
        /// The engine has them, and the page had none before it finished.
        case noLCPEntry = "no largest-contentful-paint entry before the page finished"
    }

    /// From the document's first byte to the end of its last resource, in milliseconds.
    public var firstByteToLastResource: Double?
    /// Scripts and style sheets that started before the first contentful paint.
    public var renderBlockingRequests: Int?
    /// The document's elements when it finished.
    public var domSize: Int?
    /// The resource with the most bytes on the wire.
    public var largestResource: Resource?
    /// The largest contentful paint; nil with `largestContentfulPaintUnavailable`.
    public var largestContentfulPaint: LargestContentfulPaint?
    /// Why there is no `largestContentfulPaint`; nil when there is one.
    public var largestContentfulPaintUnavailable: LCPUnavailable?

    enum CodingKeys: String, CodingKey {
        case firstByteToLastResource = "first_byte_to_last_resource"
        case renderBlockingRequests = "render_blocking_requests"
        case domSize = "dom_size"
        case largestResource = "largest_resource"
        case largestContentfulPaint = "largest_contentful_paint"
        case largestContentfulPaintUnavailable = "largest_contentful_paint_unavailable"
    }

    /// No metrics: every one unknown.
    public init() {}

    /// The metrics of a finished page, from its facts.
    package init(_ facts: PageFacts) {
        let entries = (facts.navigation.map { [$0] } ?? []) + facts.resources
        if let navigation = facts.navigation, navigation.responseEnd > 0, case let firstByte = navigation.responseStart,
           let lastEnd = entries.map(\.responseEnd).max(), lastEnd >= firstByte {
            firstByteToLastResource = (lastEnd - firstByte).tenths
        }
        if let paint = facts.firstContentfulPaint {
            renderBlockingRequests = facts.resources.count {
                ["script", "link", "css"].contains($0.initiatorType) && $0.startTime < paint
            }
        }
        domSize = facts.domSize
        if let largest = entries.max(by: { $0.encodedBodySize < $1.encodedBodySize }), largest.encodedBodySize > 0 {
            largestResource = Resource(url: largest.name, bytes: Int(largest.encodedBodySize))
        }
        if let lcp = facts.largestContentfulPaint {
            largestContentfulPaint = LargestContentfulPaint(time: lcp.time.tenths, size: Int(lcp.size),
                                                            element: lcp.element.isEmpty ? nil : lcp.element,
                                                            url: lcp.url.isEmpty ? nil : lcp.url)
        } else {
            largestContentfulPaintUnavailable = facts.lcpSupported ? .noLCPEntry : .noLCPEntries
        }
    }

    /// Encodes every metric, writing an unknown one as null rather than leaving it out.
    public func encode(to encoder: any Encoder) throws {
        // Unknown metrics are written as null, not left out.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(firstByteToLastResource, forKey: .firstByteToLastResource)
        try container.encode(renderBlockingRequests, forKey: .renderBlockingRequests)
        try container.encode(domSize, forKey: .domSize)
        try container.encode(largestResource, forKey: .largestResource)
        try container.encode(largestContentfulPaint, forKey: .largestContentfulPaint)
        try container.encode(largestContentfulPaintUnavailable, forKey: .largestContentfulPaintUnavailable)
    }
}
