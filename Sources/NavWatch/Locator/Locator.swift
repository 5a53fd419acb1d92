import Foundation
import NavWatchSupport
import WebKitThread

/// A way to find elements of a view's page, as Playwright's `Locator` is: a
/// value that describes what to find, resolved anew every time it is used,
/// so it never holds on to an element that has since been replaced.
///
/// Make one from a view (`view.locator("#list li")`, `view.getByRole("button",
/// name: "Save")`) and narrow it (`.nth(1)`, `.filter(hasText: "milk")`,
/// `.getByRole("checkbox")`). Actions (`click()`, `fill(_:)`, ...) wait until
/// the one element it matches can take them; queries (`count()`,
/// `textContent()`, ...) read what it matches now. Matching follows
/// Playwright's rules: CSS reaches into open shadow roots; text matching
/// collapses whitespace and, unless `exact`, is a case-insensitive substring
/// match.
///
/// Locators are made and used on the WebKit actor, like their view. Every
/// script a locator runs lives in navwatch's own script world, so a page
/// that replaces `document.querySelector` or `Element.prototype.click`
/// changes nothing.
public struct Locator: Sendable, CustomStringConvertible {
    /// One narrowing step, as the engine reads it.
    enum Step: Sendable, Encodable, Equatable {
        case css(String)
        case text(String, exact: Bool)
        case role(String, name: String?, exact: Bool)
        case label(String, exact: Bool)
        case placeholder(String, exact: Bool)
        case testID(String)
        case nth(Int)
        case hasText(String)

        private enum Key: String, CodingKey { case kind, selector, text, exact, role, name, id, index }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            switch self {
            case .css(let selector):
                try container.encode("css", forKey: .kind)
                try container.encode(selector, forKey: .selector)
            case .text(let text, let exact), .label(let text, let exact), .placeholder(let text, let exact):
                let kind = switch self { case .text: "text"; case .label: "label"; default: "placeholder" }
                try container.encode(kind, forKey: .kind)
                try container.encode(text, forKey: .text)
                try container.encode(exact, forKey: .exact)
            case .role(let role, let name, let exact):
                try container.encode("role", forKey: .kind)
                try container.encode(role, forKey: .role)
                try container.encodeIfPresent(name, forKey: .name)
                try container.encode(exact, forKey: .exact)
            case .testID(let id):
                try container.encode("testId", forKey: .kind)
                try container.encode(id, forKey: .id)
            case .nth(let index):
                try container.encode("nth", forKey: .kind)
                try container.encode(index, forKey: .index)
            case .hasText(let text):
                try container.encode("hasText", forKey: .kind)
                try container.encode(text, forKey: .text)
            }
        }

