#!/usr/bin/env python3
"""Prints Scripts/bench's table (Markdown) from the JSON files of one run.

Crawl throughput is pages per second from the first page's request to the
last page's end, for both engine-limit and navwatch (so neither pays for its
process start); CPU seconds and peak RSS cover the whole process tree, web and
network processes included, from start to exit. Each figure is the median of
the repeated runs; the ratio compares navwatch with the engine limit measured
in the same run.
"""
import argparse
import glob
import json
import os
import statistics
from datetime import datetime


def load(path):
    with open(path) as f:
        return json.load(f)


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def navwatch_crawl(*jsonl):
    """Pages loaded and pages/s from the reports of a crawl's workers."""
    starts, ends, loaded = [], [], 0
    for path in jsonl:
        with open(path) as f:
            for line in f:
                report = json.loads(line)
                if report.get("outcome") in ("skipped", "blocked") or not report.get("fetched_at"):
                    continue
                loaded += report["outcome"] == "ok"
                end = parse_time(report["fetched_at"])
                finish = (report.get("timings") or {}).get("finish") or 0
                starts.append(end - finish / 1000)
                ends.append(end)
    seconds = max(ends) - min(starts) if ends else 0
    return loaded, (loaded / seconds if seconds else 0)


def found(path):
    """The URLs a crawl loaded, and those of them that were broken (HTTP status 400 or more)."""
    loaded, broken = set(), set()
    with open(path) as f:
        for line in f:
            report = json.loads(line)
            if report.get("outcome") in ("skipped", "blocked"):
                continue
            loaded.add(report["url"])
            if report.get("outcome") == "http-error":
                broken.add(report["url"])
    return loaded, broken


def fast_table(r, sites):
    """`navwatch crawl --fast` at concurrency 2 against the engine limit and
    the default crawl of the same run, with what it found."""
    print("| navwatch crawl --fast, concurrency 2 | engine pages/s | default pages/s | --fast pages/s "
          "| --fast / engine | --fast CPU ms/page | same pages and broken links as the default crawl |")
    print("|---|---|---|---|---|---|---|")
    for prefix, site in sites:
        for path in sorted(glob.glob(f"{r}/{prefix}fast-c2-r*.jsonl")):
            run = path.rsplit("-r", 1)[1].split(".")[0]
            engine_path = f"{r}/{prefix}engine-c2-r{run}.json"
            default_path = f"{r}/{prefix}navwatch-c2-r{run}.jsonl"
            if not (os.path.exists(engine_path) and os.path.exists(default_path)):
                continue
            engine = load(engine_path)["pages_per_second"]
            pages, rate = navwatch_crawl(path)
            _, default_rate = navwatch_crawl(default_path)
            cpu = load(path.replace(".jsonl", ".tree.json"))["cpu_seconds"] / max(1, pages)
            (fast_pages, fast_broken), (pages_default, broken_default) = found(path), found(default_path)
            same = "yes" if (fast_pages, fast_broken) == (pages_default, broken_default) else (
                f"no: {len(fast_pages ^ pages_default)} pages and {len(fast_broken ^ broken_default)} broken links differ")
            print(f"| {site}, run {run} | {engine:.1f} | {default_rate:.1f} | {rate:.1f} | **{rate / engine:.2f}** "
                  f"| {cpu * 1000:.1f} | {same} ({len(fast_pages)} pages, {len(fast_broken)} broken) |")
    print()


def crawl_rows(r, prefix):
    """Per concurrency: engine-limit, navwatch and Playwright runs (pages/s,
    CPU s/page, peak RSS MB, pages), and navwatch's ratio to the engine per run."""
    rows = []
    for c in (1, 2, 4):
        engine, navwatch, playwright = [], [], []
        for name, runs in (("engine", engine), ("playwright", playwright)):
            for path in sorted(glob.glob(f"{r}/{prefix}{name}-c{c}-r*.json")):
                if path.endswith(".tree.json"):
                    continue
                run = load(path)
                tree = load(path.replace(".json", ".tree.json"))
                runs.append((run["pages_per_second"], tree["cpu_seconds"] / max(1, run["pages"]), tree["peak_rss_mb"],
                             run["pages"]))
        for path in sorted(glob.glob(f"{r}/{prefix}navwatch-c{c}-r*.jsonl")):
            pages, rate = navwatch_crawl(path)
            tree = load(path.replace(".jsonl", ".tree.json"))
            navwatch.append((rate, tree["cpu_seconds"] / max(1, pages), tree["peak_rss_mb"], pages))
        ratios = [n[0] / e[0] for n, e in zip(navwatch, engine) if e[0]]
        if engine and navwatch:
            rows.append((c, engine, navwatch, playwright, ratios))
    return rows


