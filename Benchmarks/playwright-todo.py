#!/usr/bin/env python3
r"""playwright-todo: the todo app's end-to-end suite (Examples/WebAppTests/
TodoAppTests.swift) written with Playwright for Python, as the peer of
navwatch's suite in Scripts/bench.

    playwright-todo.py --chromium /usr/bin/chromium [--workers N] [--app Examples/WebAppTests/TodoApp.swift]

The same 12 tests, test for test and action for action (the same locators,
the same actions, the same web-first assertions with `expect` from
playwright.async_api and its 5 s timeout), against the same app:

- The app's HTML is read from TodoApp.swift itself, the text of its
  `static let page` multi-line string literal, unescaped as Swift does (the
  closing delimiter's indentation removed, `\\` read as one backslash; an
  interpolation or an escape this script does not know stops it), so the
  two suites can never test different pages.
- As the Swift suite gives each test its own LoopbackServer, each test here
  starts its own `http.server` on 127.0.0.1 and a free port (its own origin,
  its own localStorage), serving the page at / and a 404 elsewhere, and
  stops it at the end.
- One headless Chromium (Debian's, `--chromium`, as Scripts/bench's crawl
  peer launches it: `--no-sandbox`, as root), and per test a new browser
  context and page (viewport 1280x800, as navwatch's views), closed at the
  end, as the Swift suite makes and closes a WebView per test.
- `--workers N` runs at most N tests at once (asyncio tasks on one event
  loop, one browser); 0 (the default) starts all 12 at once, as Swift
  Testing runs the tests of a suite (all of them in one task group,
  interleaved on the WebKit actor's thread); 1 runs them one after another,
  as `swift test --no-parallel`.

Prints one JSON line:

    {"engine": "playwright-chromium", "workers": W, "tests": 12, "failed": 0,
     "seconds": S,            # the suite: launch of the browser to its close
     "launch_seconds": L,     # of it, launching the browser
     "process_seconds": P,    # this process, start to the JSON line (imports and driver start included)
     "actions": A, "assertions": E,
     "per_test": {"addItems": {"seconds": s, "actions": a, "assertions": e, "error": null}, ...}}

Actions are what a test does to the page (goto, fill, press, check,
uncheck, click, dblclick, dispatch_event, reload, go_back, go_forward,
evaluate), assertions its web-first `expect`s; the Swift suite has the same
counts, test for test, since its tests are written the same.
"""
import argparse
import asyncio
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROCESS_START = time.monotonic()

from playwright.async_api import async_playwright, expect  # noqa: E402

ITEMS = ["buy some cheese", "feed the cat", "book a doctors appointment"]
APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Examples", "WebAppTests", "TodoApp.swift")


def swift_page(path):
    """The text of the `static let page` multi-line literal in TodoApp.swift, as Swift reads it."""
    source = open(path, encoding="utf-8").read()
    found = re.search(r'static let page = """\n(.*?)\n([ \t]*)"""', source, re.S)
    if not found:
        sys.exit(f"playwright-todo: no `static let page = \"\"\"` literal in {path}")
    body, indent = found.group(1), found.group(2)
    lines = []
    for line in body.split("\n"):
        if line.strip() and not line.startswith(indent):
            sys.exit(f"playwright-todo: a line of the page is indented less than its closing delimiter: {line!r}")
        lines.append(line[len(indent):])
    text = "\n".join(lines)
    escapes = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "0": "\0"}

    def unescape(match):
        escape = match.group(1)
        if escape in escapes:
            return escapes[escape]
        if escape.startswith("u{"):
            return chr(int(escape[2:-1], 16))
        sys.exit(f"playwright-todo: the page has `\\{escape}`, which this script cannot read the Swift way")

    return re.sub(r"\\(u\{[0-9a-fA-F]+\}|.)", unescape, text, flags=re.S)


class App:
    """The page at / of its own server on 127.0.0.1 and a free port, as TodoApp.start()."""

    def __init__(self, page):
        body = page.encode()
        missing = b"<title>Not found</title>"

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                status, content = (200, body) if self.path.split("?")[0] == "/" else (404, missing)
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Counts:
    """What one test did: actions on the page and web-first assertions."""

    def __init__(self):
        self.actions = 0
        self.assertions = 0

    async def act(self, awaitable):
        self.actions += 1
        return await awaitable

    async def expect(self, awaitable):
        self.assertions += 1
        return await awaitable


