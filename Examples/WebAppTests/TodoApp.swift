import Foundation
import LoopbackServer

/// A todo app in the shape of TodoMVC (the app Playwright's own example
/// suite tests): add, complete, edit on double-click, clear completed,
/// hash-routed filters, kept in `localStorage`. Plain JavaScript, served on
/// loopback as your own app would be.
enum TodoApp {
    /// How the app is built: plain DOM (`TodoApp.page`), or web components
    /// with shadow roots (`ShadowTodoApp.page`).
    enum Build: String, CaseIterable, Sendable, CustomStringConvertible {
        case plain, shadowDOM

        var page: String { self == .plain ? TodoApp.page : ShadowTodoApp.page }

        /// The builds the suite tests: both, or the one `NAVWATCH_TODO_BUILD`
        /// names (Scripts/bench compares the plain one with Playwright's run).
        static var tested: [Build] {
            ProcessInfo.processInfo.environment["NAVWATCH_TODO_BUILD"].flatMap(Build.init(rawValue:)).map { [$0] } ?? allCases
        }
        var description: String { rawValue }
    }

    static func start(_ build: Build = .plain) async throws -> LoopbackServer {
        let page = build.page
        return try await LoopbackServer.start { request in
            request.path == "/" ? .html(page) : .html("<title>Not found</title>", status: 404)
        }
    }

    static let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Todos</title>
        <style>
          body { font: 16px sans-serif; width: 500px; margin: 20px auto; }
          .hidden, .todo-list li .edit, .todo-list li.editing .view { display: none; }
          .todo-list li.editing .edit { display: block; }
          .todo-list { list-style: none; padding: 0; }
          .todo-list li { padding: 6px 0; border-bottom: 1px solid #ddd; }
          .todo-list li label { display: inline-block; width: 420px; }
          .todo-list li.completed label { text-decoration: line-through; color: #999; }
          .filters { list-style: none; display: flex; gap: 10px; padding: 0; }
          .filters a.selected { font-weight: bold; }
          input.new-todo, input.edit { width: 100%; font-size: 18px; }
        </style></head>
        <body>
        <section class="todoapp">
          <header class="header">
            <h1>todos</h1>
            <input class="new-todo" placeholder="What needs to be done?" autofocus>
          </header>
          <section class="main hidden">
            <input id="toggle-all" class="toggle-all" type="checkbox">
            <label for="toggle-all">Mark all as complete</label>
            <ul class="todo-list"></ul>
          </section>
          <footer class="footer hidden">
            <span class="todo-count" data-testid="todo-count"></span>
            <ul class="filters">
              <li><a href="#/">All</a></li>
              <li><a href="#/active">Active</a></li>
              <li><a href="#/completed">Completed</a></li>
            </ul>
            <button class="clear-completed">Clear completed</button>
          </footer>
        </section>
        <script>
        const key = 'navwatch-todos';
        let todos = JSON.parse(localStorage.getItem(key) || '[]');
        const $ = selector => document.querySelector(selector);
        const save = () => localStorage.setItem(key, JSON.stringify(todos));
        const filter = () => location.hash.replace(/^#\\/?/, '') || 'all';
        const escapeHTML = text => text.replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
        function render() {
          const shown = todos.filter(todo => filter() === 'all' || (filter() === 'active') === !todo.completed);
          $('.todo-list').innerHTML = shown.map(todo => `
            <li data-testid="todo-item" data-id="${todo.id}" class="${todo.completed ? 'completed' : ''}">
              <div class="view">
                <input class="toggle" type="checkbox" aria-label="Toggle Todo" ${todo.completed ? 'checked' : ''}>
                <label data-testid="todo-title">${escapeHTML(todo.title)}</label>
                <button class="destroy" aria-label="Delete">×</button>
              </div>
              <input class="edit" aria-label="Edit" value="${escapeHTML(todo.title)}">
            </li>`).join('');
          const left = todos.filter(todo => !todo.completed).length;
          $('.todo-count').innerHTML = `<strong>${left}</strong> ${left === 1 ? 'item' : 'items'} left`;
          $('.main').classList.toggle('hidden', todos.length === 0);
          $('.footer').classList.toggle('hidden', todos.length === 0);
          $('.clear-completed').classList.toggle('hidden', !todos.some(todo => todo.completed));
          $('.toggle-all').checked = todos.length > 0 && todos.every(todo => todo.completed);
          for (const link of document.querySelectorAll('.filters a'))
            link.classList.toggle('selected', link.getAttribute('href') === '#/' + (filter() === 'all' ? '' : filter()));
        }
        const todoOf = element => todos.find(todo => todo.id === Number(element.closest('li').dataset.id));
        $('.new-todo').addEventListener('keydown', event => {
          const title = event.target.value.trim();
          if (event.key !== 'Enter' || !title) return;
          todos.push({ id: Date.now() + Math.random(), title, completed: false });
          event.target.value = '';
          save(); render();
        });
        $('.toggle-all').addEventListener('change', event => {
          for (const todo of todos) todo.completed = event.target.checked;
          save(); render();
        });
        $('.clear-completed').addEventListener('click', () => { todos = todos.filter(todo => !todo.completed); save(); render(); });
        const list = $('.todo-list');
        list.addEventListener('change', event => {
          if (!event.target.matches('.toggle')) return;
          todoOf(event.target).completed = event.target.checked;
          save(); render();
        });
        list.addEventListener('click', event => {
          if (!event.target.matches('.destroy')) return;
          todos = todos.filter(todo => todo !== todoOf(event.target));
          save(); render();
        });
        list.addEventListener('dblclick', event => {
          if (!event.target.matches('label')) return;
          const item = event.target.closest('li');
          item.classList.add('editing');
          const edit = item.querySelector('.edit');
          edit.focus();
          edit.setSelectionRange(edit.value.length, edit.value.length);
        });
        const finishEditing = (edit, keep) => {
          const item = edit.closest('li');
          if (!item || !item.classList.contains('editing')) return;
          item.classList.remove('editing');
          const todo = todoOf(edit);
          const title = edit.value.trim();
          if (keep && title) todo.title = title;
          else if (keep) todos = todos.filter(other => other !== todo);
          save(); render();
        };
        list.addEventListener('keydown', event => {
          if (!event.target.matches('.edit')) return;
          if (event.key === 'Enter') finishEditing(event.target, true);
          if (event.key === 'Escape') finishEditing(event.target, false);
        });
        list.addEventListener('blur', event => { if (event.target.matches('.edit')) finishEditing(event.target, true); }, true);
        addEventListener('hashchange', render);
        render();
        </script>
        </body></html>
        """
}
