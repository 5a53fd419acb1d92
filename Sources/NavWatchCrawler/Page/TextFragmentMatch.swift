import Foundation
import NavWatch
import WebKitThread

/// Matches text directives against the text of a page as rendered, as the
/// URL Fragment Text Directives specification's "find a range from a text
/// directive" does:
/// - The page's text is that of its rendered text nodes in document order:
///   elements that are not rendered (`display: none`), `iframe`, `img`,
///   `meter`, `object`, `progress`, `style`, `script`, `video`, `audio`,
///   `select` and `textarea` are skipped; text that is not visible is
///   skipped, its element kept as a block boundary when it is one. Every
///   element whose display is `block`, `table`, `flow-root`, `grid`,
///   `flex` or `list-item` is a block boundary; a term never spans one.
/// - Matching ignores case and treats every run of white space as one space.
/// - The start (or the prefix, when there is one) begins at a word boundary;
///   the start ends at one unless a suffix follows it alone; the end begins
///   at one and ends at one unless a suffix follows; the suffix ends at one.
///   Word boundaries are the engine's (`Intl.Segmenter`), so `he's` and
///   `3.5` are each one word.
/// - A prefix and the start, and the start (or end) and a suffix, are
///   separated by white space, block boundaries and skipped content only.
///
/// Not matched: text inside shadow roots and frames.
enum TextFragmentMatch {
    /// Whether each of `directives` has a match in the page `view` shows, in
    /// order; nil when the page could not run the match within 10 seconds.
    /// It runs in navwatch's own script world: the page cannot change what
    /// the match calls.
    @WebKitActor
    static func find(_ directives: [TextDirective], in view: WebView) async -> [Bool]? {
        guard let argument = try? String(decoding: JSONEncoder().encode(directives), as: UTF8.self) else { return nil }
        let matches: [Bool]? = await PageFacts.readInOwnWorld("return \(script)(\(argument))", from: view,
                                                               timeout: .seconds(10))
        return matches?.count == directives.count ? matches : nil
    }

    /// A function of the directives (`TextDirective`'s JSON) that returns the
    /// JSON text of one boolean each.
    private static let script = """
        (directives => {
          const blocks = new Set(['block', 'table', 'flow-root', 'grid', 'flex', 'list-item']);
          const skipped = new Set(['iframe', 'img', 'meter', 'object', 'progress', 'style', 'script', 'video', 'audio',
                                   'select', 'textarea', 'noscript', 'template']);
          let raw = '';
          // "\\n" stands for a block boundary; the text's own white space becomes spaces.
          const walk = (element, visible) => {
            for (let node = element.firstChild; node; node = node.nextSibling) {
              if (node.nodeType === Node.TEXT_NODE) {
                if (visible) raw += node.data.replace(/\\s+/g, ' ');
              } else if (node.nodeType === Node.ELEMENT_NODE && !skipped.has(node.localName)) {
                const style = getComputedStyle(node);
                if (style.display === 'none') continue;
                const block = blocks.has(style.display.split(' ')[0]);
                if (block) raw += '\\n';
                walk(node, style.visibility === 'visible');
                if (block) raw += '\\n';
              }
            }
          };
          if (document.body) walk(document.body, getComputedStyle(document.body).visibility === 'visible');
          const text = raw.replace(/[ \\n]+/g, run => run.includes('\\n') ? '\\n' : ' ').toLowerCase();
          const boundaries = new Uint8Array(text.length + 1);
          boundaries[0] = boundaries[text.length] = 1;
          if (typeof Intl === 'object' && Intl.Segmenter) {
            for (const segment of new Intl.Segmenter(undefined, {granularity: 'word'}).segment(text)) {
              boundaries[segment.index] = boundaries[segment.index + segment.segment.length] = 1;
            }
          } else {
            const word = /[\\p{L}\\p{N}_]/u;
            for (let i = 1; i < text.length; i++) boundaries[i] = word.test(text[i - 1]) && word.test(text[i]) ? 0 : 1;
          }
          const term = value => value == null ? null : value.replace(/\\s+/g, ' ').toLowerCase();
          const gapEnd = i => { while (i < text.length && (text[i] === ' ' || text[i] === '\\n')) i++; return i; };
          const at = (value, i, endBounded) =>
            text.startsWith(value, i) && (!endBounded || boundaries[i + value.length] === 1);
          const find = (value, from, startBounded, endBounded) => {
            for (let i = text.indexOf(value, from); i >= 0; i = text.indexOf(value, i + 1)) {
              if ((!startBounded || boundaries[i] === 1) && (!endBounded || boundaries[i + value.length] === 1)) return i;
            }
            return -1;
          };
          const matches = directive => {
            const prefix = term(directive.prefix), start = term(directive.start);
            const end = term(directive.end), suffix = term(directive.suffix);
            const startEndBounded = end !== null || suffix === null;
            for (let from = 0; ;) {
              let position;
              if (prefix !== null) {
                const found = find(prefix, from, true, false);
                if (found < 0) return false;
                from = found + 1;
                position = gapEnd(found + prefix.length);
                if (!at(start, position, startEndBounded)) continue;
              } else {
                position = find(start, from, true, startEndBounded);
                if (position < 0) return false;
                from = position + 1;
              }
              const afterStart = position + start.length;
              if (end === null) {
                if (suffix === null || at(suffix, gapEnd(afterStart), true)) return true;
                continue;
              }
              for (let found = find(end, afterStart, true, suffix === null); ;
                   found = find(end, found + 1, true, suffix === null)) {
                if (found < 0) return false;
                if (suffix === null || at(suffix, gapEnd(found + end.length), true)) return true;
              }
            }
          };
          return JSON.stringify(directives.map(matches));
        })
        """
}