class Suite:
    def __init__(self, browser, page_html):
        self.browser = browser
        self.page_html = page_html

    async def with_app(self, counts, body, adding=()):
        """A fresh page showing a fresh app, closed and stopped by `body`'s end (withApp)."""
        app = App(self.page_html)
        context = await self.browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = await context.new_page()
            await counts.act(page.goto(app.url))
            for todo in adding:
                await counts.act(page.get_by_placeholder("What needs to be done?").fill(todo))
                await counts.act(page.get_by_placeholder("What needs to be done?").press("Enter"))
            await body(page, app.url)
        finally:
            await context.close()
            app.stop()

    @staticmethod
    async def stored_todos(counts, page):
        return await counts.act(page.evaluate("JSON.parse(localStorage.getItem('navwatch-todos') || '[]')"))

    # New todo

    async def addItems(self, t):
        async def body(page, url):
            new_todo = page.get_by_placeholder("What needs to be done?")
            await t.act(new_todo.fill(ITEMS[0]))
            await t.act(new_todo.press("Enter"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text([ITEMS[0]]))
            await t.expect(expect(new_todo).to_be_empty())
            await t.act(new_todo.fill(ITEMS[1]))
            await t.act(new_todo.press("Enter"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text(ITEMS[0:2]))
            assert len(await self.stored_todos(t, page)) == 2
        await self.with_app(t, body)

    async def appendAndCount(self, t):
        async def body(page, url):
            await t.expect(expect(page.get_by_test_id("todo-count")).to_have_text("3 items left"))
            await t.expect(expect(page.get_by_test_id("todo-count")).to_contain_text("3"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text(ITEMS))
        await self.with_app(t, body, adding=ITEMS)

    # Mark all as completed

    async def markAll(self, t):
        async def body(page, url):
            await t.act(page.get_by_label("Mark all as complete").check())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_class(["completed", "completed", "completed"]))
            await t.act(page.get_by_label("Mark all as complete").uncheck())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_class(["", "", ""]))
        await self.with_app(t, body, adding=ITEMS)

    async def completeAllFollows(self, t):
        async def body(page, url):
            toggle_all = page.get_by_label("Mark all as complete")
            await t.act(toggle_all.check())
            await t.expect(expect(toggle_all).to_be_checked())
            first = page.get_by_test_id("todo-item").nth(0)
            await t.act(first.get_by_role("checkbox").uncheck())
            await t.expect(expect(toggle_all).not_to_be_checked())
            await t.act(first.get_by_role("checkbox").check())
            await t.expect(expect(toggle_all).to_be_checked())
        await self.with_app(t, body, adding=ITEMS)

    # Items

    async def markItems(self, t):
        async def body(page, url):
            first, second = page.get_by_test_id("todo-item").nth(0), page.get_by_test_id("todo-item").nth(1)
            await t.act(first.get_by_role("checkbox").check())
            await t.expect(expect(first).to_have_class("completed"))
            await t.act(second.get_by_role("checkbox").check())
            await t.expect(expect(second).to_have_class("completed"))
            await t.act(first.get_by_role("checkbox").uncheck())
            await t.expect(expect(first).not_to_have_class("completed"))
            await t.expect(expect(second).to_have_class("completed"))
        await self.with_app(t, body, adding=ITEMS[0:2])

    async def editItem(self, t):
        async def body(page, url):
            second = page.get_by_test_id("todo-item").nth(1)
            await t.act(second.dblclick())
            await t.act(second.get_by_role("textbox", name="Edit").fill("buy some sausages"))
            await t.act(second.get_by_role("textbox", name="Edit").press("Enter"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text([ITEMS[0], "buy some sausages", ITEMS[2]]))
        await self.with_app(t, body, adding=ITEMS)

    # Editing

    async def editingHidesControls(self, t):
        async def body(page, url):
            item = page.get_by_test_id("todo-item").nth(1)
            await t.act(item.dblclick())
            await t.expect(expect(item.get_by_role("checkbox")).not_to_be_visible())
            await t.expect(expect(item.locator("label")).not_to_be_visible())
        await self.with_app(t, body, adding=ITEMS)

    async def saveTrimRemove(self, t):
        async def body(page, url):
            items = page.get_by_test_id("todo-item")
            await t.act(items.nth(1).dblclick())
            await t.act(items.nth(1).get_by_role("textbox", name="Edit").fill("buy some sausages"))
            await t.act(items.nth(1).get_by_role("textbox", name="Edit").dispatch_event("blur"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text([ITEMS[0], "buy some sausages", ITEMS[2]]))

            await t.act(items.nth(1).dblclick())
            await t.act(items.nth(1).get_by_role("textbox", name="Edit").fill("    trimmed    "))
            await t.act(items.nth(1).get_by_role("textbox", name="Edit").press("Enter"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text([ITEMS[0], "trimmed", ITEMS[2]]))

            await t.act(items.nth(1).dblclick())
            await t.act(items.nth(1).get_by_role("textbox", name="Edit").fill(""))
            await t.act(items.nth(1).get_by_role("textbox", name="Edit").press("Enter"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text([ITEMS[0], ITEMS[2]]))
        await self.with_app(t, body, adding=ITEMS)

    async def cancelEdit(self, t):
        async def body(page, url):
            second = page.get_by_test_id("todo-item").nth(1)
            await t.act(second.dblclick())
            await t.act(second.get_by_role("textbox", name="Edit").fill("buy some sausages"))
            await t.act(second.get_by_role("textbox", name="Edit").press("Escape"))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text(ITEMS))
        await self.with_app(t, body, adding=ITEMS)

    # Clear completed

    async def clearCompleted(self, t):
        async def body(page, url):
            clear = page.get_by_role("button", name="Clear completed")
            await t.expect(expect(clear).to_be_hidden())
            await t.act(page.get_by_test_id("todo-item").nth(1).get_by_role("checkbox").check())
            await t.expect(expect(clear).to_be_visible())
            await t.act(clear.click())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_count(2))
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text([ITEMS[0], ITEMS[2]]))
            await t.expect(expect(clear).to_be_hidden())
        await self.with_app(t, body, adding=ITEMS)

    # Persistence

    async def persistence(self, t):
        async def body(page, url):
            await t.act(page.get_by_test_id("todo-item").nth(0).get_by_role("checkbox").check())
            await t.act(page.reload())
            await t.expect(expect(page.get_by_test_id("todo-title")).to_have_text(ITEMS[0:2]))
            await t.expect(expect(page.get_by_test_id("todo-item").nth(0).get_by_role("checkbox")).to_be_checked())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_class(["completed", ""]))
        await self.with_app(t, body, adding=ITEMS[0:2])

    # Routing

    async def routing(self, t):
        async def body(page, url):
            await t.act(page.get_by_test_id("todo-item").nth(1).get_by_role("checkbox").check())
            await t.act(page.get_by_role("link", name="All").click())
            await t.expect(expect(page.get_by_role("link", name="All")).to_have_class("selected"))
            await t.act(page.get_by_role("link", name="Active").click())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_count(2))
            await t.expect(expect(page.get_by_role("link", name="Active")).to_have_class("selected"))
            await t.act(page.get_by_role("link", name="Completed").click())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_count(1))
            await t.expect(expect(page).to_have_url(url + "#/completed"))
            await t.act(page.go_back())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_count(2))
            await t.act(page.go_back())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_count(3))
            await t.act(page.go_forward())
            await t.expect(expect(page.get_by_test_id("todo-item")).to_have_count(2))
            await t.expect(expect(page).to_have_title("Todos"))
        await self.with_app(t, body, adding=ITEMS)


