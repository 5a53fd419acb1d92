import Foundation
import LoopbackServer
import NavWatchTesting
import Testing

/// A view with `path` of `LocatorPages` loaded.
@WebKitActor
func open(_ path: String, configuration: WebViewConfiguration = .testing) async throws -> WebView {
    let server = try await LocatorPages.server.value
    let view = try WebView(configuration: configuration)
    guard case .finished = try await view.goto(server.url(path)) else {
        view.close()
        throw InteractionError.noMatch(selector: "the page \(path) did not load")
    }
    return view
}

@Suite("Locators: every kind, chained and narrowed, in the document and in shadow roots")
@WebKitActor
struct LocatorTests {
    @Test("CSS, test ids, nth, first, last, filter and chaining")
    func cssAndNarrowing() async throws {
        let view = try await open("/locators")
        defer { view.close() }
        let items = view.getByTestId("item")
        #expect(try await view.locator("#list li").count() == 3)
        #expect(try await items.allTextContents() == ["Milk Remove", "Bread Remove", "Eggs Remove"])
        #expect(try await items.nth(1).getAttribute("class") == "done")
        #expect(try await items.first.innerText() == "Milk Remove")
        #expect(try await items.last.textContent() == "Eggs Remove")
        #expect(try await items.nth(-2).textContent() == "Bread Remove")
        #expect(try await items.filter(hasText: "bread").getByRole("button").count() == 1)
        #expect(try await view.locator("#list").locator("li").nth(2).textContent() == "Eggs Remove")
        #expect(try await items.nth(5).count() == 0)
        #expect(items.nth(1).getByRole("button", name: "Remove").description
                == "getByTestId('item').nth(1).getByRole('button', { name: 'Remove' })")
        view.testIdAttribute = "data-test"
        #expect(try await view.getByTestId("finder").getAttribute("id") == "search")
    }

    @Test("text: whitespace collapsed, split across elements, substring and case-insensitive unless exact")
    func text() async throws {
        let view = try await open("/locators")
        defer { view.close() }
        #expect(try await view.getByText("Hello big world").getAttribute("id") == "split")
        #expect(try await view.getByText("hello BIG").getAttribute("id") == "split")
        #expect(try await view.getByText("hello big world", exact: true).count() == 0)
        #expect(try await view.getByText("Hello big world", exact: true).count() == 1)
        // The smallest element: the button, not its list item.
        #expect(try await view.getByText("Remove").count() == 3)
        #expect(try await view.getByText("Remove").first.textContent() == "Remove")
    }

    @Test("roles and accessible names, labels and placeholders")
    func rolesAndLabels() async throws {
        let view = try await open("/locators")
        defer { view.close() }
        #expect(try await view.getByRole("listitem").count() == 3)
        #expect(try await view.getByRole("button", name: "Remove").count() == 3)
        #expect(try await view.getByRole("button", name: "remove", exact: true).count() == 0)
        #expect(try await view.getByRole("heading", name: "Shopping list").count() == 1)
        #expect(try await view.getByRole("checkbox", name: "I agree").getAttribute("id") == "agree")
        #expect(try await view.getByRole("textbox", name: "Your name").getAttribute("id") == "name")
        #expect(try await view.getByRole("textbox", name: "Search terms").getAttribute("id") == "search")
        #expect(try await view.getByRole("link", name: "Back to top").getAttribute("href") == "#top")
        // Hidden from assistive technology: not a button by role, still an element by CSS.
        #expect(try await view.getByRole("button", name: "Hidden button").count() == 0)
        #expect(try await view.getByLabel("Your name").getAttribute("id") == "name")
        #expect(try await view.getByLabel("Search terms").getAttribute("id") == "search")
        #expect(try await view.getByLabel("I agree").getAttribute("id") == "agree")
        #expect(try await view.getByPlaceholder("ada").getAttribute("id") == "name")
        #expect(try await view.getByPlaceholder("ada", exact: true).count() == 0)
    }

    @Test("an open shadow root two levels deep: CSS, text, role and test id reach into it")
    func shadowRoots() async throws {
        let view = try await open("/locators")
        defer { view.close() }
        #expect(try await view.locator("button.deep").textContent() == "Deep button")
        #expect(try await view.locator("my-card").locator(".deep").count() == 1)
        // Descendant and child combinators cross shadow boundaries, as Playwright's css engine's do.
        #expect(try await view.locator("my-card .card-title").textContent() == "Card")
        #expect(try await view.locator("#card my-inner > span").textContent() == "Two levels down")
        #expect(try await view.locator("body > my-card .deep, #list > li.done").allTextContents() == ["Bread Remove", "Deep button"])
        #expect(try await view.locator("#list my-inner").count() == 0)
        #expect(try await view.locator(".card-title").textContent() == "Card")
        #expect(try await view.getByTestId("deep").textContent() == "Two levels down")
        #expect(try await view.getByText("Two levels down").count() == 1)
        // Slotted text reads where the slot shows it.
        #expect(try await view.getByText("Hello, World!", exact: true).getAttribute("class") == "greeting")
        #expect(try await view.getByRole("button", name: "Deep button").count() == 1)
        try await view.getByPlaceholder("Deep field").fill("typed in a shadow root")
        #expect(try await view.getByPlaceholder("Deep field").inputValue() == "typed in a shadow root")
        try await view.getByPlaceholder("Deep field").press("Backspace")
        #expect(try await view.locator(".deep-field").inputValue() == "typed in a shadow roo")
        try await view.getByRole("button", name: "Deep button").click()
        #expect(try await view.evaluateJavaScript("window.clicks", as: [String].self) == ["deep"])
    }

    @Test("bad input: an invalid selector, an unknown role, an unknown key; each one line naming it")
    func badInput() async throws {
        let view = try await open("/locators")
        defer { view.close() }
        await #expect(throws: InteractionError.unknownRole("buton")) { try await view.getByRole("buton").count() }
        await #expect(throws: InteractionError.unknownKey("Contrl+A")) { try await view.locator("#name").press("Contrl+A") }
        let invalid = await #expect(throws: InteractionError.self) { try await view.locator("li[").count() }
        guard case .invalidSelector(let selector, _)? = invalid else { Issue.record("\(String(describing: invalid))"); return }
        #expect(selector == "locator('li[')")
        #expect(invalid.map { !$0.description.contains("\n") } == true)
        await #expect(throws: InteractionError.strictModeViolation(locator: "getByRole('button', { name: 'Remove' })", count: 3)) {
            try await view.getByRole("button", name: "Remove").click()
        }
        #expect(InteractionError.strictModeViolation(locator: "getByRole('button')", count: 3).description
                == "strict mode violation: getByRole('button') matches 3 elements, and the action needs one")
    }

    @Test("a page that replaces querySelector, click, MutationObserver, getBoundingClientRect and requestAnimationFrame changes nothing")
    func hostilePage() async throws {
        let view = try await open("/hostile")
        defer { view.close() }
        #expect(try await view.locator("#target").count() == 1)
        #expect(try await view.getByRole("button", name: "Press").isVisible())
        try await view.getByRole("button", name: "Press").click()
        #expect(try await view.evaluateJavaScript("window.log", as: [String].self) == ["clicked true"])
    }
}
