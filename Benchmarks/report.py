#!/usr/bin/env python3
"""Prints Scripts/bench's table (Markdown) from the JSON files of one run.

Crawl throughput is pages per second from the first page's request to the
last page's end, for both engine-limit and navwatch (so neither pays for its
process start); CPU seconds and peak RSS cover the whole process tree, web and
network processes included, from start to exit. Each figure is the median of
the repeated runs; the ratio compares navwatch with the engine limit measured
in the same run.

The link checking table sets lychee and wget --spider (as
Benchmarks/link-peers.sh runs them) beside navwatch crawl --render auto,
never and always on each site: wall time and CPU from start to exit, the
broken links and missing fragments each found. `--links-only` prints only
that table and the scripted site's (Benchmarks/link-check.sh).
"""
import argparse
import glob
import json
import os
import re
import statistics
from datetime import datetime
from urllib.parse import urlsplit


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
                if report.get("outcome") in ("skipped", "blocked") or not report.get("fetched_at") or report.get("resource"):
                    continue  # a resource a page embeds is checked, not loaded as a page
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
            if not report.get("resource"):  # a resource a page embeds is checked, not loaded as a page
                loaded.add(report["url"])
            if report.get("outcome") == "http-error":
                broken.add(report["url"])
    return loaded, broken


