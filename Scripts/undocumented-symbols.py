#!/usr/bin/env python3
"""Lists the public symbols of the given modules that have no doc comment.

    undocumented-symbols.py SCRATCH_PATH MODULE...

Reads the symbol graphs that `swift package generate-documentation` (the
swift-docc-plugin) extracted under SCRATCH_PATH, so run it after that, on the
same scratch path. Prints one line per undocumented symbol, sorted by file,

    Sources/NavWatch/Events/Navigation.swift:16: NavWatch Navigation.Origin (enumeration)

then one count per module on stderr, and exits 1 when any symbol is listed
(2 when a module's symbol graph is missing).

A symbol counts when it is public or open and written in the module's own
source. Extension blocks do not count (their members do), nor do symbols the
compiler adds, which have no source location: synthesized conformances
(Equatable's ==, Hashable's hashValue, Codable's init(from:), encode(to:)
and CodingKeys, RawRepresentable's init(rawValue:)) and members inherited
from protocol extensions. A symbol is documented when it has a doc comment:
its own, or the one the compiler gives a symbol without one from the
protocol requirement it implements or the declaration it overrides (a
hand-written ==, description or makeAsyncIterator(), a default
implementation of a documented requirement), which DocC shows for it, or
links to for another module's protocol ("Inherited from
Equatable.==(_:_:)"). An undocumented requirement of ours is listed where it
is declared.
"""
import glob
import json
import os
import sys
from urllib.parse import unquote, urlparse


def graph_files(scratch, module):
    """The newest extraction of `module`'s symbol graphs
    (SCRATCH/<triple>/extracted-symbols/<package>/<module>/, where SwiftPM
    puts what the plugin asks for): its own graph
    and one per other module whose types it extends (`Module@Other.symbols.json`)."""
    candidates = [path for levels in (["*"], ["*", "*"])  # <triple>/, or <triple>/<configuration>/
                  for path in glob.glob(os.path.join(glob.escape(scratch), *levels, "extracted-symbols", "*",
                                                     module, module + ".symbols.json"))]
    if not candidates:
        return []
    directory = os.path.dirname(max(candidates, key=os.path.getmtime))
    return [os.path.join(directory, module + ".symbols.json")] + sorted(
        glob.glob(os.path.join(glob.escape(directory), module + "@*.symbols.json")))


def doc_text(symbol):
    """The symbol's doc comment, its own or the one the compiler gave it from
    the requirement it implements or the declaration it overrides; empty when
    it has none."""
    doc = symbol.get("docComment") or {}
    return "".join(line.get("text", "") for line in doc.get("lines", [])).strip()


def main():
    if len(sys.argv) < 3:
        print("usage: " + __doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    scratch, modules = sys.argv[1], sys.argv[2:]
    root = os.getcwd()
    listed, counts = [], []
    for module in modules:
        files = graph_files(scratch, module)
        if not files:
            print(f"undocumented-symbols: no symbol graph of {module} under {scratch}; "
                  f"run swift package --scratch-path {scratch} generate-documentation --target {module} first",
                  file=sys.stderr)
            return 2
        seen, total, missing = set(), 0, 0
        for path in files:
            with open(path, encoding="utf-8") as file:
                graph = json.load(file)
            for symbol in graph["symbols"]:
                identifier = symbol["identifier"]["precise"]
                if (identifier in seen or symbol.get("accessLevel") not in ("public", "open")
                        or symbol["kind"]["identifier"] == "swift.extension"
                        or "location" not in symbol or "::SYNTHESIZED::" in identifier):
                    continue
                seen.add(identifier)
                total += 1
                if doc_text(symbol):
                    continue
                missing += 1
                location = symbol["location"]
                source = os.path.relpath(unquote(urlparse(location["uri"]).path), root)
                line = location["position"]["line"] + 1
                name = ".".join(symbol["pathComponents"])
                listed.append((source, line, f"{source}:{line}: {module} {name} ({symbol['kind']['displayName'].lower()})"))
        counts.append(f"{module}: {missing} of {total} public symbols undocumented")
    for _, _, text in sorted(listed):
        print(text)
    for count in counts:
        print(f"undocumented-symbols: {count}", file=sys.stderr)
    return 1 if listed else 0


if __name__ == "__main__":
    sys.exit(main())
