import CNavShim
import Foundation
import NavWatchSupport
import WebKitThread

extension WebView {
    // MARK: Cookies and storage state

    /// The cookies of the view's storage that requests for any of `urls`
    /// carry (`Cookie.applies(to:)`), or all of them when `urls` is empty, as
    /// Playwright's `context.cookies(urls)`. HttpOnly cookies included.
    ///
    /// - Throws: `WebViewError.closed` after `close()`, `storageFailed` when
    ///   WebKit cannot read them or does not answer within `timeout`.
    public func cookies(for urls: [URL] = [], timeout: Duration = .seconds(10)) async throws(WebViewError) -> [Cookie] {
        guard let shim else { throw .closed }
        let box = FirstAnswer<Result<[Cookie], WebViewError>>()
        let timer = Self.answer(box, after: timeout, with: .failure(.storageFailed("the cookies were not read within \(timeout.seconds) s")))
        // Retained until the shim's `done` callback, which it calls exactly once.
        nw_view_get_cookies(shim, { context, cookies, count, error in
            let box = Unmanaged<FirstAnswer<Result<[Cookie], WebViewError>>>.fromOpaque(context!).takeRetainedValue()
            if let error {
                box.answer(.failure(.storageFailed("cannot read the cookies: \(String(cString: error))")))
            } else {
                box.answer(.success(UnsafeBufferPointer(start: cookies, count: count).map(Cookie.init(shim:))))
            }
        }, Unmanaged.passRetained(box).toOpaque())
        let all = try await box.wait().get()
        timer.cancel()
        return urls.isEmpty ? all : all.filter { cookie in urls.contains { cookie.applies(to: $0) } }
    }

    /// Adds `cookies` to the view's storage, each replacing the one of the
    /// same name, domain and path; the next requests carry them.
    ///
    /// - Throws: `WebViewError.closed` after `close()`,
    ///   `invalidConfiguration` for a cookie with no name or domain, or a path
    ///   that does not start with `/`; `storageFailed` when WebKit refuses one
    ///   or does not answer within `timeout`.
    public func addCookies(_ cookies: [Cookie], timeout: Duration = .seconds(10)) async throws(WebViewError) {
        guard let shim else { throw .closed }
        for cookie in cookies { try cookie.check() }
        try await Self.await(timeout, "the cookies were not added") { done, context in
            Cookie.withShimCookies(cookies) { nw_view_add_cookies(shim, $0.baseAddress, $0.count, done, context) }
        }
    }

    /// Removes every cookie of the view's storage (of its context's, for a
    /// view that is not `Storage.isolated`: the views sharing it lose them too).
    ///
    /// - Throws: `WebViewError.closed` after `close()`, `storageFailed` when
    ///   WebKit fails or does not answer within `timeout`.
    public func clearCookies(timeout: Duration = .seconds(10)) async throws(WebViewError) {
        guard let shim else { throw .closed }
        try await Self.await(timeout, "the cookies were not cleared") { done, context in
            nw_view_clear_cookies(shim, done, context)
        }
    }

