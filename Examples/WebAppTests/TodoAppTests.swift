import Foundation
import LoopbackServer
import NavWatchTesting
import Testing

/// `TodoApp`, end to end, as Playwright's example suite tests its todo app:
/// locators, actions that wait, and assertions that retry; each test runs
/// on the app built with plain DOM and on the one built of web components
/// with shadow roots (`ShadowTodoApp`). Each test has its own server, so
/// its own origin and its own `localStorage`.
@Suite("The todo app, end to end")
@WebKitActor
struct TodoAppTests {
    static let items = ["buy some cheese", "feed the cat", "book a doctors appointment"]

    /// A fresh view showing a fresh app, closed and stopped by `body`'s end.
    /// With `NAVWATCH_TODO_TRACE` set to a directory (Scripts/bench's traced
    /// runs), each test is traced and its trace written there, without
    /// screenshots when `NAVWATCH_TODO_TRACE_SCREENSHOTS` is `0`.
    func withApp(_ build: TodoApp.Build, adding todos: [String] = [], _ body: (WebView, URL) async throws -> Void) async throws {
        let server = try await TodoApp.start(build)
        let view = try WebView(configuration: .testing)
        defer {
            view.close()
            Task { await server.shutdown() }
        }
        let traces = ProcessInfo.processInfo.environment["NAVWATCH_TODO_TRACE"].map { URL(fileURLWithPath: $0) }
        if traces != nil {
            let screenshots = ProcessInfo.processInfo.environment["NAVWATCH_TODO_TRACE_SCREENSHOTS"] != "0"
            view.tracing.start(title: Test.current?.displayName ?? "todo", screenshots: screenshots)
        }
        try await view.goto(server.url("/"))
        for todo in todos {
            try await view.getByPlaceholder("What needs to be done?").fill(todo)
            try await view.getByPlaceholder("What needs to be done?").press("Enter")
        }
        try await body(view, server.url("/"))
        if let traces { try await view.tracing.stop(writingTo: traces.appendingPathComponent("\(UUID().uuidString).html")) }
    }

    func storedTodos(_ view: WebView) async throws -> [[String: JavaScriptValue]] {
        let value = try await view.evaluateJavaScript("JSON.parse(localStorage.getItem('navwatch-todos') || '[]')")
        guard case .array(let todos) = value else { return [] }
        return todos.compactMap { if case .object(let fields) = $0 { fields } else { nil } }
    }

    // MARK: New todo

    @Test("adding items shows them in order and clears the field", arguments: TodoApp.Build.tested)
    func addItems(_ build: TodoApp.Build) async throws {
        try await withApp(build) { view, _ in
            let newTodo = view.getByPlaceholder("What needs to be done?")
            try await newTodo.fill(Self.items[0])
            try await newTodo.press("Enter")
            try await expect(view.getByTestId("todo-title")).toHaveText([Self.items[0]])
            try await expect(newTodo).toBeEmpty()
            try await newTodo.fill(Self.items[1])
            try await newTodo.press("Enter")
            try await expect(view.getByTestId("todo-title")).toHaveText(Array(Self.items[0...1]))
            #expect(try await storedTodos(view).count == 2)
        }
    }

