import CNavShim
import Glibc

/// Makes sure GTK has an X display to open.
///
/// When `DISPLAY` is set it is used as it is. Otherwise a private Xvfb (the
/// one on PATH, or the program `NAVWATCH_XVFB` names) is
/// started on a free display number (`-displayfd`, `-nolisten tcp`) and
/// `DISPLAY` is set for this process. The Xvfb process is tied to the WebKit
/// thread, which lives as long as the process: it receives SIGTERM when the
/// process ends, however it ends (`exit`, a signal, `kill -9`).
enum DisplayServer {
    /// Called once, on the WebKit thread, before GTK starts.
    static func ensureDisplay() throws {
        if let display = getenv("DISPLAY"), display.pointee != 0 {
            return
        }
        guard let xvfb = getenv("NAVWATCH_XVFB").map({ String(cString: $0) }) ?? findExecutable("Xvfb"),
              access(xvfb, X_OK) == 0 else {
            throw WebKitUnavailableError(reason:
                "DISPLAY is unset and Xvfb is not installed; install it (apt-get install xvfb xauth) or set DISPLAY")
        }
        var pid: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        let display = nw_xvfb_start(xvfb, &pid, &message)
        guard display >= 0 else {
            throw WebKitUnavailableError(reason:
                "DISPLAY is unset and Xvfb could not start: \(takeString(message) ?? "unknown error")")
        }
        setenv("DISPLAY", ":\(display)", 1)
        setenv("NAVWATCH_XVFB_PID", "\(pid)", 1)
    }

    private static func findExecutable(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
