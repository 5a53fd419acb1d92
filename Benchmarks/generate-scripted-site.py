#!/usr/bin/env python3
"""Writes the scripted site that checks `navwatch crawl --render auto`'s
sampling rule: two kinds of page, one whose script adds links and one whose
script does not.

    generate-scripted-site.py OUTDIR [--pages N]      (N defaults to 300)

Pages 0..N-1 are laid out as generate-site.py's (/ and /page-i.html, text,
/style.css, a PNG each, five static links: (i + 1) mod N first, so a crawl
from "/" reaches every page), with one of two templates:

  menu      (even pages) <script src="/menu.js">: on DOMContentLoaded it
            appends a <nav class="menu"> linking /menu/item-1.html ..
            /menu/item-5.html, pages that nothing else links to (static, no
            scripts, each linking back to /), and /menu/missing.html, which
            does not exist: a broken link that only a rendered page shows.
  plain-js  (odd pages) <script src="/analytics.js">: sets a data attribute
            on <body> and adds no links or ids.

Every page's <h1> has id="top". Page 1 also links /page-2.html#top (there)
and /page-2.html#no-such-section (missing: a missing fragment in static
HTML). Also writes /robots.txt allowing everything. The same N always gives
byte-identical output.

A full crawl (rendering every page) finds N + 5 pages and one broken link,
/menu/missing.html; a static one finds N pages and no broken link.
"""

import argparse
import importlib.util
import os
import random
import sys

# The text, links and images of generate-site.py, so both sites' pages weigh the same.
_spec = importlib.util.spec_from_file_location("generate_site", os.path.join(os.path.dirname(__file__), "generate-site.py"))
site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site)

MENU_ITEMS = 5

MENU_JS = """const MENU_ITEMS = %d;
document.addEventListener("DOMContentLoaded", () => {
  const nav = document.createElement("nav");
  nav.className = "menu";
  const items = Array.from({length: MENU_ITEMS}, (_, k) => ["/menu/item-" + (k + 1) + ".html", "Menu item " + (k + 1)]);
  items.push(["/menu/missing.html", "Gone"]);
  for (const [href, text] of items) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    nav.appendChild(a);
  }
  document.body.prepend(nav);
});
""" % MENU_ITEMS

ANALYTICS_JS = """document.addEventListener("DOMContentLoaded", () => {
  document.body.dataset.analytics = "seen";
});
"""


def page_html(i, n, text, links):
    script = "/menu.js" if i % 2 == 0 else "/analytics.js"
    anchors = ['    <a href="%s">Page %d</a>' % (site.page_path(j), j) for j in links]
    if i == 1:
        anchors.append('    <a href="/page-2.html#top">Page 2, top</a>')
        anchors.append('    <a href="/page-2.html#no-such-section">Page 2, a section it does not have</a>')
    body = "\n".join("  <p>%s</p>" % p for p in text)
    return """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Scripted page %(i)d of %(n)d</title>
  <link rel=stylesheet href=/style.css>
  <script src="%(script)s"></script>
</head>
<body>
  <h1 id="top">Scripted page %(i)d</h1>
  <img src=/img/p%(i)d.png alt="" width=80 height=80>
%(body)s
  <nav>
%(anchors)s
  </nav>
</body>
</html>
""" % {"i": i, "n": n, "script": script, "body": body, "anchors": "\n".join(anchors)}


def menu_html(k):
    return """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Menu item %(k)d</title>
</head>
<body>
  <h1>Menu item %(k)d</h1>
  <p>Only the menu that /menu.js adds links here.</p>
  <a href="/">Home</a>
</body>
</html>
""" % {"k": k}


def main():
    parser = argparse.ArgumentParser(description="Write the scripted benchmark site.")
    parser.add_argument("outdir")
    parser.add_argument("--pages", type=int, default=300, help="number of pages besides the menu's (default 300)")
    args = parser.parse_args()
    n = args.pages
    if n < 3:
        parser.error("--pages must be at least 3")

    os.makedirs(os.path.join(args.outdir, "img"), exist_ok=True)
    os.makedirs(os.path.join(args.outdir, "menu"), exist_ok=True)
    link_rng = random.Random(n)  # one stream for the link graph, seeded by N
    for i in range(n):
        text_rng = random.Random(1_000_003 * n + i)  # per page: text and image
        text = site.paragraphs(text_rng)
        site.write(os.path.join(args.outdir, site.page_file(i)), page_html(i, n, text, site.links_for(i, n, link_rng)))
        site.write(os.path.join(args.outdir, "img", "p%d.png" % i), site.png(text_rng))
    for k in range(1, MENU_ITEMS + 1):
        site.write(os.path.join(args.outdir, "menu", "item-%d.html" % k), menu_html(k))
    site.write(os.path.join(args.outdir, "style.css"), site.STYLE_CSS)
    site.write(os.path.join(args.outdir, "menu.js"), MENU_JS)
    site.write(os.path.join(args.outdir, "analytics.js"), ANALYTICS_JS)
    site.write(os.path.join(args.outdir, "robots.txt"), site.ROBOTS_TXT)
    print("wrote %d pages and %d menu pages to %s" % (n, MENU_ITEMS, args.outdir), file=sys.stderr)


if __name__ == "__main__":
    main()
