import Foundation

/// The main resource's HTTP response, as WebKit received it.
public struct NavigationResponse: Sendable, Hashable {
    /// The URL of the response (after redirects).
    public let url: URL
    /// The HTTP status code; 0 for responses that are not HTTP (`about:`, `data:`, HTML strings).
    public let statusCode: Int
    /// The response's MIME type as WebKit gives it (from `Content-Type`,
    /// without its parameters); nil when it has none.
    public let mimeType: String?
    /// Header fields in the order received; names as the server sent them.
    public let headers: [HTTPHeader]
    /// The Content-Length, when the server sent one.
    public let expectedContentLength: Int64?
    /// The file name the server suggested (`Content-Disposition`), when it did.
    public let suggestedFilename: String?
    /// Whether WebKit can display this MIME type. Always true in `didCommit`.
    public let canShowMIMEType: Bool

    /// Makes a response from its parts, for delegates and tests; a view reports
    /// its navigations' responses itself.
    public init(url: URL, statusCode: Int, mimeType: String?, headers: [HTTPHeader],
                expectedContentLength: Int64?, suggestedFilename: String?, canShowMIMEType: Bool) {
        self.url = url
        self.statusCode = statusCode
        self.mimeType = mimeType
        self.headers = headers
        self.expectedContentLength = expectedContentLength
        self.suggestedFilename = suggestedFilename
        self.canShowMIMEType = canShowMIMEType
    }

    /// The value of the first header named `name`, compared case-insensitively.
    public func value(forHeader name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the server asked for the body to be saved (`Content-Disposition: attachment`).
    public var isAttachment: Bool {
        value(forHeader: "Content-Disposition")?.lowercased().hasPrefix("attachment") ?? false
    }
}

/// One HTTP header field.
public struct HTTPHeader: Sendable, Hashable, Codable {
    /// The field's name, as the server or WebKit spelled it.
    public let name: String
    /// The field's value, as received.
    public let value: String

    /// Makes a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