    @Test("new items go to the bottom of the list, and the counter counts them", arguments: TodoApp.Build.tested)
    func appendAndCount(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            try await expect(view.getByTestId("todo-count")).toHaveText("3 items left")
            try await expect(view.getByTestId("todo-count")).toContainText("3")
            try await expect(view.getByTestId("todo-title")).toHaveText(Self.items)
        }
    }

    // MARK: Mark all as completed

    @Test("mark all as complete, then clear the complete state of all", arguments: TodoApp.Build.tested)
    func markAll(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            try await view.getByLabel("Mark all as complete").check()
            try await expect(view.getByTestId("todo-item")).toHaveClass(["completed", "completed", "completed"])
            try await view.getByLabel("Mark all as complete").uncheck()
            try await expect(view.getByTestId("todo-item")).toHaveClass(["", "", ""])
        }
    }

    @Test("the complete-all checkbox follows the items", arguments: TodoApp.Build.tested)
    func completeAllFollows(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            let toggleAll = view.getByLabel("Mark all as complete")
            try await toggleAll.check()
            try await expect(toggleAll).toBeChecked()
            let first = view.getByTestId("todo-item").nth(0)
            try await first.getByRole("checkbox").uncheck()
            try await expect(toggleAll).not.toBeChecked()
            try await first.getByRole("checkbox").check()
            try await expect(toggleAll).toBeChecked()
        }
    }

    // MARK: Items

    @Test("items can be marked complete and un-marked", arguments: TodoApp.Build.tested)
    func markItems(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Array(Self.items[0...1])) { view, _ in
            let first = view.getByTestId("todo-item").nth(0), second = view.getByTestId("todo-item").nth(1)
            try await first.getByRole("checkbox").check()
            try await expect(first).toHaveClass("completed")
            try await second.getByRole("checkbox").check()
            try await expect(second).toHaveClass("completed")
            try await first.getByRole("checkbox").uncheck()
            try await expect(first).not.toHaveClass("completed")
            try await expect(second).toHaveClass("completed")
        }
    }

    @Test("an item is edited by double-clicking it", arguments: TodoApp.Build.tested)
    func editItem(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            let second = view.getByTestId("todo-item").nth(1)
            try await second.dblclick()
            try await second.getByRole("textbox", name: "Edit").fill("buy some sausages")
            try await second.getByRole("textbox", name: "Edit").press("Enter")
            try await expect(view.getByTestId("todo-title")).toHaveText([Self.items[0], "buy some sausages", Self.items[2]])
        }
    }

    // MARK: Editing

    @Test("editing hides the item's other controls", arguments: TodoApp.Build.tested)
    func editingHidesControls(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            let item = view.getByTestId("todo-item").nth(1)
            try await item.dblclick()
            try await expect(item.getByRole("checkbox")).not.toBeVisible()
            try await expect(item.locator("label")).not.toBeVisible()
        }
    }

    @Test("edits are saved on blur, trimmed, and an empty title removes the item", arguments: TodoApp.Build.tested)
    func saveTrimRemove(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            let items = view.getByTestId("todo-item")
            try await items.nth(1).dblclick()
            try await items.nth(1).getByRole("textbox", name: "Edit").fill("buy some sausages")
            try await items.nth(1).getByRole("textbox", name: "Edit").dispatchEvent("blur")
            try await expect(view.getByTestId("todo-title")).toHaveText([Self.items[0], "buy some sausages", Self.items[2]])

            try await items.nth(1).dblclick()
            try await items.nth(1).getByRole("textbox", name: "Edit").fill("    trimmed    ")
            try await items.nth(1).getByRole("textbox", name: "Edit").press("Enter")
            try await expect(view.getByTestId("todo-title")).toHaveText([Self.items[0], "trimmed", Self.items[2]])

            try await items.nth(1).dblclick()
            try await items.nth(1).getByRole("textbox", name: "Edit").fill("")
            try await items.nth(1).getByRole("textbox", name: "Edit").press("Enter")
            try await expect(view.getByTestId("todo-title")).toHaveText([Self.items[0], Self.items[2]])
        }
    }

    @Test("Escape cancels an edit", arguments: TodoApp.Build.tested)
    func cancelEdit(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            let second = view.getByTestId("todo-item").nth(1)
            try await second.dblclick()
            try await second.getByRole("textbox", name: "Edit").fill("buy some sausages")
            try await second.getByRole("textbox", name: "Edit").press("Escape")
            try await expect(view.getByTestId("todo-title")).toHaveText(Self.items)
        }
    }

    // MARK: Clear completed

    @Test("Clear completed removes the completed items, and hides when none is left", arguments: TodoApp.Build.tested)
    func clearCompleted(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, _ in
            let clear = view.getByRole("button", name: "Clear completed")
            try await expect(clear).toBeHidden()
            try await view.getByTestId("todo-item").nth(1).getByRole("checkbox").check()
            try await expect(clear).toBeVisible()
            try await clear.click()
            try await expect(view.getByTestId("todo-item")).toHaveCount(2)
            try await expect(view.getByTestId("todo-title")).toHaveText([Self.items[0], Self.items[2]])
            try await expect(clear).toBeHidden()
        }
    }

    // MARK: Persistence

    @Test("the list survives a reload", arguments: TodoApp.Build.tested)
    func persistence(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Array(Self.items[0...1])) { view, _ in
            try await view.getByTestId("todo-item").nth(0).getByRole("checkbox").check()
            try await view.reload()
            try await expect(view.getByTestId("todo-title")).toHaveText(Array(Self.items[0...1]))
            try await expect(view.getByTestId("todo-item").nth(0).getByRole("checkbox")).toBeChecked()
            try await expect(view.getByTestId("todo-item")).toHaveClass(["completed", ""])
        }
    }

    // MARK: Routing

    @Test("filters show active, completed and all items, and the back button goes back through them", arguments: TodoApp.Build.tested)
    func routing(_ build: TodoApp.Build) async throws {
        try await withApp(build, adding: Self.items) { view, url in
            try await view.getByTestId("todo-item").nth(1).getByRole("checkbox").check()
            try await view.getByRole("link", name: "All").click()
            try await expect(view.getByRole("link", name: "All")).toHaveClass("selected")
            try await view.getByRole("link", name: "Active").click()
            try await expect(view.getByTestId("todo-item")).toHaveCount(2)
            try await expect(view.getByRole("link", name: "Active")).toHaveClass("selected")
            try await view.getByRole("link", name: "Completed").click()
            try await expect(view.getByTestId("todo-item")).toHaveCount(1)
            try await expect(view).toHaveURL(url.absoluteString + "#/completed")
            try await view.goBack()
            try await expect(view.getByTestId("todo-item")).toHaveCount(2)
            try await view.goBack()
            try await expect(view.getByTestId("todo-item")).toHaveCount(3)
            try await view.goForward()
            try await expect(view.getByTestId("todo-item")).toHaveCount(2)
            try await expect(view).toHaveTitle("Todos")
        }
    }
}
