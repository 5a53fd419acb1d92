#!/usr/bin/env python3
"""navwatch-todo: times navwatch's todo suite (Examples/WebAppTests/
TodoAppTests.swift) as `swift test` runs it, for Scripts/bench, beside
Benchmarks/playwright-todo.py.

    navwatch-todo.py [--serial] [--trace DIR [--no-screenshots]] [-- extra swift test options]

Runs `swift test --skip-build --filter TodoAppTests` (the tests must be
built; Scripts/bench builds them) with the display of the environment (the
bench's Xvfb, as every other measurement), and prints one JSON line in the
shape of playwright-todo.py's:

    {"engine": "navwatch", "workers": W, "tests": 12, "failed": 0,
     "seconds": S,          # Swift Testing's own figure: "Test run with 12 tests ... after S seconds"
     "process_seconds": P,  # the swift test process, start to exit (SwiftPM and the test binary starting included)
     "per_test": {"addItems": {"seconds": s, "error": null}, ...}}

process_seconds would include SwiftPM compiling its manifest again when
the environment differs from its last run's (any variable, even `_`, which
the shell sets to the command's path: some 20 s on a busy 2-core machine),
so this script runs `swift test` without `_`, and `--warm-up` runs it once,
untimed, selecting no test, in the environment of the timed runs.

Swift Testing runs a suite's tests all at once (W = 12, interleaved on the
WebKit actor's thread); `--serial` passes `--no-parallel`, one test after
another (W = 1). Per-test names are the functions' names, read from the
`@Test("...") func name()` pairs of TodoAppTests.swift, so they match
playwright-todo.py's.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SUITE = os.path.join(ROOT, "Examples", "WebAppTests", "TodoAppTests.swift")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--serial", action="store_true", help="one test after another (swift test --no-parallel)")
    parser.add_argument("--trace", metavar="DIR",
                        help="trace every test (view.tracing), writing the traces into DIR (NAVWATCH_TODO_TRACE)")
    parser.add_argument("--no-screenshots", action="store_true",
                        help="with --trace, traces without screenshots (NAVWATCH_TODO_TRACE_SCREENSHOTS=0)")
    parser.add_argument("--warm-up", action="store_true",
                        help="run swift test once selecting no test (SwiftPM's manifest cache), print nothing")
    parser.add_argument("extra", nargs="*", help="more swift test options, after --")
    args = parser.parse_args()
    environment = {name: value for name, value in os.environ.items() if name != "_"}
    # Playwright's suite tests the plain-DOM build of the app: so does this run.
    environment["NAVWATCH_TODO_BUILD"] = "plain"
    if args.trace:
        os.makedirs(args.trace, exist_ok=True)
        environment["NAVWATCH_TODO_TRACE"] = os.path.abspath(args.trace)
        environment["NAVWATCH_TODO_TRACE_SCREENSHOTS"] = "0" if args.no_screenshots else "1"
    if args.warm_up:
        subprocess.run(["swift", "test", "--skip-build", "--filter", "TodoAppTests/none"], cwd=ROOT, env=environment,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return 0

    names = dict(re.findall(r'@Test\("((?:[^"\\]|\\.)*)"(?:, arguments: [^)]*)?\)\s*\n\s*func (\w+)', open(SUITE).read()))
    command = ["swift", "test", "--skip-build", "--filter", "TodoAppTests"]
    if args.serial:
        command.append("--no-parallel")
    command += args.extra
    start = time.monotonic()
    run = subprocess.run(command, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace")
    process_seconds = time.monotonic() - start

    per_test, total, passed_run = {}, None, False
    for line in run.stdout.splitlines():
        test = re.search(r'Test (?:"((?:[^"\\]|\\.)*)"|(\w+)\(\))(?: with \d+ test cases?)? (passed|failed) after ([0-9.]+) seconds',
                         line)
        if test:
            display = test.group(1) or test.group(2)
            name = names.get(display, display)
            per_test[name] = {"seconds": float(test.group(4)),
                              "error": None if test.group(3) == "passed" else "failed (see swift test's output)"}
            continue
        whole = re.search(r"Test run with (\d+) tests? .*?(passed|failed) after ([0-9.]+) seconds", line)
        if whole:
            total, passed_run = float(whole.group(3)), whole.group(2) == "passed"
    failed = sum(1 for r in per_test.values() if r["error"])
    if run.returncode != 0 or total is None or not passed_run or len(per_test) != len(names):
        sys.stderr.write(run.stdout[-4000:])
        failed = failed or len(names) - sum(1 for r in per_test.values() if not r["error"]) or 1
    print(json.dumps({
        "engine": "navwatch", "workers": 1 if args.serial else len(names), "tests": len(per_test), "failed": failed,
        "traced": bool(args.trace), "screenshots": bool(args.trace) and not args.no_screenshots,
        "seconds": total, "process_seconds": round(process_seconds, 4),
        "per_test": {name: per_test[name] for name in names.values() if name in per_test},
    }))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