# In TodoAppTests.swift's order.
TESTS = ["addItems", "appendAndCount", "markAll", "completeAllFollows", "markItems", "editItem",
         "editingHidesControls", "saveTrimRemove", "cancelEdit", "clearCompleted", "persistence", "routing"]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--app", default=APP, help="TodoApp.swift, whose page literal is served")
    parser.add_argument("--workers", type=int, default=0, help="tests at once; 0: all of them")
    parser.add_argument("--filter", help="only the tests whose name contains this")
    args = parser.parse_args()
    page_html = swift_page(args.app)
    names = [n for n in TESTS if not args.filter or args.filter in n]
    workers = args.workers or len(names)

    results = {}
    async with async_playwright() as playwright:
        began = time.monotonic()
        browser = await playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        launched = time.monotonic()
        suite = Suite(browser, page_html)
        gate = asyncio.Semaphore(workers)

        async def run(name):
            async with gate:
                counts = Counts()
                start = time.monotonic()
                error = None
                try:
                    await getattr(suite, name)(counts)
                except Exception as failure:  # a failed test is reported, as Swift Testing does, and the rest go on
                    error = f"{type(failure).__name__}: {failure}"[:2000]
                results[name] = {"seconds": round(time.monotonic() - start, 4), "actions": counts.actions,
                                 "assertions": counts.assertions, "error": error}

        await asyncio.gather(*(run(name) for name in names))
        await browser.close()
        ended = time.monotonic()

    failed = sum(1 for r in results.values() if r["error"])
    for name, result in results.items():
        if result["error"]:
            print(f"playwright-todo: {name} failed: {result['error']}", file=sys.stderr)
    print(json.dumps({
        "engine": "playwright-chromium", "workers": workers, "tests": len(names), "failed": failed,
        "seconds": round(ended - began, 4), "launch_seconds": round(launched - began, 4),
        "process_seconds": round(time.monotonic() - PROCESS_START, 4),
        "actions": sum(r["actions"] for r in results.values()),
        "assertions": sum(r["assertions"] for r in results.values()),
        "per_test": {name: results[name] for name in names},
    }))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
