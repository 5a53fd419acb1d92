#!/usr/bin/env python3
"""Runs a command and measures its whole process tree.

    proctree.py --out FILE -- CMD ARGS...

CMD inherits stdin, stdout and stderr; SIGINT and SIGTERM are forwarded to
it. Every 50 ms the tree rooted at CMD is sampled from /proc (children by
ppid, grandchildren such as WebKitWebProcess and WebKitNetworkProcess, and
whatever they start). A process stays counted after it is reparented (its
parent exited first). When CMD exits, FILE gets one JSON object:

    {"wall_seconds": ..., "cpu_seconds": ..., "peak_rss_mb": ...,
     "exit_code": ..., "processes": ...}

wall_seconds  CMD's start to its exit.
cpu_seconds   user + system time of every process ever seen in the tree, each
              at its last sample. CMD's own figure is exact: it is read from
              /proc while CMD is a zombie, before it is reaped. Descendants
              still alive when CMD exits are followed until they are gone
              (up to 2 s more) so their shutdown is counted too. A process
              that lives and dies between two samples is missed, and each
              process may lose up to 50 ms of its last moments; the total is
              never below CMD's wait4 rusage (CMD plus the children it reaped).
peak_rss_mb   the largest sum, over one sample, of the tree's resident set
              sizes. Pages shared between processes (libraries, shared
              memory) count once per process, as in `ps`.
processes     how many processes were seen in the tree, CMD included.
cpu_by_name   cpu_seconds split by process name (WebKitWebProcess,
              WebKitNetworkProcess, CMD's own name, ...).
cmd_threads   CMD's own CPU split by thread name (NIO-ELT-... for SwiftNIO's
              event loops, ReceiveQueue for WebKit's IPC, ...), as last
              sampled: a thread that ends between samples loses its last
              moments, one that lives less than a sample is missed.

Exits with CMD's exit code (128 + N when a signal N killed it).
"""

import ctypes
import json
import os
import signal
import subprocess
import sys
import time

INTERVAL = 0.05
GRACE = 2.0  # how long to follow descendants that outlive CMD
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Orphans in CMD's tree get reparented to us, not to init, so a process
    whose parent exits before the first sample still shows up (as our child)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux enough: reparented orphans are followed only once seen