    /// The view's cookies, and the `localStorage` of the page it shows (an
    /// http or https page), to start other views from
    /// (`WebViewConfiguration.storageState`). An origin of the view's own
    /// starting state that no document of it has shown yet is kept as it was.
    ///
    /// - Throws: `WebViewError.closed` after `close()`, `storageFailed` when
    ///   the cookies or the page's storage cannot be read.
    public func storageState(timeout: Duration = .seconds(10)) async throws(WebViewError) -> StorageState {
        var state = StorageState(cookies: try await cookies(timeout: timeout))
        if let url, ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            // In navwatch's world, whose globals the page cannot replace; the storage is the page's.
            let read = """
                const keys = Array.from({length: localStorage.length}, (_, i) => localStorage.key(i));
                return [location.origin, keys.map(key => [key, localStorage.getItem(key)])];
                """
            do {
                let json = try await evaluateForJSON(read, kind: .asyncFunction(world: DocumentScript.world)) ?? "null"
                let (origin, items) = try JSONDecoder().decode(OriginItems.self, from: Data(json.utf8)).pair
                if !items.isEmpty { state.origins.append(StorageState.Origin(origin: origin, localStorage: items)) }
            } catch {
                throw .storageFailed("cannot read the localStorage of \(url.absoluteString): \(error)")
            }
        }
        let shown = Set(state.origins.map(\.origin))
        state.origins += (configuration.storageState?.origins ?? []).filter {
            storageSeeds[$0.origin] != nil && !shown.contains($0.origin)
        }
        return state
    }

    /// Starts the view from `state`: its cookies added (loads wait until they
    /// are in), and a script per origin that sets its items at the start of
    /// the first top frame document of that origin (`seedCommitted(at:)` removes it).
    func start(from state: StorageState) {
        guard let shim else { return }
        for origin in state.origins where !origin.localStorage.isEmpty {
            let items = origin.localStorage.map { [$0.name, $0.value] }
            let source = """
                (() => { if (location.origin !== \(Self.jsonLiteral(origin.origin))) return; \
                for (const [name, value] of \(Self.jsonLiteral(items))) localStorage.setItem(name, value); })();
                """
            if let old = storageSeeds[origin.origin] { nw_view_remove_script(shim, old) }
            storageSeeds[origin.origin] = nw_view_add_script(shim, source)
        }
        guard !state.cookies.isEmpty else { return }
        storageStateApplying = true
        let box = FirstAnswer<String?>()
        Cookie.withShimCookies(state.cookies) { cookies in
            nw_view_add_cookies(shim, cookies.baseAddress, cookies.count, { context, error in
                let box = Unmanaged<FirstAnswer<String?>>.fromOpaque(context!).takeRetainedValue()
                box.answer(error.map { String(cString: $0) })
            }, Unmanaged.passRetained(box).toOpaque())
        }
        Task { [weak self] in
            let failure = await box.wait()
            guard let self else { return }
            self.storageStateApplied(failure: failure)
        }
    }

    /// Issues the load that waited for the storage state's cookies, or ends
    /// it when they could not be added.
    private func storageStateApplied(failure: String?) {
        storageStateApplying = false
        guard let shim, let active = tracker.active, let requested = requestedLoad,
              requested.navigationID == active.navigation.id else { return }
        if let failure {
            end(navigationID: active.navigation.id, with: .navwatch(.cancelled, .stopped,
                "the storage state's cookies were not added: \(failure)", url: active.navigation.url))
        } else {
            requested.issue(shim)
        }
    }

    /// A top frame document of `url`'s origin committed: its storage has the
    /// state's items, which are never set again.
    func seedCommitted(at url: URL) {
        guard let shim, let origin = URLOrigin.of(url), let script = storageSeeds.removeValue(forKey: origin) else { return }
        nw_view_remove_script(shim, script)
    }

    // MARK: Helpers

    private struct OriginItems: Decodable {
        let pair: (String, [StorageState.Item])
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let origin = try container.decode(String.self)
            let items = try container.decode([[String]].self).map { StorageState.Item(name: $0[0], value: $0[1]) }
            pair = (origin, items)
        }
    }

    /// `value` as a JavaScript literal.
    private static func jsonLiteral(_ value: some Encodable) -> String {
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// Answers `box` with `value` after `timeout`, unless cancelled first.
    private static func answer<Value: Sendable>(_ box: FirstAnswer<Value>, after timeout: Duration,
                                                with value: Value) -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            box.answer(value)
        }
    }

    /// Starts a shim operation that calls `done(context, error)` exactly once
    /// and waits for it, or for `timeout` (then `storageFailed` with `what`).
    private static func await(
        _ timeout: Duration, _ what: String,
        _ start: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void, UnsafeMutableRawPointer) -> Void
    ) async throws(WebViewError) {
        let box = FirstAnswer<String?>()
        let timer = answer(box, after: timeout, with: "\(what) within \(timeout.seconds) s")
        // Retained until the shim's `done` callback.
        start({ context, error in
            let box = Unmanaged<FirstAnswer<String?>>.fromOpaque(context!).takeRetainedValue()
            box.answer(error.map { String(cString: $0) })
        }, Unmanaged.passRetained(box).toOpaque())
        let failure = await box.wait()
        timer.cancel()
        if let failure { throw .storageFailed(failure.hasPrefix(what) ? failure : "\(what): \(failure)") }
    }
}

/// `scheme://host[:port]` of a URL, as `location.origin` writes it.
enum URLOrigin {
    static func of(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host(percentEncoded: true)?.lowercased() else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != defaultPort else { return "\(scheme)://\(bracketed)" }
        return "\(scheme)://\(bracketed):\(port)"
    }
}

extension Cookie {
    /// The shim's cookie, copied.
    init(shim cookie: nw_cookie) {
        self.init(name: String(cString: cookie.name), value: String(cString: cookie.value),
                  domain: String(cString: cookie.domain), path: String(cString: cookie.path),
                  expires: cookie.expires, httpOnly: cookie.http_only != 0, secure: cookie.secure != 0,
                  sameSite: [0: .none, 2: .strict][cookie.same_site] ?? .lax)
    }

    /// Throws `WebViewError.invalidConfiguration` naming a cookie WebKit could not store.
    func check() throws(WebViewError) {
        if name.isEmpty { throw .invalidConfiguration("a cookie has no name (its value is \(value.debugDescription))") }
        if domain.isEmpty { throw .invalidConfiguration("the cookie \(name.debugDescription) has no domain") }
        if !path.hasPrefix("/") {
            throw .invalidConfiguration("the cookie \(name.debugDescription) has the path \(path.debugDescription), which does not start with /")
        }
    }

    /// Calls `body` with `cookies` as the shim's, their strings alive for the call.
    static func withShimCookies<R>(_ cookies: [Cookie], _ body: (UnsafeBufferPointer<nw_cookie>) -> R) -> R {
        var copies: [UnsafeMutablePointer<CChar>] = []
        defer { for copy in copies { free(copy) } }
        func copy(_ string: String) -> UnsafePointer<CChar> {
            let pointer: UnsafeMutablePointer<CChar> = strdup(string)
            copies.append(pointer)
            return UnsafePointer(pointer)
        }
        var shimCookies: [nw_cookie] = []
        for cookie in cookies {
            let sameSite: Int32 = switch cookie.sameSite { case .none: 0; case .lax: 1; case .strict: 2 }
            shimCookies.append(nw_cookie(
                name: copy(cookie.name), value: copy(cookie.value), domain: copy(cookie.domain), path: copy(cookie.path),
                expires: cookie.expires, http_only: cookie.httpOnly ? 1 : 0, secure: cookie.secure ? 1 : 0,
                same_site: sameSite))
        }
        return shimCookies.withUnsafeBufferPointer(body)
    }
}
