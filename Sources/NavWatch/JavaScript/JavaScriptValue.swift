import Foundation

/// A JavaScript value that survived `JSON.stringify`, plus `undefined`.
public enum JavaScriptValue: Sendable, Hashable {
    /// JavaScript's `undefined`: what a script with no result, or a function
    /// that returns nothing, evaluates to.
    case undefined
    /// JavaScript's `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number. JavaScript has one number type, so integers arrive as doubles
    /// too; `NaN` and the infinities have no JSON form and arrive as `null`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, its elements in order.
    case array([JavaScriptValue])
    /// An object's own enumerable properties, as `JSON.stringify` keeps them
    /// (properties whose value is a function or `undefined` are left out).
    case object([String: JavaScriptValue])

    /// Builds a value from the JSON text WebKit produced.
    init(json: String) throws {
        self = try JSONDecoder().decode(JavaScriptValue.self, from: Data(json.utf8))
    }

    /// `text` as a JavaScript string literal, to put into a script's source.
    package static func literal(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The string, when this value is a string; nil for every other kind (no
    /// conversion is attempted).
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

extension JavaScriptValue: Decodable {
    /// Decodes any JSON value: null, a boolean, a number, a string, an array or an object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JavaScriptValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JavaScriptValue].self)) }
    }
}

extension JavaScriptValue: Encodable {
    /// Encodes the value as the JSON it came from; `undefined` as null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .undefined, .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }
}

/// Why a script evaluation produced no value.
public enum JavaScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The script threw: the exception's text (`TypeError: ...`) and the
    /// line it was thrown at, when WebKit says.
    case exception(message: String, line: Int?)
    /// The result (a DOM node, a function, a cyclic object) has no JSON form.
    case unserializableResult(String)
    /// The result did not decode as the requested type; `path` names where.
    case decodingFailed(path: String, message: String)
    /// The view closed before the evaluation finished.
    case viewClosed
    /// The awaiting task was cancelled.
    case cancelled
    /// Any other error WebKit reported.
    case other(domain: String, code: Int, message: String)

    /// The error in one line, as a message for people.
    public var description: String {
        switch self {
        case .exception(let message, let line):
            return "the script threw: \(message)" + (line.map { " (line \($0))" } ?? "")
        case .unserializableResult(let message): return "the result cannot be serialised: \(message)"
        case .decodingFailed(let path, let message): return "the result does not decode at \(path): \(message)"
        case .viewClosed: return "the web view closed before the script finished"
        case .cancelled: return "the evaluation was cancelled"
        case .other(let domain, let code, let message): return "\(message) (\(domain) \(code))"
        }
    }
}

extension JavaScriptError {
    /// Parses WebKit's "SOURCE:LINE:COLUMN: MESSAGE" exception text.
    static func exception(reported text: String) -> JavaScriptError {
        let parts = text.split(separator: ": ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .exception(message: text, line: nil) }
        let location = parts[0].split(separator: ":", omittingEmptySubsequences: false)
        guard location.count >= 2, let line = Int(location[location.count - 2]),
              Int(location[location.count - 1]) != nil else {
            return .exception(message: text, line: nil)
        }
        return .exception(message: String(parts[1]), line: line)
    }
}
