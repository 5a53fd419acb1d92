#!/usr/bin/env python3
"""Writes the static site the crawl benchmarks load.

    generate-site.py OUTDIR [--pages N]      (N defaults to 300)

Page 0 is /index.html (linked as "/"), page i > 0 is /page-i.html. Every page
has a <title>, about 3 KB of paragraph text, /style.css, /app.js, its own PNG
(/img/pI.png, about 1.3 KB) and exactly five links to other pages: the first
to page (i + 1) mod N, so a crawl from "/" reaches every page, and four more
picked at random. Also writes /robots.txt allowing everything. The same N
always gives byte-identical output.
"""

import argparse
import os
import random
import struct
import sys
import zlib

WORDS = (
    "navigation frontier crawler render viewport offscreen window process network "
    "request response commit finish title anchor stylesheet script image document "
    "origin scheme host path query fragment cache memory thread signal loop timer "
    "paint layout style parse token queue depth breadth visit seed link page site "
    "engine bridge shim event policy decision resource transfer bytes header status "
    "redirect timeout retry crash worker socket loopback latency throughput sample"
).split()

TEXT_BYTES = 3000  # paragraph text per page, roughly
LINKS = 5
PNG_SIDE = 20      # 20x20 RGB noise compresses badly: about 1.3 KB a file

STYLE_CSS = """body { font: 16px/1.5 sans-serif; margin: 2em auto; max-width: 46em; color: #222; }
h1 { font-size: 1.6em; }
img { display: block; width: 80px; height: 80px; image-rendering: pixelated; }
nav a { margin-right: 1em; }
"""

APP_JS = """document.documentElement.dataset.app = "ready";
"""

ROBOTS_TXT = """User-agent: *
Allow: /
"""


def page_path(i):
    return "/" if i == 0 else "/page-%d.html" % i


def page_file(i):
    return "index.html" if i == 0 else "page-%d.html" % i


def paragraphs(rng):
    out, size = [], 0
    while size < TEXT_BYTES:
        sentences = []
        for _ in range(rng.randint(3, 6)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
            sentences.append(" ".join(words).capitalize() + ".")
        text = " ".join(sentences)
        out.append(text)
        size += len(text)
    return out


def links_for(i, n, rng):
    """Page (i + 1) mod n first, then four distinct random others (not i)."""
    first = (i + 1) % n
    candidates = [j for j in range(n) if j != i and j != first]
    if len(candidates) >= LINKS - 1:
        others = rng.sample(candidates, LINKS - 1)
    else:  # tiny sites: repeats are unavoidable
        pool = candidates or [first]
        others = [rng.choice(pool) for _ in range(LINKS - 1)]
    return [first] + others


def png(rng, side=PNG_SIDE):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rng.getrandbits(8) for _ in range(side * 3)) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def page_html(i, n, text, links):
    anchors = "\n".join('    <a href="%s">Page %d</a>' % (page_path(j), j) for j in links)
    body = "\n".join("  <p>%s</p>" % p for p in text)
    return """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Benchmark page %(i)d of %(n)d</title>
  <link rel=stylesheet href=/style.css>
</head>
<body>
  <h1>Benchmark page %(i)d</h1>
  <img src=/img/p%(i)d.png alt="" width=80 height=80>
%(body)s
  <nav>
%(anchors)s
  </nav>
  <script src=/app.js></script>
</body>
</html>
""" % {"i": i, "n": n, "body": body, "anchors": anchors}


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8", "newline": "\n"})) as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser(description="Write the static benchmark site.")
    parser.add_argument("outdir")
    parser.add_argument("--pages", type=int, default=300, help="number of pages (default 300)")
    args = parser.parse_args()
    n = args.pages
    if n < 2:
        parser.error("--pages must be at least 2")

    os.makedirs(os.path.join(args.outdir, "img"), exist_ok=True)
    link_rng = random.Random(n)  # one stream for the link graph, seeded by N
    for i in range(n):
        text_rng = random.Random(1_000_003 * n + i)  # per page: text and image
        text = paragraphs(text_rng)
        write(os.path.join(args.outdir, page_file(i)), page_html(i, n, text, links_for(i, n, link_rng)))
        write(os.path.join(args.outdir, "img", "p%d.png" % i), png(text_rng))
    write(os.path.join(args.outdir, "style.css"), STYLE_CSS)
    write(os.path.join(args.outdir, "app.js"), APP_JS)
    write(os.path.join(args.outdir, "robots.txt"), ROBOTS_TXT)
    print("wrote %d pages to %s" % (n, args.outdir), file=sys.stderr)


if __name__ == "__main__":
    main()
