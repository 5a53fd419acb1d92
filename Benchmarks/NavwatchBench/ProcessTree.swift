import Foundation

/// The resident memory of a process and all its descendants, from /proc.
enum ProcessTree {
    static func residentMegabytes(root: pid_t) -> Double {
        var children: [pid_t: [pid_t]] = [:]
        var resident: [pid_t: Int] = [:]
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the command name: state ppid ... (rss is field 24 of the line).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 22, let parent = pid_t(fields[1]), let pages = Int(fields[21]) else { continue }
            children[parent, default: []].append(pid)
            resident[pid] = pages * pageSize
        }
        var total = 0
        var pending = [root]
        while let pid = pending.popLast() {
            total += resident[pid] ?? 0
            pending += children[pid] ?? []
        }
        return (Double(total) / 1_048_576 * 10).rounded() / 10
    }
}
