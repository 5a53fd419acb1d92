import Foundation

/// How a `WebView` is set up. Every property has a default that works for
/// watching and crawling pages.
public struct WebViewConfiguration: Sendable, Hashable {
    /// Where cookies, caches and local storage live.
    public enum Storage: Sendable, Hashable {
        /// In memory only, shared by the views of this process that use the
        /// same configuration, gone when the process ends.
        case ephemeral
        /// On disk under `directory`, kept across runs.
        case persistent(directory: URL)
        /// In memory only and the view's own, shared with the windows its
        /// pages open and with no other view, gone when it closes: each view
        /// starts with no cookies, no `localStorage` and an empty cache, as a
        /// Playwright browser context does. Each such view has its own web
        /// context (a network process of its own).
        case isolated
    }

    /// What to do with a certificate that does not validate.
    public enum TLSErrorPolicy: Sendable, Hashable {
        /// The navigation fails with `NavigationError.Kind.tls`.
        case fail
        /// The page loads anyway.
        case ignore
    }

    /// The User-Agent header and `navigator.userAgent`; nil keeps WebKit's.
    public var userAgent: String?
    /// Whether pages run JavaScript. `WebView.evaluateJavaScript` works either way.
    public var javaScriptEnabled: Bool
    /// Whether images load.
    public var imagesEnabled: Bool
    /// Where cookies, caches and local storage live; `ephemeral` by default.
    public var storage: Storage
    /// Cookies and `localStorage` the view starts with; nil adds none. The
    /// cookies are in the storage before the view's first request (a load
    /// asked before they are waits for them); an origin's items are set
    /// before the scripts of the view's first document of that origin run,
    /// and never again, so the page's own changes stand.
    public var storageState: StorageState?
    /// What to do with a certificate that does not validate; `fail` by default.
    public var tlsErrors: TLSErrorPolicy
    /// How long one navigation may take before it fails with kind `timeout`.
    public var navigationTimeout: Duration
    /// The viewport in CSS pixels. Larger viewports paint more and load slower.
    public var viewportWidth: Int
    /// The viewport's height in CSS pixels (see `viewportWidth`).
    public var viewportHeight: Int
    /// Whether the web processes that run pages' scripts are confined by
    /// bubblewrap: their own file system with only what WebKit needs (no home
    /// directory, no crawl database), no other processes, no D-Bus but
    /// through a filter. On by default; `WebView.init` throws
    /// `WebKitUnavailableError` saying how to fix it when bubblewrap cannot start.
    public var sandboxed: Bool
    /// An HTTP proxy every request of the view's network process goes
    /// through, loopback addresses included; nil connects directly. The
    /// crawler points this at its private-address guard.
    public var networkProxy: URL?
    /// Subresources the view never requests (`ContentFilter.blocking(_:)`);
    /// nil blocks nothing.
    public var contentFilter: ContentFilter?
    /// Whether the view's web process keeps the scripts, style sheets and
    /// images of a page in memory for the next pages; on by default. Off,
    /// every load fetches and parses everything again, as a first visit
    /// does: what repeated measurements of one page need.
    public var memoryCache: Bool
    /// Whether the view's pages may send only GET and HEAD requests; off by
    /// default. On, every other request (a form's POST, `fetch` and
    /// `XMLHttpRequest` with any other method, beacons, `<a ping>`) is
    /// refused in the web process before it leaves it, and reported as a
    /// console message of source `network` whose text starts with
    /// `refusedRequestPrefix` and names the method and URL.
    public var readOnlyRequests: Bool
    /// How a console message reporting a request refused by
    /// `readOnlyRequests` starts: then the method, a space, the URL, and why.
    public static let refusedRequestPrefix = "navwatch refused "
    /// The most resident memory, in MB, one web process of the view may use.
    /// A thread of navwatch's own in the web process measures it twenty times
    /// a second, whatever the page keeps its main thread doing, and ends the
    /// process once it is over: the view's load fails with
    /// `NavigationError.Kind.webProcessCrashed` (code
    /// `NavwatchCode.exceededMemoryLimit`), its delegate hears
    /// `WebProcessTerminationReason.exceededMemoryLimit`, and the next load
    /// starts a new web process. A page can pass the limit by what it adds in
    /// a twentieth of a second. 0: no limit. `defaultWebProcessMemoryLimit` by default.
    public var webProcessMemoryLimit: Int
    /// How a JavaScript dialog is answered when neither the view's dialog
    /// handler (`WebView.onDialog(_:)`) nor its delegate's own
    /// `webView(_:runScriptDialog:)` answers it. `accept` by default, so that
    /// a page that asks to confirm goes on while it is watched or crawled;
    /// `WebViewConfiguration.testing` (NavWatchTesting) dismisses, as Playwright does.
    public var unansweredDialogs: ScriptDialogResponse
    /// The time zone of the view's pages' `Date` and `Intl`, as an IANA name
    /// (`Europe/Berlin`); nil keeps the system's. Views of different time
    /// zones can run at once. `check()` refuses a name the system's time
    /// zone database does not know.
    public var timeZone: String?
    /// The name of the device whose viewport, User-Agent and scale factor
    /// `emulating(_:)` set, for reports to say what was emulated; nil when
    /// none was. Changing those afterwards keeps it.
    public var deviceName: String?
    /// How many device pixels the view paints for one CSS pixel
    /// (`devicePixelRatio`), a whole number from 1 to `largestScaleFactor`
    /// (WebKitGTK scales by whole numbers); 1 by default. Its screenshots
    /// are this many times the viewport's size. Views of different scale
    /// factors can run at once.
    public var deviceScaleFactor: Int
    /// The language of the view's pages (`navigator.language`, the default
    /// locale of `Intl`) and of its requests' `Accept-Language`, a language
    /// tag (`de-DE`); nil keeps WebKit's (from the process's locale, `en-US`
    /// under C). WebKitGTK keeps one for the whole process: every view's
    /// documents and requests take it from when a view that sets it opens
    /// until the last such view closes, and a view that asks for another
    /// while one is open is refused (`WebViewError.invalidConfiguration`).
    public var locale: String?
    /// The colour scheme the view's pages see (`prefers-color-scheme`); nil
    /// keeps GTK's (light unless the desktop's theme is dark). One for the
    /// whole process, as `locale` is.
    public var colorScheme: ColorScheme?
    /// Whether the view's pages see `prefers-reduced-motion: reduce`; nil
    /// keeps GTK's setting (`no-preference` unless the desktop turned
    /// animations off). One for the whole process, as `locale` is.
    public var reducedMotion: ReducedMotion?