def growth(early, late):
    """How much memory grew from `early` to `late` MB, as text."""
    return f"{(late / early - 1) * 100:+.1f} %" if early and late else "n/a"


def median(runs, i):
    return statistics.median(x[i] for x in runs)


def crawl_table(r, prefix, site):
    """Prints the crawl table of one site; returns its rows."""
    rows = crawl_rows(r, prefix)
    if not rows:
        return rows
    print(f"Crawls of {site}:")
    print()
    print("| concurrency | engine pages/s | navwatch pages/s | ratio | Playwright pages/s | navwatch / Playwright "
          "| engine CPU ms/page | navwatch CPU ms/page | Playwright CPU ms/page | engine peak RSS MB "
          "| navwatch peak RSS MB | pages loaded (engine / navwatch / Playwright) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c, engine, navwatch, playwright, ratios in rows:
        peer = f"{median(playwright, 0):.1f}" if playwright else "–"
        versus = f"{median(navwatch, 0) / median(playwright, 0):.2f}" if playwright and median(playwright, 0) else "–"
        peer_cpu = f"{median(playwright, 1) * 1000:.1f}" if playwright else "–"
        peer_pages = str(min(x[3] for x in playwright)) if playwright else "–"
        print(f"| {c} | {median(engine, 0):.1f} | {median(navwatch, 0):.1f} | **{statistics.median(ratios):.2f}** "
              f"(runs: {', '.join(f'{x:.2f}' for x in ratios)}) | {peer} | {versus} | {median(engine, 1) * 1000:.1f} "
              f"| {median(navwatch, 1) * 1000:.1f} | {peer_cpu} | {median(engine, 2):.0f} | {median(navwatch, 2):.0f} "
              f"| {min(x[3] for x in engine)} / {min(x[3] for x in navwatch)} / {peer_pages} |")
    print()
    return rows


def proxied_requests(path):
    """How many requests of a crawl's loaded pages crossed the network (all
    but those WebKit served from its cache): what the guard carried."""
    total = 0
    with open(path) as f:
        for line in f:
            report = json.loads(line)
            if report.get("outcome") == "skipped":
                continue
            resources = report.get("resources") or {}
            total += resources.get("count", 0) - resources.get("from_cache", 0)
    return total


def breakdown_table(r, sites):
    """Where the CPU of a crawl at concurrency 2 goes, per page: the engine
    limit's and navwatch's processes, and navwatch's own process split into
    the private-address guard (its SwiftNIO event loops and resolver
    threads), the crawl store (counted by the store itself), WebKit's IPC
    thread, and the rest (events, page facts, links, the WebKit thread)."""
    rows = []
    for prefix, site in sites:
        for name in ("engine", "navwatch"):
            runs = []
            for path in sorted(glob.glob(f"{r}/{prefix}{name}-c2-r*.tree.json")):
                tree = load(path)
                if name == "engine":
                    pages = load(path.replace(".tree.json", ".json"))["pages"]
                else:
                    pages, _ = navwatch_crawl(path.replace(".tree.json", ".jsonl"))
                by_name = tree.get("cpu_by_name", {})
                threads = tree.get("cmd_threads", {})
                web = sum(v for k, v in by_name.items() if k.startswith("WebKitWebProce"))
                network = sum(v for k, v in by_name.items() if k.startswith("WebKitNetwork"))
                own = tree["cpu_seconds"] - web - network
                guard = sum(v for k, v in threads.items() if k.startswith("NIO-ELT") or k.startswith("TP-#"))
                ipc = threads.get("ReceiveQueue", 0)
                counters = path.replace(".tree.json", ".counters.json")
                store = (load(counters).get("store_cpu_seconds") or 0) if os.path.exists(counters) else 0
                row = [x * 1000 / max(1, pages) for x in (web, network, own, guard, store, ipc, own - guard - store - ipc)]
                if name == "navwatch":
                    # The guard's CPU per request it carried: every request but those served from WebKit's cache.
                    proxied = proxied_requests(path.replace(".tree.json", ".jsonl"))
                    row.append(guard * 1000 / proxied if proxied else 0)
                runs.append(row)
            if runs:
                rows.append((site, name, runs))
    if not rows:
        return
    print("CPU ms per page at concurrency 2 (medians), by process, and navwatch's own process split:")
    print()
    print("| site | crawler | web processes | network process | own process | of it: guard | store | WebKit IPC | the rest "
          "| guard CPU ms per request it carried |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for site, name, runs in rows:
        cells = [f"{statistics.median(run[i] for run in runs):.1f}" for i in range(7)]
        if name == "engine":
            cells[3:6] = ["–", "–", cells[5]]
            cells[6] = "–"
            cells.append("–")
        else:
            cells.append(f"{statistics.median(run[7] for run in runs):.2f}")
        print(f"| {site} | {name} | " + " | ".join(cells) + " |")
    print()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--loads", type=int, required=True)
    parser.add_argument("--rss-pages", type=int, default=20000)
    args = parser.parse_args()
    r = args.results

    rows = crawl_table(r, "", "the generated site")
    crawl_table(r, "docs-", "the real site (python3.11-doc)")
    fast_table(r, (("", "generated site"), ("docs-", "real site")))
    breakdown_table(r, (("", "generated site"), ("docs-", "real site")))

    # What an option costs (or saves) against the default crawl at concurrency 2,
    # whose runs alternate with these.
    plain = next((navwatch for c, _, navwatch, _, _ in rows if c == 2), [])
    variants = []
    for name, label in (("fast", "`--fast` (the fast profile)"), ("screenshots", "`--screenshots DIR` (a 1280x800 PNG per page)"),
                        ("no-sandbox", "`--no-sandbox` (web processes without bubblewrap)"),
                        ("allow-private", "`--allow-private` (no private-address guard)"),
                        ("no-sandbox-allow-private", "`--no-sandbox --allow-private` (neither: before issue 16)")):
        runs = []
        for path in sorted(glob.glob(f"{r}/{name}-c2-r*.jsonl")):
            pages, rate = navwatch_crawl(path)
            tree = load(path.replace(".jsonl", ".tree.json"))
            runs.append((rate, tree["cpu_seconds"] / max(1, pages)))
        if runs:
            variants.append((label, runs))
    if variants and plain:
        base_rate, base_cpu = statistics.median(x[0] for x in plain), statistics.median(x[1] for x in plain)
        print("| navwatch crawl, concurrency 2 | pages/s | CPU ms/page | the default against it: crawl time per page | CPU per page |")
        print("|---|---|---|---|---|")
        print(f"| default (sandbox and guard on) | {base_rate:.1f} | {base_cpu * 1000:.1f} | | |")
        for label, runs in variants:
            rate, cpu = statistics.median(x[0] for x in runs), statistics.median(x[1] for x in runs)
            print(f"| {label} | {rate:.1f} | {cpu * 1000:.1f} | {(1 / base_rate - 1 / rate) * 1000:+.1f} ms "
                  f"(pages/s ratio {base_rate / rate:.2f}) | {(base_cpu - cpu) * 1000:+.1f} ms |")
        print()

    print("| measurement | figure | target |")
    print("|---|---|---|")
    for subscriber, where in (("webkit", "on the WebKit actor"), ("global", "on the global executor")):
        path = f"{r}/bridge-{subscriber}.json"
        if os.path.exists(path):
            b = load(path)
            print(f"| bridge overhead, subscriber {where} ({b['events']} events) | p50 {b['p50_us']} µs, p99 {b['p99_us']} µs "
                  f"(bare thread hand-off of the same signals: p50 {b['thread_handoff_p50_us']} µs, p99 {b['thread_handoff_p99_us']} µs) | p99 < 200 µs |")
    for name, label in (("memory", "views replaced every 1000 pages, the crawler's default"),
                        ("memory-no-recycling", "views never replaced")):
        path = f"{r}/{name}.json"
        if os.path.exists(path):
            m = load(path)
            early, late = m["rss_mb"].get("500"), m["rss_mb"].get(str(args.loads))
            print(f"| RSS of the process tree after 500 / {args.loads} loads, {label} ({m['failed']} failed) "
                  f"| {early} MB / {late} MB ({growth(early, late)}) | within 15 % |")
    path = f"{r}/crawl-rss.json"
    if os.path.exists(path):
        m = load(path)
        early, late = m["checkpoints"].get("2000"), m["checkpoints"].get(str(args.rss_pages))
        print(f"| the navwatch process's own RSS after 2000 / {args.rss_pages} pages of one crawl (concurrency 2; "
              f"{m['loaded']} loaded; peak {m['peak_rss_mb']} MB) | {early} MB / {late} MB ({growth(early, late)}) | within 10 % |")
    for workers in (1, 2):
        files = sorted(glob.glob(f"{r}/postgres-w{workers}-*.jsonl"))
        if files:
            pages, rate = navwatch_crawl(*files)
            label = "one worker" if workers == 1 else "two workers"
            print(f"| PostgreSQL crawl store, {label} (`--concurrency 1` each) | {rate:.1f} pages/s ({pages} pages) | |")
    for name, label in (("sandbox", "sandboxed (the default)"), ("no-sandbox", "`--no-sandbox`")):
        path = f"{r}/first-finished-{name}.txt"
        if os.path.exists(path):
            times = [int(x) for x in open(path).read().split()]
            if times:
                print(f"| `navwatch URL`, {label}, process start to first `finished` (median of {len(times)}) "
                      f"| {statistics.median(times)} ms (runs: {', '.join(map(str, times))}) | < 1000 ms |")


if __name__ == "__main__":
    main()
