#!/usr/bin/env bash
# Compares two navwatch binaries on the benchmark's generated site, in one
# run: their crawls alternate (A, B, A, B, ...), so both see the same machine.
# Prints pages/s and CPU ms per page (whole process tree) of every run, then
# the medians and the ratio B/A.
#
#   Benchmarks/ab-crawl.sh BIN_A BIN_B [--pages N] [--runs N] [--concurrency N] [--site DIR]
#                          [--engine ENGINE_LIMIT] [-- CRAWL OPTIONS...]
#
# --site serves DIR (index.html its start page) instead of the generated
# site, for example Debian's python3.11-doc: /usr/share/doc/python3.11/html.
# --engine adds a run of that engine-limit binary (Benchmarks/engine-limit.c,
# WebKit's defaults, an empty cache each run) before A and B in every round,
# and prints each side's pages/s relative to it.
#
# For example, a change against the commit before it, both built with
# `swift build -c release --product navwatch` in two work trees.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$#" -ge 2 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
bin_a=$1 bin_b=$2; shift 2
pages=300 runs=4 concurrency=2 site="" engine="" extra=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --pages) pages="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    --site) site="$2"; shift 2 ;;
    --engine) engine="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "ab-crawl: unknown option $1" >&2; exit 2 ;;
  esac
done

# shellcheck source=nginx.sh
source Benchmarks/nginx.sh
work=$(mktemp -d /tmp/navwatch-ab.XXXXXX)
xvfb_pid=""
cleanup() {
  nginx_stop 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$site" ]; then
  python3 Benchmarks/generate-site.py "$work/site" --pages "$pages" >/dev/null
  site="$work/site"
fi
nginx_start "$site"
mkfifo "$work/display"
Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x1024x24 3>"$work/display" >/dev/null 2>&1 &
xvfb_pid=$!
read -r -t 15 display_number < "$work/display" || { echo "ab-crawl: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$display_number"

for run in $(seq "$runs"); do
  if [ -n "$engine" ]; then
    rm -rf "$work/xdg" && mkdir -p "$work/xdg/cache" "$work/xdg/data"
    XDG_CACHE_HOME="$work/xdg/cache" XDG_DATA_HOME="$work/xdg/data" \
      python3 Benchmarks/proctree.py --out "$work/e-$run.tree.json" -- \
      "$engine" --concurrency "$concurrency" --max-pages "$pages" "http://127.0.0.1:$NGINX_PORT/" \
      > "$work/e-$run.json" 2>/dev/null || true
  fi
  for side in a b; do
    bin=$bin_a; [ "$side" = b ] && bin=$bin_b
    rm -f "$work"/crawl.db*
    python3 Benchmarks/proctree.py --out "$work/$side-$run.tree.json" -- \
      "$bin" crawl "http://127.0.0.1:$NGINX_PORT/" --db "$work/crawl.db" --concurrency "$concurrency" \
      --max-pages "$pages" --out "$work/$side-$run.jsonl" "${extra[@]}" 2>/dev/null || true
  done
done

python3 - "$work" "$runs" "$engine" <<'EOF'
import json, os, statistics, sys
sys.path.insert(0, "Benchmarks")
from report import navwatch_crawl
work, runs, engine = sys.argv[1], int(sys.argv[2]), sys.argv[3]
result = {}
if engine:
    rows = []
    for run in range(1, runs + 1):
        if not os.path.exists(f"{work}/e-{run}.json") or not os.path.getsize(f"{work}/e-{run}.json"):
            continue
        measured = json.load(open(f"{work}/e-{run}.json"))
        tree = json.load(open(f"{work}/e-{run}.tree.json"))
        rows.append((measured["pages_per_second"], tree["cpu_seconds"] * 1000 / max(1, measured["pages"]), measured["pages"]))
    print("engine: " + ", ".join(f"{r:.1f} pages/s {c:.1f} CPU ms/page ({p} pages)" for r, c, p in rows))
    engine_rate = statistics.median(r[0] for r in rows) if rows else 0
for side in "ab":
    rows = []
    for run in range(1, runs + 1):
        pages, rate = navwatch_crawl(f"{work}/{side}-{run}.jsonl")
        tree = json.load(open(f"{work}/{side}-{run}.tree.json"))
        rows.append((rate, tree["cpu_seconds"] * 1000 / max(1, pages), pages))
    result[side] = rows
    print(f"{side.upper()}: " + ", ".join(f"{r:.1f} pages/s {c:.1f} CPU ms/page ({p} pages)" for r, c, p in rows))
med = {side: (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)) for side, rows in result.items()}
print(f"median A {med['a'][0]:.1f} pages/s {med['a'][1]:.1f} CPU ms/page; "
      f"B {med['b'][0]:.1f} pages/s {med['b'][1]:.1f} CPU ms/page; "
      f"B/A pages/s {med['b'][0] / med['a'][0]:.3f}, CPU/page {med['b'][1] / med['a'][1]:.3f}")
def breakdown(path, pages):
    tree = json.load(open(path))
    by_name = ", ".join(f"{name} {seconds * 1000 / max(1, pages):.1f}" for name, seconds in tree.get("cpu_by_name", {}).items()
                        if seconds * 1000 / max(1, pages) >= 0.5)
    threads = ", ".join(f"{name} {seconds * 1000 / max(1, pages):.1f}" for name, seconds in tree.get("cmd_threads", {}).items()
                        if seconds * 1000 / max(1, pages) >= 0.5)
    return f"CPU ms/page by process: {by_name}\n    its own process's threads: {threads}"
if engine and rows:
    print(f"engine, last run: " + breakdown(f"{work}/e-{runs}.tree.json", rows[-1][2]))
for side in "ab":
    print(f"{side.upper()}, last run: " + breakdown(f"{work}/{side}-{runs}.tree.json", result[side][-1][2]))
if engine and engine_rate:
    print(f"engine median {engine_rate:.1f} pages/s; A/engine {med['a'][0] / engine_rate:.3f}, "
          f"B/engine {med['b'][0] / engine_rate:.3f}")
EOF
