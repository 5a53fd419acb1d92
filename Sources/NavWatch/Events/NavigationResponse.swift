import Foundation

/// The main resource's HTTP response, as WebKit received it.
public struct NavigationResponse: Sendable, Hashable {
    /// The URL of the response (after redirects).
    public let url: URL
    /// The HTTP status code; 0 for responses that are not HTTP (`about:`, `data:`, HTML strings).
    public let statusCode: Int
    public let mimeType: String?
    /// Header fields in the order received; names as the server sent them.
    public let headers: [HTTPHeader]
    /// The Content-Length, when the server sent one.
    public let expectedContentLength: Int64?
    public let suggestedFilename: String?
    /// Whether WebKit can display this MIME type. Always true in `didCommit`.
    public let canShowMIMEType: Bool

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
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