        /// The step as Playwright's documentation writes it.
        var description: String {
            func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }
            func exactly(_ exact: Bool) -> String { exact ? ", { exact: true }" : "" }
            switch self {
            case .css(let selector): return "locator(\(quoted(selector)))"
            case .text(let text, let exact): return "getByText(\(quoted(text))\(exactly(exact)))"
            case .role(let role, let name, let exact):
                guard let name else { return "getByRole(\(quoted(role)))" }
                return "getByRole(\(quoted(role)), { name: \(quoted(name))\(exact ? ", exact: true" : "") })"
            case .label(let text, let exact): return "getByLabel(\(quoted(text))\(exactly(exact)))"
            case .placeholder(let text, let exact): return "getByPlaceholder(\(quoted(text))\(exactly(exact)))"
            case .testID(let id): return "getByTestId(\(quoted(id)))"
            case .nth(0): return "first()"
            case .nth(-1): return "last()"
            case .nth(let index): return "nth(\(index))"
            case .hasText(let text): return "filter({ hasText: \(quoted(text)) })"
            }
        }
    }

    /// The view whose page this locator searches.
    public let view: WebView
    let steps: [Step]

    init(view: WebView, steps: [Step]) {
        self.view = view
        self.steps = steps
    }

    /// The locator as Playwright writes it: `getByTestId('todo-item').nth(1)`.
    public var description: String {
        steps.map(\.description).joined(separator: ".")
    }

    private func adding(_ step: Step) -> Locator {
        Locator(view: view, steps: steps + [step])
    }

    // MARK: Narrowing

    /// The elements matching the CSS `selector` inside what this locator
    /// matches (open shadow roots included).
    public func locator(_ selector: String) -> Locator { adding(.css(selector)) }

    /// The elements inside what this locator matches whose text contains
    /// `text` (or equals it, with `exact`); see `WebView.getByText(_:exact:)`.
    public func getByText(_ text: String, exact: Bool = false) -> Locator { adding(.text(text, exact: exact)) }

    /// The elements inside what this locator matches with ARIA role `role`
    /// and, when given, an accessible name containing `name` (or equal to
    /// it, with `exact`); see `WebView.getByRole(_:name:exact:)`.
    public func getByRole(_ role: String, name: String? = nil, exact: Bool = false) -> Locator {
        adding(.role(role, name: name, exact: exact))
    }

    /// The form controls inside what this locator matches labelled `text`
    /// (by a `label`, `aria-labelledby` or `aria-label`).
    public func getByLabel(_ text: String, exact: Bool = false) -> Locator { adding(.label(text, exact: exact)) }

    /// The elements inside what this locator matches with placeholder `text`.
    public func getByPlaceholder(_ text: String, exact: Bool = false) -> Locator {
        adding(.placeholder(text, exact: exact))
    }

    /// The elements inside what this locator matches whose test id
    /// attribute (`WebView.testIdAttribute`, `data-testid` by default) is `id`.
    public func getByTestId(_ id: String) -> Locator { adding(.testID(id)) }

    /// The element at `index` (from 0; negative counts from the end) of
    /// those this locator matches; nothing when there are not that many.
    public func nth(_ index: Int) -> Locator { adding(.nth(index)) }

    /// The first element this locator matches.
    public var first: Locator { adding(.nth(0)) }

    /// The last element this locator matches.
    public var last: Locator { adding(.nth(-1)) }

    /// The elements this locator matches whose text contains `hasText`
    /// (case-insensitive, whitespace collapsed), somewhere inside them.
    public func filter(hasText: String) -> Locator { adding(.hasText(hasText)) }

    /// The steps as the engine's JSON.
    var stepsJSON: String {
        (try? String(decoding: JSONEncoder().encode(steps), as: UTF8.self)) ?? "[]"
    }
}

@WebKitActor
extension WebView {
    // MARK: Locators

    /// The elements matching the CSS `selector`, in the document and in
    /// every open shadow root, in tree order.
    public nonisolated func locator(_ selector: String) -> Locator { Locator(view: self, steps: [.css(selector)]) }

    /// The elements whose text (whitespace collapsed, shadow roots
    /// included) contains `text`, case-insensitively, or equals it with
    /// `exact`, and none of whose children's text does: the smallest
    /// elements holding the text, even when it is split across elements.
    public nonisolated func getByText(_ text: String, exact: Bool = false) -> Locator {
        Locator(view: self, steps: [.text(text, exact: exact)])
    }

    /// The elements with ARIA role `role` (explicit, or implicit as the
    /// HTML-AAM gives it: `button`, `link`, `checkbox`, `textbox`,
    /// `heading`, `listitem`, ...) that assistive technology would see and,
    /// when `name` is given, whose accessible name contains it
    /// (case-insensitive; equals it with `exact`).
    ///
    /// An unknown role is an error when the locator is used
    /// (`InteractionError.unknownRole`).
    public nonisolated func getByRole(_ role: String, name: String? = nil, exact: Bool = false) -> Locator {
        Locator(view: self, steps: [.role(role, name: name, exact: exact)])
    }

    /// The form controls whose `label`, `aria-labelledby` or `aria-label`
    /// text contains `text` (equals it with `exact`).
    public nonisolated func getByLabel(_ text: String, exact: Bool = false) -> Locator {
        Locator(view: self, steps: [.label(text, exact: exact)])
    }

    /// The elements whose `placeholder` contains `text` (equals it with `exact`).
    public nonisolated func getByPlaceholder(_ text: String, exact: Bool = false) -> Locator {
        Locator(view: self, steps: [.placeholder(text, exact: exact)])
    }

    /// The elements whose test id attribute (`testIdAttribute`) is `id`.
    public nonisolated func getByTestId(_ id: String) -> Locator { Locator(view: self, steps: [.testID(id)]) }
}
