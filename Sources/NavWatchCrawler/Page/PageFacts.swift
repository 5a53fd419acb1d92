import Foundation
import NavWatch
import NavWatchHTML
import WebKitThread

/// What one script call reads from a finished page: its links (with their
/// text), the ids and names a fragment can point at, its Navigation and Paint
/// Timing, and the Resource Timing of every request.
///
/// The script returns JSON text: one string crosses from the web process,
/// not an object WebKit would rebuild. Timing entries are arrays of numbers
/// (see `Timing`) to keep that string short on pages with many requests.
///
/// A page can replace what the script calls (`JSON.stringify`,
/// `performance`) and so send any JSON: a time beyond `largestTime` or a
/// size outside `0...largestSize` is a `DecodingError`, which keeps the sums
/// and `Int` conversions of the facts' numbers from overflowing.
package struct PageFacts: Decodable, Sendable {
    /// The largest time that decodes, in milliseconds either side of the
    /// navigation's start: JavaScript's largest exact integer (2^53 - 1, some
    /// 285,000 years).
    package static let largestTime = 9_007_199_254_740_991.0
    /// The largest size that decodes, in bytes: 1 TiB.
    package static let largestSize = Double(1 << 40)
    fileprivate static let times = -largestTime...largestTime, sizes = 0...largestSize

    /// One Resource (or Navigation) Timing entry: milliseconds since the
    /// navigation started, 0 where the engine gives nothing (cross-origin
    /// details without `Timing-Allow-Origin`, for one).
    package struct Timing: Decodable, Sendable, Equatable {
        package var name: String
        package var initiatorType: String
        package var startTime: Double
        package var fetchStart: Double
        package var domainLookupStart: Double
        package var domainLookupEnd: Double
        package var connectStart: Double
        package var connectEnd: Double
        package var secureConnectionStart: Double
        package var requestStart: Double
        package var responseStart: Double
        package var responseEnd: Double
        package var transferSize: Double
        package var encodedBodySize: Double
        package var decodedBodySize: Double

        package init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            name = try values.decode(String.self)
            initiatorType = try values.decode(String.self)
            startTime = try values.decode(within: times)
            fetchStart = try values.decode(within: times)
            domainLookupStart = try values.decode(within: times)
            domainLookupEnd = try values.decode(within: times)
            connectStart = try values.decode(within: times)
            connectEnd = try values.decode(within: times)
            secureConnectionStart = try values.decode(within: times)
            requestStart = try values.decode(within: times)
            responseStart = try values.decode(within: times)
            responseEnd = try values.decode(within: times)
            transferSize = try values.decode(within: sizes)
            encodedBodySize = try values.decode(within: sizes)
            decodedBodySize = try values.decode(within: sizes)
        }
    }

    /// One link of the page, from `<a href>`, `<area href>`, `<iframe src>` or `<frame src>`.
    package struct Link: Decodable, Sendable, Equatable {
        /// The absolute URL the element points at.
        package var url: String
        /// The attribute as written in the document.
        package var href: String
        /// Its text (the `alt` of an image link, an `aria-label` or `title`
        /// when it has none), white space collapsed, 200 characters at most.
        package var text: String
        package var rel: String
        /// `a`, `area`, `iframe` or `frame`; `handler` for a URL a page
        /// handler enqueued (`CrawledPage.enqueue`); the element clicked
        /// for where a click leads (`RouteExplorer`).
        package var element: String
        /// For a route a click reached in the page: how its URL changed.
        package var reached: SameDocumentNavigation.Kind?
        /// For a route a click reached in the page: the document's title there.
        package var routeTitle: String?
        /// For a link a page read from HTML was given from the renders of its
        /// kind (`RenderSampler`): the URLs of the samples whose scripts added it.
        package var learnedFrom: [String]?

        /// The element of a URL a page handler enqueued.
        package static let enqueuedElement = "handler"

        package init(url: String, href: String, text: String, rel: String, element: String) {
            (self.url, self.href, self.text, self.rel, self.element) = (url, href, text, rel, element)
        }

        package init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            url = try values.decode(String.self)
            href = try values.decode(String.self)
            text = try values.decode(String.self)
            rel = try values.decode(String.self)
            element = try values.decode(String.self)
        }
    }

    /// The largest contentful paint the engine reported, when it has such entries.
    package struct LargestContentfulPaint: Decodable, Sendable, Equatable {
        /// When it was rendered (its load time where the render time is hidden), milliseconds since the navigation started.
        package var time: Double
        /// Its area in CSS pixels.
        package var size: Double
        /// The element, as `tag#id` or `tag.class`; empty when it left the document.
        package var element: String
        /// The image's URL; empty for text.
        package var url: String

        package init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            time = try values.decode(within: PageFacts.times)
            size = try values.decode(within: PageFacts.sizes)
            element = try values.decode(String.self)
            url = try values.decode(String.self)
        }
    }

    package var links: [Link]
    /// The resources the page embeds (`EmbeddedResource`), in document order.
    package var embedded: [EmbeddedResource]
    /// Every element id and `<a name>` of the document: what `#fragment` links may point at.
    package var anchors: [String]
    /// `document.title`; nil when it is empty.
    package var title: String?
    package var ttfb: Double?
    package var domContentLoaded: Double?
    package var load: Double?
    package var redirect: Double?
    package var firstContentfulPaint: Double?
    /// The document's own entry.
    package var navigation: Timing?
    /// Every subresource's entry, in the order they started.
    package var resources: [Timing]
    /// How many elements the document has.
    package var domSize: Int?
    /// Whether this engine reports `paint` entries (`PerformanceObserver.supportedEntryTypes`).
    package var paintSupported = true
    /// Whether this engine reports `largest-contentful-paint` entries
    /// (`PerformanceObserver.supportedEntryTypes`).
    package var lcpSupported = false
    /// The last such entry; nil without support or before any paint.
    package var largestContentfulPaint: LargestContentfulPaint?

    private enum CodingKeys: String, CodingKey {
        case links, embeds, base, anchors, title, ttfb, domContentLoaded, load, redirect, firstContentfulPaint, navigation, resources
        case domSize, paintSupported, lcpSupported, lcp
    }

    package init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        links = try values.decode([Link].self, forKey: .links)
        embedded = try Self.embedded(values.decodeIfPresent([[String]].self, forKey: .embeds) ?? [],
                                     base: values.decodeIfPresent(String.self, forKey: .base) ?? "")
        anchors = try values.decode([String].self, forKey: .anchors)
        title = try values.decodeIfPresent(String.self, forKey: .title).flatMap { $0.isEmpty ? nil : $0 }
        ttfb = try values.decodeIfPresent(.ttfb, within: Self.times)
        domContentLoaded = try values.decodeIfPresent(.domContentLoaded, within: Self.times)
        load = try values.decodeIfPresent(.load, within: Self.times)
        redirect = try values.decodeIfPresent(.redirect, within: Self.times)
        firstContentfulPaint = try values.decodeIfPresent(.firstContentfulPaint, within: Self.times)
        navigation = try values.decodeIfPresent(Timing.self, forKey: .navigation)
        resources = try values.decode([Timing].self, forKey: .resources)
        domSize = try values.decodeIfPresent(.domSize, within: Self.sizes).map { Int($0) }
        paintSupported = try values.decodeIfPresent(Bool.self, forKey: .paintSupported) ?? true
        lcpSupported = try values.decodeIfPresent(Bool.self, forKey: .lcpSupported) ?? false
        largestContentfulPaint = try values.decodeIfPresent(LargestContentfulPaint.self, forKey: .lcp)
    }

    /// The resources of the script's `embeds` (element, attribute, value,
    /// and the element's `rel`, `type` or `alt`), resolved against `base`,
    /// by the rules the HTML path keeps (`EmbeddedResource`).
    private static func embedded(_ embeds: [[String]], base: String) throws -> [EmbeddedResource] {
        guard let baseURL = URL(string: base) else { return [] }
        let resolver = DocumentURL.Resolver(base: baseURL)
        var resources: [EmbeddedResource] = []
        for embed in embeds {
            guard embed.count == 4 else {
                throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.embeds], debugDescription: "not four strings"))
            }
            let (element, attribute, value, extra) = (embed[0], embed[1], embed[2], embed[3])
            switch element {
            case "link": guard EmbeddedResource.isResourceLink(rel: extra) else { continue }
            case "script": guard HTMLDocument.Scripts.runs(type: extra) else { continue }
            case "img", "source", "video", "audio": break
            default: continue
            }
            resources += EmbeddedResource.resources(element: element, attribute: attribute, value: value,
                                                    text: element == "img" ? extra : "", resolver: resolver)
        }
        return resources
    }

    /// Bytes transferred for the document and every subresource, `largestSize` at most.
    package var transferBytes: Int {
        Int(min(resources.reduce(navigation?.transferSize ?? 0) { $0 + $1.transferSize }, Self.largestSize))
    }

    /// Reads the facts of the page `view` shows; nil when the page cannot run
    /// the script (it went away, or is not a document). The script runs on
    /// the WebKit thread; its answer is decoded off it.
    @WebKitActor
    package static func read(from view: WebView) async -> PageFacts? {
        await read(script, from: view)
    }

    /// Runs `script`, which returns the JSON text of a `T`, in the page
    /// `view` shows, and decodes its answer off the WebKit thread; nil when
    /// the page cannot run it or the answer is not a `T`.
    @WebKitActor
    static func read<T: Decodable & Sendable>(_ script: String, from view: WebView) async -> T? {
        guard let answer = (try? await view.evaluateForJSON(script)) ?? nil else { return nil }
        return await decode(answer)
    }

    /// Runs `body`, an async function's body that returns the JSON text of a
    /// `T`, in navwatch's own script world of the page `view` shows (the page
    /// cannot replace what it calls), and decodes its answer off the WebKit
    /// thread; nil when it fails, answers something else, or takes longer
    /// than `timeout`.
    @WebKitActor
    static func readInOwnWorld<T: Decodable & Sendable>(_ body: String, from view: WebView,
                                                        timeout: Duration = .seconds(5)) async -> T? {
        guard let answer = await view.evaluateForJSONInOwnWorld(body, timeout: timeout) else { return nil }
        return await decode(answer)
    }

    /// The value in a script's answer: the JSON text of the string the
    /// script returned, which holds the value's JSON. Decoded on the global
    /// executor: on a large page, a few milliseconds the WebKit thread would
    /// otherwise spend away from every view's events.
    @concurrent
    private nonisolated static func decode<T: Decodable & Sendable>(_ answer: String) async -> T? {
        guard let json = try? JSONDecoder().decode(String.self, from: Data(answer.utf8)) else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// A page's first contentful paint, read again after its finish.
    package struct Paint: Decodable, Sendable, Equatable {
        /// Milliseconds since the navigation started; nil when the page has not painted content.
        package var firstContentfulPaint: Double?

        package init(firstContentfulPaint: Double?) {
            self.firstContentfulPaint = firstContentfulPaint
        }

        package init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            firstContentfulPaint = try values.decodeNil() ? nil : try values.decode(within: PageFacts.times)
        }

        /// Whether to read the paint entries after a finished page's late
        /// window closed by `closedBy`: the facts read at the finish had no
        /// first contentful paint, and the window closed with the page still shown.
        package static func isReadAfter(_ closedBy: PageLoadReport.LateInfo.ClosedBy, facts: PageFacts?) -> Bool {
            facts != nil && facts?.firstContentfulPaint == nil && (closedBy == .quiet || closedBy == .limit)
        }

        /// The paint entries of the page `view` shows; nil when the page cannot run the script.
        @WebKitActor
        package static func read(from view: WebView) async -> Paint? {
            await PageFacts.read("JSON.stringify([(\(PageFacts.firstContentfulPaintEntry) || {startTime: null}).startTime])",
                                 from: view)
        }
    }

    /// The page's `first-contentful-paint` entry, or undefined, as a JavaScript expression.
    private static let firstContentfulPaintEntry =
        "performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint')"

    private static let script = """
        JSON.stringify((() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const fcp = \(firstContentfulPaintEntry);
          const positive = v => (v > 0 ? v : null);
          const timing = e => [e.name, e.initiatorType || '', e.startTime, e.fetchStart, e.domainLookupStart,
            e.domainLookupEnd, e.connectStart, e.connectEnd, e.secureConnectionStart || 0, e.requestStart,
            e.responseStart, e.responseEnd, e.transferSize || 0, e.encodedBodySize || 0, e.decodedBodySize || 0];
          const text = e => {
            let t = e.textContent || '';
            if (!t.trim()) {
              const img = e.querySelector && e.querySelector('img[alt]');
              t = (img && img.alt) || e.getAttribute('aria-label') || e.getAttribute('title') || '';
            }
            // Not cutting a surrogate pair in two: JSONDecoder refuses a lone half.
            return t.replace(/\\s+/g, ' ').trim().slice(0, 200).replace(/[\\uD800-\\uDBFF]$/, '');
          };
          const link = (e, url, attribute) =>
            [url, e.getAttribute(attribute) || '', text(e), e.getAttribute('rel') || '', e.localName];
          const describe = e => e.localName + (e.id ? '#' + e.id : e.classList && e.classList.length ? '.' + e.classList[0] : '');
          const supported = typeof PerformanceObserver !== 'undefined' ? PerformanceObserver.supportedEntryTypes || [] : [];
          const lcpSupported = supported.includes('largest-contentful-paint');
          let lcp = null;
          if (lcpSupported) {
            try {
              const observer = new PerformanceObserver(() => {});
              observer.observe({type: 'largest-contentful-paint', buffered: true});
              const entries = observer.takeRecords();
              observer.disconnect();
              const e = entries[entries.length - 1];
              if (e) lcp = [e.renderTime || e.loadTime || e.startTime, e.size || 0,
                            e.element && e.element.isConnected ? describe(e.element) : '', e.url || ''];
            } catch (_) {}
          }
          // Resources by the rules of `EmbeddedResource`, sorted out on the Swift side.
          const embeds = [];
          for (const e of document.querySelectorAll('img, source, video[src], audio[src], link[href], script[src]')) {
            const name = e.localName, get = a => e.getAttribute(a);
            // An SVG or MathML element of the same name is none (scripts aside, as the HTML reader has it).
            if (name !== 'script' && e.namespaceURI !== 'http://www.w3.org/1999/xhtml') continue;
            if (name === 'img' || name === 'source') {
              for (const a of ['src', 'srcset']) if (e.hasAttribute(a)) embeds.push([name, a, get(a), get('alt') || '']);
            } else if (name === 'link') {
              embeds.push([name, 'href', get('href'), get('rel') || '']);
            } else {
              embeds.push([name, 'src', get('src'), name === 'script' ? get('type') || '' : '']);
            }
          }
          const anchors = new Set();
          for (const e of document.querySelectorAll('[id]')) anchors.add(e.id);
          for (const e of document.querySelectorAll('a[name]')) anchors.add(e.name);
          return {
            links: Array.from(document.links, a => link(a, a.href, 'href')).concat(
              Array.from(document.querySelectorAll('iframe[src], frame[src]'), f => link(f, f.src, 'src'))),
            embeds,
            base: document.baseURI,
            anchors: Array.from(anchors),
            title: document.title,
            // A loopback answer can come within the clock's 1 ms grain: 0 is then a time.
            ttfb: nav && nav.responseEnd > 0 ? nav.responseStart : null,
            domContentLoaded: nav ? positive(nav.domContentLoadedEventEnd) : null,
            load: nav ? positive(nav.loadEventEnd) : null,
            redirect: nav ? positive(nav.redirectEnd) : null,
            firstContentfulPaint: fcp ? fcp.startTime : null,
            navigation: nav ? timing(nav) : null,
            resources: performance.getEntriesByType('resource').map(timing),
            domSize: document.getElementsByTagName('*').length,
            paintSupported: supported.includes('paint'),
            lcpSupported,
            lcp
          };
        })())
        """
}

extension UnkeyedDecodingContainer {
    /// The next number, which must be within `range`.
    fileprivate mutating func decode(within range: ClosedRange<Double>) throws -> Double {
        let value = try decode(Double.self)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(in: self, debugDescription: "\(value) is not within \(range)")
        }
        return value
    }
}

extension KeyedDecodingContainer {
    /// The number at `key`, which must be within `range`; nil when it is null or missing.
    fileprivate func decodeIfPresent(_ key: Key, within range: ClosedRange<Double>) throws -> Double? {
        guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "\(value) is not within \(range)")
        }
        return value
    }
}