    /// The default `webProcessMemoryLimit`: 1,024 MB, some five times what a
    /// large documentation page takes, and a quarter of a 7 GB CI runner's
    /// memory per web process.
    public static let defaultWebProcessMemoryLimit = 1024

    /// A configuration with the given settings; each one left out takes the
    /// default that works for watching and crawling pages.
    public init(
        userAgent: String? = nil,
        javaScriptEnabled: Bool = true,
        imagesEnabled: Bool = true,
        storage: Storage = .ephemeral,
        tlsErrors: TLSErrorPolicy = .fail,
        navigationTimeout: Duration = .seconds(30),
        viewportWidth: Int = 1280,
        viewportHeight: Int = 800,
        sandboxed: Bool = true,
        networkProxy: URL? = nil,
        contentFilter: ContentFilter? = nil,
        memoryCache: Bool = true,
        readOnlyRequests: Bool = false,
        webProcessMemoryLimit: Int = WebViewConfiguration.defaultWebProcessMemoryLimit,
        unansweredDialogs: ScriptDialogResponse = .accept,
        timeZone: String? = nil,
        storageState: StorageState? = nil,
        deviceScaleFactor: Int = 1,
        locale: String? = nil,
        colorScheme: ColorScheme? = nil,
        reducedMotion: ReducedMotion? = nil
    ) {
        self.userAgent = userAgent
        self.javaScriptEnabled = javaScriptEnabled
        self.imagesEnabled = imagesEnabled
        self.storage = storage
        self.tlsErrors = tlsErrors
        self.navigationTimeout = navigationTimeout
        self.viewportWidth = viewportWidth
        self.viewportHeight = viewportHeight
        self.sandboxed = sandboxed
        self.networkProxy = networkProxy
        self.contentFilter = contentFilter
        self.memoryCache = memoryCache
        self.readOnlyRequests = readOnlyRequests
        self.webProcessMemoryLimit = webProcessMemoryLimit
        self.unansweredDialogs = unansweredDialogs
        self.timeZone = timeZone
        self.storageState = storageState
        self.deviceScaleFactor = deviceScaleFactor
        self.locale = locale
        self.colorScheme = colorScheme
        self.reducedMotion = reducedMotion
    }
}
