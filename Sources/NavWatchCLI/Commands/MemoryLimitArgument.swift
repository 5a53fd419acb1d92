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
        "The most memory, in MB, one web process may use; a page over it ends as crashed, with the reason (0: WebKit's own limit).",
        discussion: "WebKit measures every half second and ends a web process over the limit; the page is not tried again.",
        valueName: "MB")

    static func validate(_ megabytes: Int) throws {
        guard megabytes == 0 || (smallest...largest).contains(megabytes) else {
            throw ValidationError("--memory-limit must be 0 or from \(smallest) to \(largest) MB, not \(megabytes)")
        }
    }
}
