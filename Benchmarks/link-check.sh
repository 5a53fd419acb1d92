#!/usr/bin/env bash
# The link checking comparison of Scripts/bench on its own, in about three
# minutes: lychee (every page as input, fragments checked, no per-host
# limit), wget --spider -r, and navwatch crawl --render auto, never and
# always at concurrency 2, each once, over Debian's Python documentation
# (python3.11-doc), a Doxygen site with its navigation tree (libsdl2-doc) and
# the scripted site (Benchmarks/generate-scripted-site.py),
# both served by nginx on 127.0.0.1. Prints report.py's link checking and
# scripted site tables and keeps the raw files in the results folder.
#
#   Benchmarks/link-check.sh [--bin DIR] [--pages N] [--results DIR]
#
# --bin     the folder of the navwatch binary to measure (default .build/release).
#           Given, it is never built; the default is built (release) only when
#           it has no navwatch.
# --pages   pages of the scripted site besides its menu's (default 300).
# --results where the raw files go (default a new folder under /tmp).
#
# Installs python3.11-doc, libsdl2-doc, python3-venv, wget and nginx-light if missing, and
# lychee with pip into a throwaway virtual environment (its rows are left out
# when it cannot be installed).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="" pages=300 results=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --pages) pages="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "link-check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$pages" =~ ^[1-9][0-9]*$ ]] || (( pages < 3 )); then
  echo "link-check: --pages must be a whole number of 3 or more" >&2; exit 2
fi

Scripts/setup python3.11-doc libsdl2-doc python3-venv wget
docs_root=/usr/share/doc/python3.11/html
doxygen_root=/usr/share/doc/libsdl2-doc/html
# shellcheck source=nginx.sh
source Benchmarks/nginx.sh
# shellcheck source=link-peers.sh
source Benchmarks/link-peers.sh
step() { echo "link-check: $*" >&2; }

# The binary: a given folder as it is; the default one built if missing.
if [ -z "$bin" ]; then
  bin=.build/release
  if [ ! -x "$bin/navwatch" ]; then
    step "building navwatch (release)"
    swift build -c release --product navwatch 2>&1 | tail -3 >&2
  fi
fi
[ -x "$bin/navwatch" ] || { echo "link-check: no navwatch binary in $bin" >&2; exit 2; }
bin=$(cd "$bin" && pwd)

work=$(mktemp -d /tmp/navwatch-link-check.XXXXXX)
results=${results:-$work/results}
mkdir -p "$results"
results=$(cd "$results" && pwd)
xvfb_pid=""
cleanup() {
  nginx_stop 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work/venv" "$work/scripted" "$work"/*.db* "$work/display"
}
trap cleanup EXIT

step "installing lychee into a throwaway virtual environment"
link_peers_install "$work/venv"  # sets LYCHEE, empty when it could not be installed
[ -n "$LYCHEE" ] || step "lychee could not be installed (no network?): its rows are left out"

# WebKit needs a display: one Xvfb for every crawl.
mkfifo "$work/display"
Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x1024x24 3>"$work/display" >/dev/null 2>&1 &
xvfb_pid=$!
read -r -t 15 display_number < "$work/display" || { echo "link-check: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$display_number"

# check SITE PREFIX URLS START MAX_PAGES: lychee over URLS, wget from START,
# then navwatch from START with each --render mode; the full crawl's files
# are named as Scripts/bench's (PREFIXnavwatch-c2-r1).
failed=0
check() {
  local site=$1 prefix=$2 urls=$3 start=$4 max_pages=$5 variant name mode
  if [ -n "$LYCHEE" ]; then
    step "$site: lychee"
    lychee_check "$results/${prefix}lychee-r1" "$urls"
  fi
  step "$site: wget --spider"
  wget_check "$results/${prefix}wget-r1" "$start"
  for variant in "render-auto:auto" "render-never:never" "navwatch:always"; do
    name=${variant%%:*} mode=${variant#*:}
    step "$site: navwatch crawl --render $mode, concurrency 2"
    rm -f "$work"/crawl.db*
    if ! python3 Benchmarks/proctree.py --out "$results/$prefix$name-c2-r1.tree.json" -- \
      "$bin/navwatch" crawl "$start" --db "$work/crawl.db" --concurrency 2 --max-pages "$max_pages" \
      --render "$mode" --out "$results/$prefix$name-c2-r1.jsonl" 2>"$results/$prefix$name-c2-r1.log"; then
      # A crawl that did not finish has no row (report.py skips missing files).
      step "navwatch crawl --render $mode failed; the end of its log:"
      tail -n 5 "$results/$prefix$name-c2-r1.log" >&2
      rm -f "$results/$prefix$name-c2-r1.jsonl" "$results/$prefix$name-c2-r1.tree.json"
      failed=1
    fi
  done
}

# The real site: every page of Debian's Python documentation.
nginx_start "$docs_root"
site_urls "$docs_root" "http://127.0.0.1:$NGINX_PORT" > "$results/docs-lychee-urls.txt"
check "real site" docs- "$results/docs-lychee-urls.txt" "http://127.0.0.1:$NGINX_PORT/index.html" 1000
nginx_stop

# A Doxygen site with its navigation tree: a script on every page, and the page's own name in an inline script.
nginx_start "$doxygen_root"
site_urls "$doxygen_root" "http://127.0.0.1:$NGINX_PORT" > "$results/doxygen-lychee-urls.txt"
check "Doxygen site" doxygen- "$results/doxygen-lychee-urls.txt" "http://127.0.0.1:$NGINX_PORT/index.html" 1000
nginx_stop

# The scripted site: links that only a script adds, one of them broken.
python3 Benchmarks/generate-scripted-site.py "$work/scripted" --pages "$pages"
nginx_start "$work/scripted"
site_urls "$work/scripted" "http://127.0.0.1:$NGINX_PORT" > "$results/scripted-lychee-urls.txt"
check "scripted site" scripted- "$results/scripted-lychee-urls.txt" "http://127.0.0.1:$NGINX_PORT/" $((pages + 100))
nginx_stop

python3 Benchmarks/report.py "$results" --links-only
step "raw figures in $results"
exit "$failed"