def render_table(r, sites):
    """`navwatch crawl --render auto` and `--render never` at concurrency 2
    against the engine limit and the default crawl (`--render always`) of the
    same run, with what they found."""
    rows = []
    for prefix, site in sites:
        for mode in ("auto", "never"):
            for path in sorted(glob.glob(f"{r}/{prefix}render-{mode}-c2-r*.jsonl")):
                run = path.rsplit("-r", 1)[1].split(".")[0]
                engine_path = f"{r}/{prefix}engine-c2-r{run}.json"
                default_path = f"{r}/{prefix}navwatch-c2-r{run}.jsonl"
                if not (os.path.exists(engine_path) and os.path.exists(default_path)):
                    continue
                engine = load(engine_path)["pages_per_second"]
                pages, rate = navwatch_crawl(path)
                _, default_rate = navwatch_crawl(default_path)
                cpu = load(path.replace(".jsonl", ".tree.json"))["cpu_seconds"] / max(1, pages)
                (mode_pages, mode_broken), (pages_default, broken_default) = found(path), found(default_path)
                same = "yes" if (mode_pages, mode_broken) == (pages_default, broken_default) else (
                    f"no: {len(mode_pages ^ pages_default)} pages and {len(mode_broken ^ broken_default)} broken links differ")
                rows.append(f"| {site}, run {run} | `--render {mode}` | {engine:.1f} | {default_rate:.1f} | {rate:.1f} "
                            f"| **{rate / engine:.2f}** | {cpu * 1000:.1f} | {same} ({len(mode_pages)} pages, {len(mode_broken)} broken) |")
    if not rows:
        return
    print("| navwatch crawl, concurrency 2 | mode | engine pages/s | default pages/s | pages/s "
          "| / engine | CPU ms/page | same pages and broken links as the default crawl |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
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


LINK_SITES = (("docs-", "real site (python3.11-doc)"), ("doxygen-", "Doxygen site (libsdl2-doc)"), ("", "generated site"),
              ("scripted-", "scripted site"))


def lychee_found(path):
    """Broken link targets (fragment stripped: an error status or no answer)
    and missing fragments (URL#id whose page answered but has no such id) in
    lychee's --format json report. A link met again is reported as
    'Error (cached)', without its reason: it takes its first report's."""
    report = load(path)
    errors = [e for key in ("error_map", "timeout_map") for found in (report.get(key) or {}).values() for e in found]
    fragments = {e["url"] for e in errors
                 if "fragment" in " ".join(str(v) for v in (e.get("status") or {}).values()).lower()}
    broken = {e["url"].split("#")[0] for e in errors if e["url"] not in fragments}
    return broken, fragments


def wget_found(path):
    """The HTML pages wget --spider read (URL ending in .html or /) and the
    broken links of its closing summary ("Found N broken links." and their URLs)."""
    pages, broken, summary = set(), set(), False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if summary:
                if line.startswith("FINISHED"):
                    break
                if line.strip():
                    broken.add(line.strip())
            elif re.match(r"Found (no|\d+) broken links?\.", line):
                summary = True
            else:
                m = re.search(r"URL:(\S+) \[\d+(/\d+)?\] -> ", line)
                if m and re.search(r"(\.html?|/)$", m.group(1).split("?")[0]):
                    pages.add(m.group(1))
    return pages, broken


def navwatch_link_found(path):
    """The pages a navwatch crawl loaded and its broken links: reports with
    outcome http-error, and any with status 404."""
    loaded, broken = found(path)
    with open(path) as f:
        for line in f:
            report = json.loads(line)
            if report.get("status") == 404 and report.get("outcome") not in ("skipped", "blocked"):
                broken.add(report["url"])
    return loaded, broken


def paths_of(urls, most=3):
    """A few URLs as paths, for a table cell."""
    shown = sorted(urlsplit(u).path + (f"#{urlsplit(u).fragment}" if urlsplit(u).fragment else "") for u in urls)
    return ", ".join(shown[:most]) + (", …" if len(shown) > most else "")


def count_cell(runs):
    """One figure per run, the same in every run shown once, with a few of the URLs."""
    counts = sorted({len(x) for x in runs})
    if not runs:
        return "n/a"
    text = " / ".join(str(c) for c in counts)
    return text + (f" ({paths_of(runs[0])})" if runs[0] and all(runs[0]) else "")


def navwatch_fragments(runs):
    """The missing fragments navwatch's closing summary counted (its standard
    error, kept beside the reports as .log), as count_cell takes them: one
    list per run (of unnamed entries); None when no summary was kept."""
    counts = []
    for path in runs:
        log = path.replace(".jsonl", ".log")
        found = re.search(r"missing fragments (\d+)", open(log).read()) if os.path.exists(log) else None
        if not found:
            return None
        counts.append([""] * int(found.group(1)))
    return counts


def link_table(r):
    """What each link checker found on each site, and what it cost: wall time
    and CPU of the whole process tree (proctree.py), start to exit, medians of
    the runs; pages it read; broken link targets and missing fragments (one
    figure per run when runs differ)."""
    rows = []
    for prefix, site in LINK_SITES:
        lychee, found_runs = [], []
        for path in sorted(glob.glob(f"{r}/{prefix}lychee-r*.json")):
            if not path.endswith(".tree.json"):
                try:
                    found_runs.append(lychee_found(path))
                    lychee.append(path)
                except (ValueError, KeyError, TypeError):
                    pass  # cut short: no report of that run
        if lychee:
            urls = f"{r}/{prefix}lychee-urls.txt"
            pages = sum(1 for line in open(urls) if line.strip()) if os.path.exists(urls) else "?"
            rows.append((site, "lychee (every page as input)", [p.replace(".json", ".tree.json") for p in lychee],
                         str(pages), [b for b, _ in found_runs], [f for _, f in found_runs]))
        wget = sorted(glob.glob(f"{r}/{prefix}wget-r*.log"))
        if wget:
            found_runs = [wget_found(p) for p in wget]
            rows.append((site, "wget --spider -r", [p.replace(".log", ".tree.json") for p in wget],
                         " / ".join(str(n) for n in sorted({len(p) for p, _ in found_runs})),
                         [b for _, b in found_runs], None))
        for name, label in (("render-auto", "navwatch --render auto"), ("render-never", "navwatch --render never"),
                            ("navwatch", "navwatch (full crawl, --render always)")):
            runs = sorted(glob.glob(f"{r}/{prefix}{name}-c2-r*.jsonl"))
            if runs:
                found_runs = [navwatch_link_found(p) for p in runs]
                rows.append((site, label, [p.replace(".jsonl", ".tree.json") for p in runs],
                             " / ".join(str(n) for n in sorted({len(p) for p, _ in found_runs})),
                             [b for _, b in found_runs], navwatch_fragments(runs)))
    if not rows:
        return
    print("Link checking (concurrency 2 for navwatch; lychee and wget as fast as the server answers):")
    print()
    print("| site | checker | wall s | CPU s | pages | broken links | missing fragments |")
    print("|---|---|---|---|---|---|---|")
    for site, label, trees, pages, broken, fragments in rows:
        trees = [load(t) for t in trees if os.path.exists(t)]
        wall = f"{statistics.median(t['wall_seconds'] for t in trees):.1f}" if trees else "?"
        cpu = f"{statistics.median(t['cpu_seconds'] for t in trees):.1f}" if trees else "?"
        print(f"| {site} | {label} | {wall} | {cpu} | {pages} | {count_cell(broken)} "
              f"| {count_cell(fragments) if fragments is not None else 'n/a'} |")
    print()


def render_reasons(path):
    """Pages of a crawl (skipped and blocked aside) by `rendered` and
    `render_reason`: {True: {reason: n}, False: {...}}. A full crawl's reports
    have neither field: rendered, reason 'always'."""
    counts = {True: {}, False: {}}
    with open(path) as f:
        for line in f:
            report = json.loads(line)
            if report.get("outcome") in ("skipped", "blocked") or report.get("resource"):
                continue
            rendered = report.get("rendered", True) is not False
            reason = report.get("render_reason") or ("always" if "rendered" not in report else "?")
            counts[rendered][reason] = counts[rendered].get(reason, 0) + 1
    return counts


def reasons_cell(reasons):
    total = sum(reasons.values())
    detail = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    return f"{total}" + (f" ({detail})" if detail else "")


def doxygen_table(r):
    """How `--render auto` read the Doxygen site: pages rendered and read
    from HTML, by why, and its pace against the full crawl's."""
    auto, full = f"{r}/doxygen-render-auto-c2-r1.jsonl", f"{r}/doxygen-navwatch-c2-r1.jsonl"
    if not (os.path.exists(auto) and os.path.exists(full)):
        return
    counts = render_reasons(auto)
    (_, auto_rate), (_, full_rate) = navwatch_crawl(auto), navwatch_crawl(full)
    print(f"Doxygen site, `--render auto`: pages rendered {reasons_cell(counts[True])}, "
          f"read from HTML {reasons_cell(counts[False])}; {auto_rate:.1f} pages/s against the full crawl's "
          f"{full_rate:.1f} ({auto_rate / max(full_rate, 0.001):.2f} times its pace).")
    print()


def scripted_table(r):
    """The scripted site (Benchmarks/generate-scripted-site.py): half its pages
    get links from a script. Per run and mode: wall time, pages/s, pages, the
    pages rendered and read from HTML by render_reason, and whether the broken
    links (outcome http-error) are those of the full crawl of the same run."""
    rows = []
    for path in sorted(glob.glob(f"{r}/scripted-*-c2-r*.jsonl")):
        name, run = os.path.basename(path)[len("scripted-"):].rsplit("-c2-r", 1)
        run = run.split(".")[0]
        mode = {"navwatch": "always", "render-auto": "auto", "render-never": "never"}.get(name)
        if mode is None:
            continue
        tree_path = path.replace(".jsonl", ".tree.json")
        wall = load(tree_path)["wall_seconds"] if os.path.exists(tree_path) else None
        _, rate = navwatch_crawl(path)
        reasons = render_reasons(path)
        pages, broken = found(path)
        full = f"{r}/scripted-navwatch-c2-r{run}.jsonl"
        if mode == "always":
            same = f"(the full crawl: {len(broken)}{': ' + paths_of(broken) if broken else ''})"
        elif os.path.exists(full):
            _, full_broken = found(full)
            same = "yes" if broken == full_broken else (
                f"no: {len(broken)} against {len(full_broken)}; missing {paths_of(full_broken - broken) or '–'}, "
                f"extra {paths_of(broken - full_broken) or '–'}")
        else:
            same = "? (no full crawl in this run)"
        order = ("always", "auto", "never").index(mode)
        rows.append(((run, order), f"| {run} | `--render {mode}` | {f'{wall:.1f}' if wall is not None else '?'} | {rate:.1f} | {len(pages)} "
                                   f"| {reasons_cell(reasons[True])} | {reasons_cell(reasons[False])} | {same} |"))
    if not rows:
        return
    print("The scripted site (even pages: a script adds 6 links, one of them broken; odd pages: a script that adds none), "
          "navwatch crawl at concurrency 2:")
    print()
    print("| run | mode | wall s | pages/s | pages | rendered (by render_reason) | read from HTML (by render_reason) "
          "| broken links the same as the full crawl's |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(row for _, row in sorted(rows)))
    print()


TODO_MODES = (("parallel", "all 12 at once (Swift Testing's default; `--workers 0`)"),
              ("serial", "one at a time (`swift test --no-parallel`; `--workers 1`)"))


def todo_runs(r, engine, mode):
    """The runs of the todo suite by `engine` (navwatch, playwright) in
    `mode`: (process wall s, suite s, CPU s of the process tree, the JSON,
    the run's number), passed runs only."""
    runs = []
    for path in sorted(glob.glob(f"{r}/todo-{engine}-{mode}-r*.json")):
        if path.endswith(".tree.json"):
            continue
        try:
            run = load(path)
        except ValueError:
            continue  # cut short
        tree_path = path.replace(".json", ".tree.json")
        tree = load(tree_path) if os.path.exists(tree_path) else {}
        if run.get("failed") or not run.get("seconds"):
            continue
        runs.append((tree.get("wall_seconds") or run.get("process_seconds"), run["seconds"], tree.get("cpu_seconds"), run,
                     path.rsplit("-r", 1)[1].split(".")[0]))
    return runs


def todo_table(r):
    """The todo app's end-to-end suite, navwatch (`swift test`) against
    Playwright (Benchmarks/playwright-todo.py), per mode: the whole
    process's wall time (start to exit: SwiftPM and the test binary, or
    Python, Playwright's driver and the browser, starting included), the
    suite's own time (Swift Testing's "Test run ... after S seconds";
    Playwright's browser launch to its close), ms per step (an action or a
    web-first assertion: the suite's time over the steps of all 12 tests, the
    same count on both sides) and CPU of the process tree. Medians of the
    runs, whose failed runs are left out; returns the parallel wall-time
    ratio for the targets table, or None."""
    rows, ratio = [], None
    steps = None
    for mode, label in TODO_MODES:
        navwatch, playwright = todo_runs(r, "navwatch", mode), todo_runs(r, "playwright", mode)
        if not navwatch:
            continue
        if playwright:
            steps = steps or playwright[0][3]["actions"] + playwright[0][3]["assertions"]
        n_wall, n_suite = (statistics.median(x[i] for x in navwatch) for i in (0, 1))
        n_cpu = [x[2] for x in navwatch if x[2] is not None]
        cells = [label, f"{n_wall:.2f}"]
        if playwright:
            p_wall, p_suite = (statistics.median(x[i] for x in playwright) for i in (0, 1))
            p_cpu = [x[2] for x in playwright if x[2] is not None]
            if mode == "parallel":
                ratio = n_wall / p_wall
            peer = {x[4]: x for x in playwright}
            cells += [f"{p_wall:.2f}", f"**{n_wall / p_wall:.2f}** (runs: "
                      + ", ".join(f"{n[0] / peer[n[4]][0]:.2f}" for n in navwatch if n[4] in peer) + ")",
                      f"{n_suite:.2f}", f"{p_suite:.2f}", f"{n_suite / p_suite:.2f}",
                      f"{n_suite * 1000 / steps:.0f}", f"{p_suite * 1000 / steps:.0f}",
                      f"{statistics.median(n_cpu):.1f}" if n_cpu else "?", f"{statistics.median(p_cpu):.1f}" if p_cpu else "?",
                      f"{len(navwatch)} / {len(playwright)}"]
        else:
            cells += ["–", "–", f"{n_suite:.2f}", "–", "–", "–", "–",
                      f"{statistics.median(n_cpu):.1f}" if n_cpu else "?", "–", f"{len(navwatch)} / 0"]
        rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return None
    counted = f", {steps} steps: actions and web-first assertions" if steps else ""
    print(f"The todo app's end-to-end suite (12 tests{counted}): navwatch as `swift test --filter TodoAppTests` runs it "
          "(debug build) against the same tests with Playwright for Python and Debian's Chromium "
          "(Benchmarks/playwright-todo.py), medians of the runs, interleaved:")
    print()
    print("| tests | navwatch wall s | Playwright wall s | navwatch / Playwright (wall) | navwatch suite s "
          "| Playwright suite s | navwatch / Playwright (suite) | navwatch ms per step | Playwright ms per step "
          "| navwatch CPU s | Playwright CPU s | passed runs (navwatch / Playwright) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    return ratio


def todo_trace_table(r):
    """What tracing every test of the todo suite costs (view.tracing, a
    screenshot after each step, Benchmarks/navwatch-todo.py --trace): the
    suite's own time traced against untraced, per mode, medians of the runs
    (which alternate); returns the one-at-a-time ratio for the targets table, or None."""
    rows, serial = [], None
    for mode, label in TODO_MODES:
        plain, traced = todo_runs(r, "navwatch", mode), todo_runs(r, "navwatch-traced", mode)
        bare = todo_runs(r, "navwatch-traced-noshots", mode)
        if not plain or not traced:
            continue
        p_suite, t_suite = (statistics.median(x[1] for x in runs) for runs in (plain, traced))
        b_suite = statistics.median(x[1] for x in bare) if bare else None
        if mode == "serial":
            serial = t_suite / p_suite
        bare_cells = f"{b_suite:.2f} | {b_suite / p_suite:.2f}" if b_suite else "– | –"
        rows.append(f"| {label} | {p_suite:.2f} | {t_suite:.2f} | {t_suite / p_suite:.2f} | {bare_cells} "
                    f"| {len(plain)} / {len(traced)} / {len(bare)} |")
    if not rows:
        return None
    print("What a trace of every test costs in the todo suite (`view.tracing`, a screenshot after each step), "
          "suite seconds, medians:")
    print()
    print("| tests | untraced s | traced s | traced / untraced | traced without screenshots s | its ratio "
          "| runs (untraced / traced / without screenshots) |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    return serial


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--pages", type=int)
    parser.add_argument("--loads", type=int)
    parser.add_argument("--rss-pages", type=int, default=20000)
    parser.add_argument("--links-only", action="store_true",
                        help="only the link checking and scripted site tables (Benchmarks/link-check.sh)")
    parser.add_argument("--todo-only", action="store_true", help="only the todo suite's table")
    args = parser.parse_args()
    r = args.results
    if args.links_only:
        link_table(r)
        doxygen_table(r)
        scripted_table(r)
        return
    if args.todo_only:
        todo_table(r)
        todo_trace_table(r)
        return
    if args.pages is None or args.loads is None:
        parser.error("--pages and --loads are required (but with --links-only or --todo-only)")

    rows = crawl_table(r, "", "the generated site")
    crawl_table(r, "docs-", "the real site (python3.11-doc)")
    render_table(r, (("", "generated site"), ("docs-", "real site")))
    link_table(r)
    doxygen_table(r)
    scripted_table(r)
    breakdown_table(r, (("", "generated site"), ("docs-", "real site")))
    todo_ratio = todo_table(r)
    trace_ratio = todo_trace_table(r)

    # What an option costs (or saves) against the default crawl at concurrency 2,
    # whose runs alternate with these.
    plain = next((navwatch for c, _, navwatch, _, _ in rows if c == 2), [])
    variants = []
    for name, label in (("render-auto", "`--render auto` (`--fast`: WebKit only for pages whose scripts may change links)"),
                        ("render-never", "`--render never` (every page read from its HTML, none rendered)"),
                        ("fast", "`--fast` (the fast profile, in results from before `--render`)"), ("screenshots", "`--screenshots DIR` (a 1280x800 PNG per page)"),
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
    if todo_ratio is not None:
        print(f"| the todo suite's wall time (`swift test`, all tests at once), navwatch / Playwright | {todo_ratio:.2f} | ≤ 1.00 |")
    if trace_ratio is not None:
        print(f"| the todo suite traced (one test at a time), suite time traced / untraced | {trace_ratio:.2f} | ≤ 1.20 |")
    path = f"{r}/routes.json"
    if os.path.exists(path):
        rt = load(path)
        server, fulfilled, continued = (float(rt[k]) for k in ("server_ms", "fulfilled_ms", "continued_ms"))
        print(f"| a page of {rt['requests_per_load']} requests in a test view, every request fulfilled by a route "
              f"(`navwatch-bench routes`, medians of {rt['loads']} loads): load time routed / from its server "
              f"| {fulfilled:.1f} / {server:.1f} ms = {fulfilled / server:.2f} | ≤ 1.05 |")
        print(f"| the same page, every request continued to its server by a route: load time / from its server "
              f"| {continued:.1f} / {server:.1f} ms = {continued / server:.2f} | |")
    for subscriber, where in (("callback", "a closure subscribed on the WebKit actor (`subscribe(onNext:)`)"),
                              ("webkit", "a `for await` loop on the WebKit actor"),
                              ("global", "a `for await` loop on the global executor")):
        path = f"{r}/bridge-{subscriber}.json"
        if os.path.exists(path):
            b = load(path)
            p50 = float(b['p50_us']) / max(float(b['thread_handoff_p50_us']), 0.1)
            p99 = float(b['p99_us']) / max(float(b['thread_handoff_p99_us']), 0.1)
            p99_target = "1.5x" if subscriber == "global" else "1.0x"
            print(f"| bridge overhead, subscriber {where} ({b['events']} events) | p50 {b['p50_us']} µs, p99 {b['p99_us']} µs "
                  f"(bare thread hand-off of the same signals: p50 {b['thread_handoff_p50_us']} µs, p99 {b['thread_handoff_p99_us']} µs): "
                  f"{p50:.1f}x / {p99:.1f}x | p50 ≤ 1.5x, p99 ≤ {p99_target} the hand-off |")
    for name, label in (("memory", "views replaced every 1000 pages, the crawler's default"),
                        ("memory-no-recycling", "views never replaced")):
        path = f"{r}/{name}.json"
        if os.path.exists(path):
            m = load(path)
            early, late = m["rss_mb"].get("500"), m["rss_mb"].get(str(args.loads))
            print(f"| RSS of the process tree after 500 / {args.loads} loads, {label} ({m['failed']} failed) "
                  f"| {early} MB / {late} MB ({growth(early, late)}) | within 15 % |")
    for name, label in (("crawl-rss", "one crawl"), ("crawl-rss-render-auto", "one crawl with `--render auto`")):
        path = f"{r}/{name}.json"
        if os.path.exists(path):
            m = load(path)
            early, late = m["checkpoints"].get("2000"), m["checkpoints"].get(str(args.rss_pages))
            print(f"| the navwatch process's own RSS after 2000 / {args.rss_pages} pages of {label} (concurrency 2; "
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
