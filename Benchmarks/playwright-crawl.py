#!/usr/bin/env python3
"""playwright-crawl: the crawl loop a user would write with Playwright and
Chromium, as a peer to compare navwatch's crawler against (Scripts/bench).

    playwright-crawl.py --concurrency 2 --max-pages 300 --chromium /usr/bin/chromium http://127.0.0.1:8080/

Breadth-first from URL with C pages of one browser context, like
engine-limit.c: a page loads the next unvisited same-origin URL (fragment
stripped) as soon as its previous page fired `load` and its links were read
with one JavaScript call. Stops after N pages or when the frontier is empty,
then prints one JSON line:

    {"engine":"playwright-chromium","concurrency":C,"pages":P,"failed":F,"seconds":S,"pages_per_second":R}

Viewport 1280x800, JavaScript and images on, as navwatch's views.
"""
import argparse
import asyncio
import json
import sys
import time
from urllib.parse import urldefrag, urlsplit

from playwright.async_api import async_playwright

LINKS = "Array.from(document.links, a => a.href)"


def origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--max-pages", type=int, default=300)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("url")
    args = parser.parse_args()

    start = urldefrag(args.url)[0]
    start_origin = origin(start)
    frontier = [start]
    seen = {start}
    taken = 0
    loaded = failed = 0
    idle = asyncio.Condition()
    busy = 0

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        pages = [await context.new_page() for _ in range(args.concurrency)]
        for page in pages:
            await page.goto("about:blank")
        began = time.monotonic()

        async def worker(page):
            nonlocal taken, loaded, failed, busy
            while True:
                async with idle:
                    while not frontier and busy > 0 and taken < args.max_pages:
                        await idle.wait()
                    if not frontier or taken >= args.max_pages:
                        idle.notify_all()
                        return
                    url = frontier.pop(0)
                    taken += 1
                    busy += 1
                try:
                    await page.goto(url, wait_until="load", timeout=30_000)
                    links = await page.evaluate(LINKS)
                    loaded += 1
                except Exception as error:  # a failed load is counted, the crawl goes on
                    print(f"failed {url}: {error}", file=sys.stderr)
                    links = []
                    failed += 1
                async with idle:
                    busy -= 1
                    for href in links:
                        link = urldefrag(href)[0]
                        if origin(link) == start_origin and link not in seen:
                            seen.add(link)
                            frontier.append(link)
                    idle.notify_all()

        await asyncio.gather(*(worker(page) for page in pages))
        seconds = time.monotonic() - began
        await browser.close()

    print(json.dumps({"engine": "playwright-chromium", "concurrency": args.concurrency, "pages": loaded,
                      "failed": failed, "seconds": round(seconds, 3),
                      "pages_per_second": round(loaded / seconds, 2) if seconds > 0 else 0}))


asyncio.run(main())
