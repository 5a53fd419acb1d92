/// `TodoApp` built of web components, each with an open shadow root, as
/// Lit's TodoMVC is: `todo-app` holds `todo-form` and `todo-list`, which
/// holds a `todo-item` per todo, each item's list entry inside its own
/// shadow root. The same behaviour, test ids and labels as `TodoApp`, so
/// that one suite tests both.
enum ShadowTodoApp {
    static let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Todos</title>
        <style>body { font: 16px sans-serif; width: 500px; margin: 20px auto; }</style></head>
        <body>
        <todo-app></todo-app>
        <script>
        const key = 'navwatch-todos';
        const store = {
          todos: JSON.parse(localStorage.getItem(key) || '[]'),
          listeners: new Set(),
          save() { localStorage.setItem(key, JSON.stringify(this.todos)); for (const listener of this.listeners) listener(); },
        };
        const filter = () => location.hash.replace(/^#\\/?/, '') || 'all';
        const escapeHTML = text => text.replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

        customElements.define('todo-form', class extends HTMLElement {
          constructor() {
            super();
            const root = this.attachShadow({ mode: 'open' });
            root.innerHTML = '<style>input { width: 100%; font-size: 18px; }</style>'
              + '<input class="new-todo" placeholder="What needs to be done?" autofocus>';
            root.querySelector('input').addEventListener('keydown', event => {
              const title = event.target.value.trim();
              if (event.key !== 'Enter' || !title) return;
              store.todos.push({ id: Date.now() + Math.random(), title, completed: false });
              event.target.value = '';
              store.save();
            });
          }
        });

        customElements.define('todo-item', class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: 'open' });
          }
          set todo(todo) {
            this._todo = todo;
            const root = this.shadowRoot;
            root.innerHTML = `<style>
                li { padding: 6px 0; border-bottom: 1px solid #ddd; list-style: none; }
                label { display: inline-block; width: 420px; }
                li.completed label { text-decoration: line-through; color: #999; }
                .edit, li.editing .view { display: none; }
                li.editing .edit { display: block; width: 100%; font-size: 18px; }
              </style>
              <li data-testid="todo-item" class="${todo.completed ? 'completed' : ''}">
                <div class="view">
                  <input class="toggle" type="checkbox" aria-label="Toggle Todo" ${todo.completed ? 'checked' : ''}>
                  <label data-testid="todo-title">${escapeHTML(todo.title)}</label>
                  <button class="destroy" aria-label="Delete">×</button>
                </div>
                <input class="edit" aria-label="Edit" value="${escapeHTML(todo.title)}">
              </li>`;
            const li = root.querySelector('li'), edit = root.querySelector('.edit');
            root.querySelector('.toggle').addEventListener('change', event => { todo.completed = event.target.checked; store.save(); });
            root.querySelector('.destroy').addEventListener('click', () => { store.todos = store.todos.filter(other => other !== todo); store.save(); });
            root.querySelector('label').addEventListener('dblclick', () => {
              li.classList.add('editing');
              edit.focus();
              edit.setSelectionRange(edit.value.length, edit.value.length);
            });
            const finish = keep => {
              if (!li.classList.contains('editing')) return;
              li.classList.remove('editing');
              const title = edit.value.trim();
              if (keep && title) todo.title = title;
              else if (keep) store.todos = store.todos.filter(other => other !== todo);
              store.save();
            };
            edit.addEventListener('keydown', event => {
              if (event.key === 'Enter') finish(true);
              if (event.key === 'Escape') finish(false);
            });
            edit.addEventListener('blur', () => finish(true));
          }
        });

        customElements.define('todo-list', class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: 'open' }).innerHTML = '<ul class="todo-list" style="padding: 0"></ul>';
          }
          render() {
            const shown = store.todos.filter(todo => filter() === 'all' || (filter() === 'active') === !todo.completed);
            const list = this.shadowRoot.querySelector('ul');
            list.replaceChildren(...shown.map(todo => { const item = document.createElement('todo-item'); item.todo = todo; return item; }));
          }
        });

        customElements.define('todo-app', class extends HTMLElement {
          constructor() {
            super();
            const root = this.attachShadow({ mode: 'open' });
            root.innerHTML = `<style>
                .hidden { display: none; }
                .filters { list-style: none; display: flex; gap: 10px; padding: 0; }
                .filters a.selected { font-weight: bold; }
              </style>
              <section class="todoapp">
                <header class="header"><h1>todos</h1><todo-form></todo-form></header>
                <section class="main hidden">
                  <input id="toggle-all" class="toggle-all" type="checkbox">
                  <label for="toggle-all">Mark all as complete</label>
                  <todo-list></todo-list>
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
              </section>`;
            const $ = selector => root.querySelector(selector);
            $('.toggle-all').addEventListener('change', event => {
              for (const todo of store.todos) todo.completed = event.target.checked;
              store.save();
            });
            $('.clear-completed').addEventListener('click', () => { store.todos = store.todos.filter(todo => !todo.completed); store.save(); });
            this.render = () => {
              const todos = store.todos;
              $('todo-list').render();
              const left = todos.filter(todo => !todo.completed).length;
              $('.todo-count').innerHTML = `<strong>${left}</strong> ${left === 1 ? 'item' : 'items'} left`;
              $('.main').classList.toggle('hidden', todos.length === 0);
              $('.footer').classList.toggle('hidden', todos.length === 0);
              $('.clear-completed').classList.toggle('hidden', !todos.some(todo => todo.completed));
              $('.toggle-all').checked = todos.length > 0 && todos.every(todo => todo.completed);
              for (const link of root.querySelectorAll('.filters a'))
                link.classList.toggle('selected', link.getAttribute('href') === '#/' + (filter() === 'all' ? '' : filter()));
            };
            store.listeners.add(this.render);
            addEventListener('hashchange', this.render);
          }
          connectedCallback() { this.render(); }
        });
        </script>
        </body></html>
        """
}
