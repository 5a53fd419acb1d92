import Foundation

/// Bad input from the command line: one sentence, exit code 2.
package struct InputError: Error, CustomStringConvertible, Equatable {
    package let description: String
    package init(_ description: String) { self.description = description }

    /// What went wrong with a file or database, in one line: the underlying
    /// system error's description when Foundation wraps one.
    static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError {
            return underlying.localizedDescription
        }
        return "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
    }
}