def read_stat(pid, path=None):
    """(ppid, starttime, cpu_ticks, rss_bytes, is_zombie, name) or None if pid is gone."""
    try:
        with open(path or "/proc/%d/stat" % pid, "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces or ')'.
    name = data[data.index(b"(") + 1:data.rindex(b")")].decode("utf-8", "replace")
    fields = data[data.rindex(b")") + 2:].split()
    # fields[0] is field 3 of proc(5): state; field k is fields[k - 3].
    state, ppid = fields[0], int(fields[1])
    utime, stime = int(fields[11]), int(fields[12])
    starttime, rss = int(fields[19]), int(fields[21])
    return ppid, starttime, utime + stime, rss * PAGE, state == b"Z", name


def all_stats():
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = read_stat(int(name))
            if stat:
                stats[int(name)] = stat
    return stats


class Tree:
    def __init__(self, root):
        self.root = root
        self.cpu = {}       # (pid, starttime) -> last-seen cpu ticks
        self.members = {}   # pid -> starttime, for processes known to belong
        self.peak_rss = 0
        self.names = {}     # (pid, starttime) -> process name
        self.threads = {}   # (tid, starttime) -> (thread name, cpu ticks), the root's threads

    def sample(self):
        """Samples the tree; returns how many of its processes are alive (zombies excluded)."""
        stats = all_stats()
        children = {}
        for pid, stat in stats.items():
            children.setdefault(stat[0], []).append(pid)
        # The root, known members (even reparented ones, if still the same
        # process), orphans reparented to us, and everything below them.
        todo = [self.root] + [pid for pid, start in self.members.items()
                              if pid in stats and stats[pid][1] == start]
        todo += children.get(os.getpid(), [])
        tree = set()
        while todo:
            pid = todo.pop()
            if pid in tree or pid not in stats:
                continue
            tree.add(pid)
            todo.extend(children.get(pid, ()))
        rss, alive = 0, 0
        for pid in tree:
            _, start, cpu, size, zombie, name = stats[pid]
            self.members[pid] = start
            key = (pid, start)
            self.cpu[key] = max(cpu, self.cpu.get(key, 0))
            self.names[key] = name
            rss += size
            alive += not zombie
        self.peak_rss = max(self.peak_rss, rss)
        self.sample_threads()
        return alive

    def sample_threads(self):
        try:
            tids = os.listdir("/proc/%d/task" % self.root)
        except OSError:
            return
        for tid in tids:
            stat = read_stat(int(tid), "/proc/%d/task/%s/stat" % (self.root, tid))
            if stat:
                key = (int(tid), stat[1])
                self.threads[key] = (stat[5], max(stat[2], self.threads.get(key, ("", 0))[1]))

    def cpu_by_name(self):
        totals = {}
        for key, ticks in self.cpu.items():
            name = self.names.get(key, "?")
            totals[name] = totals.get(name, 0) + ticks
        return {name: round(ticks / TICKS, 2) for name, ticks in sorted(totals.items(), key=lambda t: -t[1])}

    def thread_cpu_by_name(self):
        totals = {}
        for name, ticks in self.threads.values():
            totals[name] = totals.get(name, 0) + ticks
        return {name: round(ticks / TICKS, 2) for name, ticks in sorted(totals.items(), key=lambda t: -t[1]) if ticks}

    def descendants_alive(self):
        count = 0
        for pid, start in self.members.items():
            stat = read_stat(pid)
            if pid != self.root and stat and stat[1] == start and not stat[4]:
                count += 1
        return count

    def cpu_ticks(self):
        return sum(self.cpu.values())


def main():
    argv = sys.argv[1:]
    out = None
    while argv and argv[0] != "--":
        if argv[0] == "--out" and len(argv) > 1:
            out, argv = argv[1], argv[2:]
        elif argv[0].startswith("--out="):
            out, argv = argv[0][len("--out="):], argv[1:]
        else:
            break
    if out is None or not argv or argv[0] != "--" or len(argv) < 2:
        print("usage: proctree.py --out FILE -- CMD ARGS...", file=sys.stderr)
        return 2
    command = argv[1:]

    become_subreaper()
    started = time.monotonic()
    try:
        child = subprocess.Popen(command)
    except OSError as error:
        print("proctree: cannot run %s: %s" % (command[0], error), file=sys.stderr)
        return 127
    pid = child.pid

    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)

    tree = Tree(pid)
    while True:
        # WNOWAIT: notice the exit but leave CMD a zombie, whose /proc stat
        # still holds its final user and system time.
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            break
        tick = time.monotonic()
        tree.sample()
        time.sleep(max(0.0, INTERVAL - (time.monotonic() - tick)))
    wall = time.monotonic() - started
    tree.sample()  # the final figures: CMD is a zombie, its descendants may still run
    _, status, rusage = os.wait4(pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again

    deadline = time.monotonic() + GRACE
    while tree.descendants_alive() and time.monotonic() < deadline:
        time.sleep(INTERVAL)
        tree.sample()

    while True:  # reap the orphans that became our children
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break

    cpu = tree.cpu_ticks() / TICKS
    cpu = max(cpu, rusage.ru_utime + rusage.ru_stime)
    code = child.returncode if child.returncode >= 0 else 128 - child.returncode
    result = {
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 2),
        "peak_rss_mb": round(tree.peak_rss / (1024 * 1024), 1),
        "exit_code": code,
        "processes": len(tree.cpu),
        "cpu_by_name": tree.cpu_by_name(),
        "cmd_threads": tree.thread_cpu_by_name(),
    }
    with open(out, "w") as f:
        json.dump(result, f)
        f.write("\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
