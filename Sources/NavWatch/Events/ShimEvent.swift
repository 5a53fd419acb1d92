import CNavShim
import Foundation

/// One forwarded signal, converted from the shim's borrowed C data into Swift
/// values before the callback returns.
enum ShimEvent {
    case load(LoadSignal)
    /// The document's title, from WebKit or from navwatch's document script.
    case title(String?)
    case isLoading(Bool)
    case estimatedProgress(Double)
    case resource(ResourceEvent)
    case newWindow(NewWindowRequest)
    /// Not yet attributed to a navigation.
    case consoleMessage(ConsoleMessage)
    /// Not yet attributed to a navigation.
    case pageError(PageError)
    /// The engine's own report of a console call (outside ephemeral
    /// sessions), which the extension's console wrapper reported already.
    case repeatedConsoleCall
    /// A script message navwatch does not understand (never posted by its own script).
    case unknownMessage(String)
    /// What navwatch's document script posted in the page with this id,
    /// which may be another view's: a popup posts to its opener's content manager.
    indirect case fromPage(UInt64, ShimEvent)

    init(_ event: nw_event) {
        let uri = event.uri.map { String(cString: $0) }
        switch event.kind {
        case NW_EVENT_LOAD_STARTED: self = .load(.started)
        case NW_EVENT_LOAD_REDIRECTED: self = .load(.redirected(uri: uri))
        case NW_EVENT_LOAD_COMMITTED:
            self = .load(.committed(uri: uri, response: event.response.map { NavigationResponse($0.pointee) }))
        case NW_EVENT_LOAD_FINISHED: self = .load(.finished)
        case NW_EVENT_LOAD_FAILED:
            self = .load(.failed(uri: uri, domain: string(event.error_domain), code: Int(event.error_code),
                                 message: string(event.error_message)))
        case NW_EVENT_LOAD_FAILED_TLS: self = .load(.failedWithTLSErrors)
        case NW_EVENT_WEB_PROCESS_TERMINATED:
            self = .load(.webProcessTerminated(WebProcessTerminationReason(rawValue: Int(event.termination_reason)) ?? .crashed))
        case NW_EVENT_URI_CHANGED: self = .load(.uriChanged(uri))
        case NW_EVENT_HISTORY_CHANGED: self = .load(.historyChanged(itemAdded: event.history_item_added != 0, uri: uri))
        case NW_EVENT_TITLE_CHANGED: self = .title(Self.title(event.title.map { String(cString: $0) }))
        case NW_EVENT_PROGRESS_CHANGED: self = .estimatedProgress(event.progress)
        case NW_EVENT_LOADING_CHANGED: self = .isLoading(event.is_loading != 0)
        case NW_EVENT_RESOURCE_STARTED:
            self = .resource(.started(id: event.resource_id, url: parseURL(uri), method: event.method.map { String(cString: $0) },
                                      isMainResource: event.is_main_resource != 0,
                                      headers: httpHeaders(event.request_header_names, event.request_header_values,
                                                       event.request_header_count)))
        case NW_EVENT_RESOURCE_REDIRECTED:
            let response = event.response?.pointee
            self = .resource(.redirected(id: event.resource_id, to: parseURL(uri), status: Int(response?.status ?? 0),
                                         headers: response.map { httpHeaders($0.header_names, $0.header_values, $0.header_count) } ?? []))
        case NW_EVENT_RESOURCE_FINISHED:
            let response = event.response?.pointee
            self = .resource(.finished(id: event.resource_id, url: parseURL(uri), status: Int(response?.status ?? 0),
                                       mimeType: response?.mime.map { String(cString: $0) },
                                       headers: response.map { httpHeaders($0.header_names, $0.header_values, $0.header_count) } ?? []))
        case NW_EVENT_RESOURCE_FAILED:
            let domain = string(event.error_domain), message = string(event.error_message)
            let code = Int(event.error_code)
            let kind = NavigationError.classify(domain: domain, code: code, message: message, sawTLSFailure: false)
            self = .resource(.failed(id: event.resource_id, url: parseURL(uri),
                                     error: NavigationError(kind: kind, domain: domain, code: code, message: message,
                                                            failingURL: parseURL(uri))))
        case NW_EVENT_NEW_WINDOW:
            self = .newWindow(NewWindowRequest(url: uri.flatMap(URL.init(string:)),
                                               targetFrameName: event.frame_name.map { String(cString: $0) },
                                               isUserGesture: event.is_user_gesture != 0))
        case NW_EVENT_SCRIPT_MESSAGE:
            let text = string(event.message)
            guard let (page, message) = DocumentScript.decode(text) else {
                self = .unknownMessage(text)
                return
            }
            let posted: ShimEvent
            switch message {
            case .load(let title):
                posted = .title(Self.title(title))
            case .popState(let url):
                posted = .load(.popState(uri: url))
            case .pageError(let kind, let message, let url, let line, let column, let stack):
                posted = .pageError(PageError(kind: kind, message: message, url: url, line: line, column: column,
                                              stack: stack, navigation: nil))
            }
            self = .fromPage(page, posted)
        case NW_EVENT_CONSOLE_MESSAGE:
            guard event.console_source != NW_CONSOLE_SOURCE_ENGINE_CONSOLE_API else {
                self = .repeatedConsoleCall
                return
            }
            let source = string(event.uri)
            let text = event.console_source == NW_CONSOLE_SOURCE_REFUSED_REQUEST
                ? WebViewConfiguration.refusedRequestPrefix + string(event.message) + " (this view sends only GET and HEAD requests)"
                : string(event.message)
            self = .consoleMessage(ConsoleMessage(
                level: Self.consoleLevels[Int(event.console_level)] ?? .log,
                source: Self.consoleSources[Int(event.console_source)] ?? .other,
                text: text, url: source.isEmpty ? nil : URL(string: source),
                line: event.line > 0 ? Int(event.line) : nil, navigation: nil))
        default:
            preconditionFailure("navshim sent an event kind navwatch does not know: \(event.kind.rawValue)")
        }
    }

