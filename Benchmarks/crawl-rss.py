#!/usr/bin/env python3
"""The navwatch process's own memory as a crawl goes on.

    crawl-rss.py --checkpoints 2000 20000 -- NAVWATCH crawl URL --max-pages 20000 ...

Runs the crawl command given after `--` with its reports on standard output
(add no --out), counts the pages loaded as their reports arrive, and reads
the resident set size (VmRSS) of that one process, web and network processes
aside, when the count reaches each checkpoint. Prints one JSON object:

    {"checkpoints": {"2000": 61.2, "20000": 63.0}, "loaded": 20000, "peak_rss_mb": 70.1, "exit": 0}

peak_rss_mb is the process's high-water mark (VmHWM) at the last checkpoint.
"""
import json
import subprocess
import sys


def status_mb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    return None


def main():
    args = sys.argv[1:]
    if "--checkpoints" not in args or "--" not in args:
        sys.exit(__doc__)
    split = args.index("--")
    checkpoints = sorted(int(x) for x in args[args.index("--checkpoints") + 1:split])
    command = args[split + 1:]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rss, loaded, peak = {}, 0, None
    for line in child.stdout:
        report = json.loads(line)
        if report.get("outcome") in ("skipped", "blocked"):
            continue
        loaded += 1
        if loaded in checkpoints:
            rss[str(loaded)] = status_mb(child.pid, "VmRSS")
            peak = status_mb(child.pid, "VmHWM")
    print(json.dumps({"checkpoints": rss, "loaded": loaded, "peak_rss_mb": peak, "exit": child.wait()}))


if __name__ == "__main__":
    main()
