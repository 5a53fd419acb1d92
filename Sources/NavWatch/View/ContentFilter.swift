import CNavShim
import Foundation
import WebKitThread
import NavWatchSupport

/// Subresources a `WebView` never requests: a WebKit content filter,
/// compiled once per process and set with `WebViewConfiguration.contentFilter`.
///
/// The web process refuses a blocked subresource before any request is made:
/// nothing reaches the network, and the view reports no resource event for
/// it. The page's own document is never blocked.
public final class ContentFilter: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of subresource a filter tells apart (WebKit's content-blocker
    /// resource types).
    public enum ResourceType: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Images, web fonts, audio and video, and scripts.
        case image, font, media, script
        /// Style sheets.
        case styleSheet = "style-sheet"
        /// `fetch`, `XMLHttpRequest`, WebSockets, beacons.
        case raw

        /// Orders the types by name, for stable descriptions.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What the filter blocks.
    public let blocked: Set<ResourceType>
    /// The compiled WebKitUserContentFilter; never freed, used on the WebKit thread only.
    nonisolated(unsafe) let handle: OpaquePointer

    private init(blocked: Set<ResourceType>, handle: OpaquePointer) {
        (self.blocked, self.handle) = (blocked, handle)
    }

    /// `blocking` and the types blocked, sorted by name.
    public var description: String {
        "blocking " + blocked.sorted().map(\.rawValue).joined(separator: ", ")
    }

    /// Two filters are equal when they block the same types.
    public static func == (lhs: ContentFilter, rhs: ContentFilter) -> Bool { lhs.blocked == rhs.blocked }
    /// Hashes the types blocked, as `==` compares them.
    public func hash(into hasher: inout Hasher) { hasher.combine(blocked) }

    /// The filter that blocks every subresource of `types`, compiled on
    /// first use (a few milliseconds) and then shared for the life of the process.
    ///
    /// - Throws: `WebKitUnavailableError` when WebKit cannot start, or cannot
    ///   compile or store the filter.
    @WebKitActor
    public static func blocking(_ types: Set<ResourceType>) async throws -> ContentFilter {
        try WebKitRuntime.checkAvailable()
        if let filter = compiled[types] { return filter }
        let types = types.sorted()
        let rules = #"[{"trigger":{"url-filter":".*","resource-type":["#
            + types.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + #"]},"action":{"type":"block"}}]"#
        let identifier = "navwatch-" + (types.isEmpty ? "none" : types.map(\.rawValue).joined(separator: "-"))
        let directory = try storeDirectory.get()
        // The compiled filter's address, or why there is none.
        let answer = FirstAnswer<Result<UInt, WebKitUnavailableError>>()
        // Retained until the shim's `done` callback, which it calls exactly once.
        nw_content_filter_compile(directory, identifier, rules, { context, filter, error in
            let answer = Unmanaged<FirstAnswer<Result<UInt, WebKitUnavailableError>>>.fromOpaque(context!).takeRetainedValue()
            if let filter {
                answer.answer(.success(UInt(bitPattern: filter)))
            } else {
                let reason = error.map { String(cString: $0) } ?? "it failed"
                answer.answer(.failure(WebKitUnavailableError(reason: "cannot compile a content filter: \(reason)")))
            }
        }, Unmanaged.passRetained(answer).toOpaque())
        let filter = ContentFilter(blocked: Set(types), handle: OpaquePointer(bitPattern: try await answer.wait().get())!)
        compiled[filter.blocked] = filter
        return filter
    }

    @WebKitActor private static var compiled: [Set<ResourceType>: ContentFilter] = [:]

    /// Where WebKit keeps compiled filters: navwatch's cache (or a private
    /// temporary directory), the same answer for the life of the process.
    private static let storeDirectory: Result<String, WebKitUnavailableError> = {
        for candidate in WebProcessExtension.candidateDirectories(named: "content-filters") {
            if (try? FileManager.default.createDirectory(at: candidate, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])) != nil {
                return .success(candidate.path)
            }
        }
        return .failure(WebKitUnavailableError(reason: "cannot make a directory for content filters"))
    }()
}