    /// WebKitConsoleMessageLevel's values.
    private static let consoleLevels: [Int: ConsoleMessage.Level] = [0: .info, 1: .log, 2: .warning, 3: .error, 4: .debug]
    /// WebKitConsoleMessageSource's values, and the extension's for a console call.
    private static let consoleSources: [Int: ConsoleMessage.Source] = [
        0: .javaScript, 1: .network, 3: .security, 4: .other, Int(NW_CONSOLE_SOURCE_CALL): .consoleAPI,
        Int(NW_CONSOLE_SOURCE_REFUSED_REQUEST): .network,
    ]

    /// An empty title is no title.
    private static func title(_ value: String?) -> String? {
        value?.isEmpty == false ? value : nil
    }
}

extension NavigationResponse {
    init(_ response: nw_response, canShowMIMEType: Bool = true) {
        self.init(url: parseURL(response.uri.map { String(cString: $0) }),
                  statusCode: Int(response.status),
                  mimeType: response.mime.map { String(cString: $0) },
                  headers: httpHeaders(response.header_names, response.header_values, response.header_count),
                  expectedContentLength: response.content_length >= 0 ? response.content_length : nil,
                  suggestedFilename: response.suggested_filename.map { String(cString: $0) },
                  canShowMIMEType: canShowMIMEType)
    }
}

/// Headers from the shim's parallel arrays of `count` names and values.
private func httpHeaders(_ names: UnsafePointer<UnsafePointer<CChar>>?, _ values: UnsafePointer<UnsafePointer<CChar>>?,
                     _ count: Int) -> [HTTPHeader] {
    guard let names, let values, count > 0 else { return [] }
    return (0..<count).map { HTTPHeader(name: String(cString: names[$0]), value: String(cString: values[$0])) }
}

private func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
}

/// WebKit hands out URIs it has already parsed; an unparsable one (never seen)
/// becomes about:blank rather than a crash.
func parseURL(_ string: String?) -> URL {
    string.flatMap(URL.init(string:)) ?? URL(string: "about:blank")!
}
