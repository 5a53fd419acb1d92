#!/usr/bin/env python3
"""Writes a single-page app of N routes, for what `navwatch crawl --routes`
costs: one document, /index.html, whose router draws the route of its hash.

    generate-app-site.py OUTDIR [--routes N]      (N defaults to 100)

Routes #/r/0 .. #/r/N-1. Each route shows some text, a button to the next
route ((i + 1) mod N, so clicks reach every route from #/r/0) and an
<li onclick> to route (i * 7 + 3) mod N; the start page (no hash) shows
route 0. Nothing links to a route with <a href>: a crawl without --routes
finds one page, a crawl with them N + 1 (the start page and each route,
each loaded directly too). The same N always gives byte-identical output.
"""

import argparse
import os

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>App</title>
<style>body {{ font: 16px sans-serif; margin: 2em; }} li {{ cursor: pointer; }}</style></head>
<body><main id="main"></main>
<script>
const count = {count};
function render() {{
  const match = /^#\\/r\\/(\\d+)$/.exec(location.hash);
  const i = match ? Number(match[1]) % count : 0;
  document.title = 'Route ' + i;
  const next = (i + 1) % count, jump = (i * 7 + 3) % count;
  document.getElementById('main').innerHTML =
    '<h1>Route ' + i + '</h1>' +
    '<p>' + 'Some text of route ' + i + '. '.repeat(20) + '</p>' +
    '<button type="button" data-to="' + next + '">Route ' + next + '</button>' +
    '<ul><li data-to="' + jump + '">Jump to ' + jump + '</li></ul>';
  for (const element of document.querySelectorAll('[data-to]')) {{
    element.onclick = () => {{ location.hash = '#/r/' + element.dataset.to; }};
  }}
}}
addEventListener('hashchange', render);
render();
</script></body></html>
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--routes", type=int, default=100)
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "index.html"), "w") as f:
        f.write(PAGE.format(count=args.routes))
    with open(os.path.join(args.outdir, "robots.txt"), "w") as f:
        f.write("User-agent: *\nAllow: /\n")
    print(f"{args.outdir}: a single-page app of {args.routes} routes")


if __name__ == "__main__":
    main()
