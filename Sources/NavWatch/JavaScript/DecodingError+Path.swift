/// Readable parts of a `DecodingError`, for `JavaScriptError.decodingFailed`.
extension DecodingError {
    /// Where decoding failed, as `.key[2].other`, or `(root)`.
    var codingPathDescription: String {
        let path: [CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
            if case .keyNotFound(let key, _) = self { return render(path + [key]) }
        @unknown default:
            path = []
        }
        return render(path)
    }

    /// What went wrong there, in the decoder's words.
    var failureDescription: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(self)"
        }
    }

    private func render(_ path: [CodingKey]) -> String {
        guard !path.isEmpty else { return "(root)" }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
