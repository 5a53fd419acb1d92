import Foundation
import NavWatchSupport

/// The script that resolves locators and acts on what they match, run in
/// navwatch's own script world, where the page cannot replace what it calls
/// (`querySelectorAll`, `MutationObserver`, `requestAnimationFrame`, ...).
///
/// `prelude` defines `engine` once per document (kept on the world's global
/// object) and every locator script begins with it. What the engine does
/// follows Playwright's rules, as its documentation gives them:
/// - CSS matches in the document and in every open shadow root below it;
///   descendant and child combinators cross shadow boundaries.
/// - Text is an element's text with whitespace collapsed, its shadow roots'
///   text included; a text locator matches the elements whose text matches
///   and none of whose children's does (the smallest such element).
///   Substring and case-insensitive unless exact.
/// - A role is an element's explicit `role` or its implicit ARIA role; the
///   name is its accessible name (`aria-labelledby`, `aria-label`, labels,
///   `alt`, `title`, and text content for roles named from content).
///   Elements hidden from assistive technology do not match.
/// - Visible: a non-empty bounding box and no `visibility: hidden`.
/// - Stable: the same bounding box in two consecutive animation frames.
/// - Receiving the pointer: the element (or a descendant, or the control of
///   the label hit) is what a pointer at the point hits.
enum LocatorEngine {
    static let prelude = """
        const engine = globalThis.navwatchLocatorEngine ??= (() => {
        \(source)
        })();
        """

    /// The engine's body: what finds elements, then what acts on them.
    private static let source = selectionSource + "\n" + actionSource
}
