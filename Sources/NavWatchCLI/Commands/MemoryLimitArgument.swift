import ArgumentParser
import NavWatch

/// `--memory-limit MB`: the most memory one web process may use
/// (`WebViewConfiguration.webProcessMemoryLimit`).
enum MemoryLimitArgument {
    /// The smallest limit taken, other than 0: a web process needs some 60 MB to show a blank page.
    static let smallest = 100
    /// The largest limit taken: 1 TB.
    static let largest = 1 << 20

    static let help = ArgumentHelp(
        "The most memory, in MB, one web process may use; a page over it ends as crashed, with the reason (0: no limit).",
        discussion: "A web process's resident memory is measured twenty times a second; one over the limit is ended, and its page is not tried again.",
        valueName: "MB")

    static func validate(_ megabytes: Int) throws {
        guard megabytes == 0 || (smallest...largest).contains(megabytes) else {
            throw ValidationError("--memory-limit must be 0 or from \(smallest) to \(largest) MB, not \(megabytes)")
        }
    }
}
