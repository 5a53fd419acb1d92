import Foundation

/// The processes /proc shows, for tests that check what navwatch started
/// (and that it leaves nothing behind).
package enum ProcessTree {
    /// A live process descended from the one asked about.
    package struct Descendant: Sendable {
        /// Its command name, cut at 15 characters by the kernel (`WebKitWebProces`).
        package let name: String
        /// The command names between the process asked about and this one,
        /// nearest first; empty for a child.
        package let ancestors: [String]
    }

    /// Every process (not zombies) descended from `pid`: its children, theirs
    /// (a sandboxed web process runs under two bubblewrap processes), and so on.
    package static func descendants(of pid: Int32) -> [Int32: Descendant] {
        var processes: [Int32: (parent: Int32, name: String)] = [:]
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [:] }
        for entry in entries {
            // "pid (comm) state ppid ...": the command may hold spaces and parentheses.
            guard let process = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", let parent = Int32(fields[1]) else { continue }
            processes[process] = (parent, String(stat[stat.index(after: open)..<close]))
        }
        var descendants: [Int32: Descendant] = [:]
        for (process, info) in processes {
            var ancestors: [String] = []
            var current = info.parent
            while current > 1, current != pid, let next = processes[current] {
                ancestors.append(next.name)
                current = next.parent
            }
            if current == pid { descendants[process] = Descendant(name: info.name, ancestors: ancestors) }
        }
        return descendants
    }
}

extension ProcessTree {
    /// The largest resident size `pid` has had so far (`VmHWM`), in bytes;
    /// nil when it is gone or a zombie (whose memory is released).
    package static func highWaterMark(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return nil }
        return kilobytes * 1024
    }
}
