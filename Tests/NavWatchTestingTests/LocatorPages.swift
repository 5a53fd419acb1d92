import Foundation
import LoopbackServer

/// The pages the locator, actionability and assertion tests use, on one loopback server.
enum LocatorPages {
    static let server = Task { try await LoopbackServer.start { request in route(request.path) } }

    static func route(_ path: String) -> LoopbackResponse {
        switch path {
        case "/locators": return .html(locators)
        case "/actionability": return .html(actionability)
        case "/changes": return .html(changes)
        case "/hostile": return .html(hostile)
        case "/form": return .html(form)
        case "/dialogs": return .html(dialogs)
        case "/popups": return .html(popups)
        case "/downloads": return .html(downloads)
        case "/export.csv":
            return .text("title,done\ncheese,false\n", contentType: "text/csv",
                         headers: [("Content-Disposition", #"attachment; filename="todos.csv""#)])
        case "/slow.csv":
            return .delayed(.seconds(1), .text("late", contentType: "text/csv",
                                               headers: [("Content-Disposition", #"attachment; filename="slow.csv""#)]))
        case "/escape":
            return .text("not yours", contentType: "application/octet-stream",
                         headers: [("Content-Disposition", #"attachment; filename="../../escape.txt""#)])
        default: return .html("<title>Not found</title>", status: 404)
        }
    }

    /// Every kind of locator: a list, text split across elements, labels,
    /// and an open shadow root two levels deep.
    /// A link to a new window, and a button that opens one with `window.open`
    /// after writing to `localStorage`.
    static let popups = """
        <!doctype html><title>Popups</title>
        <a id="blank" href="/form" target="_blank">Open the form</a>
        <button id="open" onclick="localStorage.setItem('shared', 'yes'); window.open('/dialogs', 'named')">Open</button>
        <button id="many" onclick="for (let i = 0; i < 1000; i++) window.open('/form', 'w' + i)">Open 1,000</button>
        """

    /// Links to an attachment, and to one whose suggested name climbs out of any directory.
    static let downloads = """
        <!doctype html><title>Downloads</title>
        <a id="csv" href="/export.csv">Export CSV</a>
        <a id="escape" href="/escape">Escape</a>
        <a id="slow" href="/slow.csv">Slow</a>
        """

    /// A button per dialog type; `#out` shows what the page got back.
    static let dialogs = """
        <!doctype html><title>Dialogs</title>
        <button id="alert" onclick="alert('Hi'); out.textContent = 'alerted'">Alert</button>
        <button id="confirm" onclick="out.textContent = 'confirm:' + confirm('Delete?')">Confirm</button>
        <button id="prompt" onclick="out.textContent = 'prompt:' + prompt('Name?', 'Ada')">Prompt</button>
        <button id="leave" onclick="onbeforeunload = e => { e.preventDefault(); e.returnValue = 'Leave?' }">Guard</button>
        <button id="thousand" onclick="let n = 0; for (let i = 0; i < 1200; i++) if (!confirm('#' + i)) n++; out.textContent = n + ' dismissed'">Ask 1,200 times</button>
        <p id="out"></p>
        """

    static let locators = """
        <!doctype html><html><head><title>Locators</title></head><body>
        <h1>Shopping list</h1>
        <ul id="list">
          <li data-testid="item">Milk <button>Remove</button></li>
          <li data-testid="item" class="done">Bread <button>Remove</button></li>
          <li data-testid="item">Eggs <button>Remove</button></li>
        </ul>
        <p id="split">Hello <b>big</b>
           world</p>
        <label for="name">Your name</label> <input id="name" placeholder="Ada Lovelace">
        <label><input type="checkbox" id="agree"> I agree</label>
        <input aria-label="Search terms" id="search" data-test="finder">
        <a href="#top">Back to top</a>
        <div hidden><button>Hidden button</button></div>
        <my-card id="card"></my-card>
        <my-greeting>World</my-greeting>
        <script>
        customElements.define('my-inner', class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: 'open' }).innerHTML =
              '<button class="deep">Deep button</button><span data-testid="deep">Two levels down</span>'
              + '<input class="deep-field" placeholder="Deep field">';
          }
        });
        customElements.define('my-greeting', class extends HTMLElement {
          constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<p class="greeting">Hello, <slot></slot>!</p>'; }
        });
        customElements.define('my-card', class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: 'open' }).innerHTML = '<p class="card-title">Card</p><my-inner></my-inner>';
          }
        });
        window.clicks = [];
        document.addEventListener('click', event => clicks.push(event.composedPath()[0].className || event.composedPath()[0].localName), true);
        </script>
        </body></html>
        """

    /// Elements that become actionable later, or never.
    static let actionability = """
        <!doctype html><html><head><title>Actionability</title><style>
        #moving { position: absolute; left: 20px; top: 200px; transition: left 600ms linear; }
        #under { position: absolute; left: 20px; top: 300px; width: 120px; height: 30px; }
        #overlay { position: absolute; left: 0; top: 280px; width: 400px; height: 80px; background: rgba(0,0,0,.1); }
        /* The same height with #flaky or without it: its removal and return (at 100 and 300 ms) move nothing
           else, as #late (added at 300 ms) would move mid-click. */
        #holder { height: 40px; }
        </style></head><body>
        <button id="disabled" disabled>Later enabled</button>
        <button id="moving">Moving</button>
        <button id="under">Under</button><div id="overlay"></div>
        <div id="holder"><button id="flaky">Flaky</button></div>
        <div id="renders"><button id="rerender">Re-rendered on press</button></div>
        <script>
        window.log = [];
        // As a framework re-renders on a press: the button is replaced under the pointer.
        document.getElementById('renders').addEventListener('mousedown', event => {
          log.push('mousedown ' + event.target.id);
          document.getElementById('renders').innerHTML = '<button id="rerender">Re-rendered on press</button>';
        });
        document.addEventListener('click', event => log.push(event.target.id + (event.isTrusted ? '' : ' (untrusted)')
          + (event.target.id === 'moving' ? ' at ' + getComputedStyle(event.target).left : '')), true);
        document.addEventListener('dblclick', event => log.push('dblclick ' + event.target.id), true);
        setTimeout(() => {
          const late = document.createElement('button');
          late.id = 'late';
          late.textContent = 'Late';
          document.body.append(late);
          document.getElementById('disabled').disabled = false;
        }, 300);
        // Moving from the start: the transition runs for the first 600 ms.
        const moving = document.getElementById('moving');
        moving.getBoundingClientRect();
        moving.style.left = '300px';
        setTimeout(() => {
          const old = document.getElementById('flaky');
          old.remove();
          setTimeout(() => {
            const again = document.createElement('button');
            again.id = 'flaky';
            again.textContent = 'Flaky again';
            document.getElementById('holder').append(again);
          }, 200);
        }, 100);
        </script></body></html>
        """

    /// What the assertions watch: all of it changes when the test calls `change()`.
    static let changes = """
        <!doctype html><html><head><title>Before</title></head><body>
        <p id="status" class="pending">Loading</p>
        <ul id="items"><li>One</li></ul>
        <input id="field" value="old">
        <input id="box" type="checkbox">
        <button id="button" disabled>Go</button>
        <p id="shown" style="display:none">Now you see me</p>
        <p id="gone">Going</p>
        <p id="empty">Not yet empty</p>
        <a id="link" href="#">Link</a>
        <script>
        window.change = () => {
          document.title = 'After';
          const status = document.getElementById('status');
          status.textContent = 'Ready: 3 items';
          status.className = 'ready done';
          document.getElementById('items').innerHTML = '<li>One</li><li>Two</li><li>Three</li>';
          document.getElementById('field').value = 'new';
          document.getElementById('box').checked = true;
          document.getElementById('button').disabled = false;
          document.getElementById('shown').style.display = 'block';
          document.getElementById('gone').remove();
          document.getElementById('empty').textContent = '';
          document.getElementById('link').setAttribute('href', '/next');
          document.getElementById('field').focus();
          history.pushState(null, '', '#after');
        };
        </script></body></html>
        """

    /// A page that replaces what a careless engine would call.
    static let hostile = """
        <!doctype html><html><head><title>Hostile</title></head><body>
        <button id="target">Press</button>
        <script>
        window.log = [];
        document.getElementById('target').addEventListener('click', event => log.push('clicked ' + event.isTrusted));
        Document.prototype.querySelector = () => null;
        Document.prototype.querySelectorAll = () => [];
        Element.prototype.querySelectorAll = () => [];
        Element.prototype.click = () => log.push('fake click');
        Element.prototype.getBoundingClientRect = () => ({ x: -1, y: -1, width: 0, height: 0, left: -1, top: -1 });
        window.MutationObserver = function () { throw new Error('no observers'); };
        window.requestAnimationFrame = () => 0;
        window.getComputedStyle = () => ({ display: 'none', visibility: 'hidden' });
        </script></body></html>
        """

    /// A form with a control of every kind, and a log of what the page saw.
    static let form = """
        <!doctype html><html><head><title>Form</title></head><body>
        <button id="target">Target</button>
        <label><input type="checkbox" id="subscribe"> Subscribe</label>
        <input id="name" placeholder="Your name">
        <select id="colour"><option value="r">Red</option><option value="g">Green</option></select>
        <input type="file" id="file">
        <script>
        window.log = [];
        const target = document.getElementById('target');
        target.addEventListener('click', event => log.push('click ' + event.detail + ' target'));
        target.addEventListener('dblclick', () => log.push('dblclick target'));
        target.addEventListener('mouseover', () => log.push('mouseover target'));
        target.addEventListener('focus', () => log.push('focus target'));
        target.addEventListener('blur', event => log.push('blur target' + (event.isTrusted ? '' : ' (untrusted)')));
        document.getElementById('subscribe').addEventListener('change', event => log.push('change subscribe ' + event.target.checked));
        document.getElementById('name').addEventListener('keydown', event =>
          log.push('keydown ' + event.key + (event.ctrlKey ? ' ctrl' : '') + (event.shiftKey && event.key !== 'Shift' ? ' shift' : '')));
        document.getElementById('name').addEventListener('focus', () => log.push('focus name'));
        document.getElementById('colour').addEventListener('change', event => log.push('change colour ' + event.target.value));
        document.getElementById('file').addEventListener('change', event => {
          const file = event.target.files[0];
          log.push('change file ' + file.name + ' ' + file.type + ' ' + file.size);
        });
        </script></body></html>
        """
}
