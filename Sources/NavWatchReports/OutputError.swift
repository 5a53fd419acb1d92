/// Why an output could not be written (or a file it copies read): one line
/// naming the file.
public struct OutputError: Error, CustomStringConvertible, Equatable {
    /// The line: what could not be done, and to which file.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
