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

    private static let source = #"""
        const normalize = text => String(text ?? '').replace(/[\s\u200b]+/g, ' ').trim();
        const deepChildren = node => {
          const children = Array.from(node.children ?? []);
          if (node.shadowRoot && node.shadowRoot.mode === 'open') children.unshift(...node.shadowRoot.children);
          return children;
        };
        // Every element below `root` in tree order, shadow trees included.
        const deepElements = root => {
          const all = [];
          const walk = node => { for (const child of deepChildren(node)) { all.push(child); walk(child); } };
          walk(root);
          return all;
        };
        const shadowRoots = root => {
          const roots = [root];
          for (const element of deepElements(root)) if (element.shadowRoot && element.shadowRoot.mode === 'open') roots.push(element.shadowRoot);
          return roots;
        };
        const parentOf = node => node.parentNode instanceof ShadowRoot ? node.parentNode.host : node.parentElement;
        const containsDeep = (ancestor, node) => {
          for (let at = node; at; at = parentOf(at)) if (at === ancestor) return true;
          return false;
        };
        // A selector's parts at the top level (outside brackets, parentheses
        // and quotes): `split(selector, ',')` its alternatives; `compounds`
        // its compound selectors and the combinators between them.
        const topLevel = (selector, visit) => {
          let depth = 0, quote = null;
          for (let i = 0; i < selector.length; i++) {
            const c = selector[i];
            if (quote) { if (c === '\\') i++; else if (c === quote) quote = null; continue; }
            if (c === '"' || c === "'") quote = c;
            else if (c === '(' || c === '[') depth++;
            else if (c === ')' || c === ']') depth--;
            else if (depth === 0) visit(c, i);
          }
        };
        const split = (selector, separator) => {
          const parts = [];
          let from = 0;
          topLevel(selector, (c, i) => { if (c === separator) { parts.push(selector.slice(from, i)); from = i + 1; } });
          parts.push(selector.slice(from));
          return parts.map(part => part.trim());
        };
        // [{ combinator, compound }], left to right; null when a combinator
        // other than descendant and child is used.
        const compounds = selector => {
          const parts = [];
          let from = 0, pending = ' ';
          const close = i => {
            const compound = selector.slice(from, i).trim();
            if (compound) { parts.push({ combinator: parts.length ? pending : null, compound }); pending = ' '; }
          };
          let unsupported = false;
          topLevel(selector, (c, i) => {
            if (c === ' ' || c === '>' || c === '+' || c === '~' || c === '\n' || c === '\t') {
              close(i);
              from = i + 1;
              if (c === '>') pending = '>';
              if (c === '+' || c === '~') unsupported = true;
            }
          });
          close(selector.length);
          return unsupported ? null : parts;
        };
        // Whether `element` matches `parts` with its ancestors found across
        // shadow boundaries (a host is its shadow tree's parent).
        const matchesAcross = (element, parts) => {
          const from = (node, i) => {
            if (!node.matches(parts[i].compound)) return false;
            if (i === 0) return true;
            if (parts[i].combinator === '>') { const parent = parentOf(node); return !!parent && from(parent, i - 1); }
            for (let at = parentOf(node); at; at = parentOf(at)) if (from(at, i - 1)) return true;
            return false;
          };
          return from(element, parts.length - 1);
        };
        class LocatorError extends Error {
          constructor(kind, message) { super(message); this.kind = kind; }
        }

        // An element's child nodes as rendered (the flat tree): a host's
        // open shadow root's, and for a slot the nodes assigned to it.
        const renderedChildNodes = element => {
          if (element.localName === 'slot') {
            const assigned = element.assignedNodes({ flatten: true });
            if (assigned.length) return assigned;
          }
          return element.shadowRoot && element.shadowRoot.mode === 'open'
            ? [...element.shadowRoot.childNodes] : [...element.childNodes];
        };
        // Text as Playwright reads it: text nodes and shadow roots, not scripts or styles.
        const skipped = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'HEAD', 'TEMPLATE']);
        const textCache = new Map();
        const elementText = element => {
          if (textCache.has(element)) return textCache.get(element);
          let text = '';
          if (!skipped.has(element.nodeName)) {
            if (element instanceof HTMLInputElement && ['button', 'submit', 'reset'].includes(element.type)) text = element.value;
            else {
              const nodes = renderedChildNodes(element);
              for (const node of nodes) {
                if (node.nodeType === Node.TEXT_NODE) text += node.nodeValue;
                else if (node.nodeType === Node.ELEMENT_NODE) text += elementText(node);
              }
            }
          }
          textCache.set(element, text);
          return text;
        };
        const textMatcher = (wanted, exact) => {
          const want = normalize(wanted);
          if (exact) return text => normalize(text) === want;
          const lower = want.toLowerCase();
          return text => normalize(text).toLowerCase().includes(lower);
        };

        // ARIA roles, implicit ones as the HTML-AAM gives them.
        const knownRoles = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code '
          + 'columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed '
          + 'figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee '
          + 'math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph '
          + 'presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator '
          + 'slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time '
          + 'timer toolbar tooltip tree treegrid treeitem').split(' '));
        const inputRole = input => {
          const type = (input.getAttribute('type') || 'text').toLowerCase();
          if (input.hasAttribute('list') && ['text', 'search', 'tel', 'url', 'email'].includes(type)) return 'combobox';
          return ({ button: 'button', image: 'button', reset: 'button', submit: 'button', checkbox: 'checkbox',
                    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', hidden: null,
                    email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox', password: null,
                    color: null, date: null, 'datetime-local': null, file: null, month: null, time: null, week: null })[type]
            ?? 'textbox';
        };
        const sectioning = 'article, aside, main, nav, section';
        const implicitRole = element => {
          switch (element.localName) {
            case 'a': case 'area': return element.hasAttribute('href') ? 'link' : null;
            case 'article': return 'article';
            case 'aside': return 'complementary';
            case 'blockquote': return 'blockquote';
            case 'button': return 'button';
            case 'caption': return 'caption';
            case 'code': return 'code';
            case 'datalist': return 'listbox';
            case 'del': case 's': return 'deletion';
            case 'details': return 'group';
            case 'dialog': return 'dialog';
            case 'dd': return 'definition';
            case 'dt': return 'term';
            case 'em': return 'emphasis';
            case 'fieldset': return 'group';
            case 'figure': return 'figure';
            case 'footer': return element.closest(sectioning) ? null : 'contentinfo';
            case 'form': return 'form';
            case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
            case 'header': return element.closest(sectioning) ? null : 'banner';
            case 'hr': return 'separator';
            case 'img': return element.getAttribute('alt') === '' ? 'presentation' : 'img';
            case 'input': return inputRole(element);
            case 'ins': return 'insertion';
            case 'li': return 'listitem';
            case 'main': return 'main';
            case 'mark': return 'mark';
            case 'math': return 'math';
            case 'menu': case 'ol': case 'ul': return 'list';
            case 'meter': return 'meter';
            case 'nav': return 'navigation';
            case 'optgroup': return 'group';
            case 'option': return 'option';
            case 'output': return 'status';
            case 'p': return 'paragraph';
            case 'progress': return 'progressbar';
            case 'search': return 'search';
            case 'section': return element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby') ? 'region' : null;
            case 'select': return element.multiple || element.size > 1 ? 'listbox' : 'combobox';
            case 'strong': return 'strong';
            case 'sub': return 'subscript';
            case 'sup': return 'superscript';
            case 'table': return 'table';
            case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
            case 'td': return 'cell';
            case 'textarea': return 'textbox';
            case 'th': return element.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
            case 'time': return 'time';
            case 'tr': return 'row';
            default: return null;
          }
        };
        const roleOf = element => {
          const explicit = (element.getAttribute('role') || '').trim().split(/\s+/).find(role => knownRoles.has(role));
          return explicit ?? implicitRole(element);
        };
        const namedFromContent = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link',
          'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab',
          'tooltip', 'treeitem']);
        const byId = (element, ids) => ids.trim().split(/\s+/)
          .map(id => element.getRootNode().getElementById?.(id) ?? document.getElementById(id)).filter(Boolean);
        const labelsOf = element => {
          const labels = [...(element.labels ?? [])];
          return labels;
        };
        const hiddenFromTree = element => {
          for (let at = element; at; at = parentOf(at)) {
            if (at.getAttribute?.('aria-hidden') === 'true') return true;
            const style = getComputedStyle(at);
            if (style.display === 'none') return true;
          }
          return getComputedStyle(element).visibility === 'hidden';
        };
        // The text alternative of `element` (accname 1.2, in short).
        const accessibleName = (element, visiting = new Set(), fromContent = false) => {
          if (visiting.has(element)) return '';
          visiting.add(element);
          if (!fromContent) {
            const labelledby = element.getAttribute('aria-labelledby');
            if (labelledby) {
              const name = byId(element, labelledby).map(other => textAlternative(other, new Set(visiting))).join(' ');
              if (normalize(name)) return normalize(name);
            }
          }
          const label = element.getAttribute('aria-label');
          if (label && normalize(label)) return normalize(label);
          const tag = element.localName;
          if (tag === 'input' && ['button', 'submit', 'reset'].includes(element.type))
            return normalize(element.value || (element.type === 'submit' ? 'Submit' : element.type === 'reset' ? 'Reset' : ''));
          if (tag === 'input' && element.type === 'image') return normalize(element.alt || element.value || 'Submit');
          if (['input', 'textarea', 'select', 'meter', 'progress', 'output'].includes(tag) || tag === 'button') {
            const fromLabels = labelsOf(element).map(one => textAlternative(one, new Set(visiting))).join(' ');
            if (normalize(fromLabels)) return normalize(fromLabels);
          }
          if (tag === 'img' || tag === 'area') { if (element.hasAttribute('alt')) return normalize(element.alt); }
          if (tag === 'fieldset') { const legend = element.querySelector(':scope > legend'); if (legend) return normalize(textAlternative(legend, visiting)); }
          if (tag === 'table') { const caption = element.querySelector(':scope > caption'); if (caption) return normalize(textAlternative(caption, visiting)); }
          const role = roleOf(element);
          if (fromContent || namedFromContent.has(role)) {
            const text = normalize(contentText(element, visiting));
            if (text) return text;
          }
          if (['input', 'textarea'].includes(tag) && element.placeholder) return normalize(element.title || element.placeholder);
          return normalize(element.getAttribute('title') || '');
        };
        const textAlternative = (element, visiting) => {
          if (element.getAttribute('aria-label')) return element.getAttribute('aria-label');
          return contentText(element, visiting);
        };
        const contentText = (element, visiting) => {
          const nodes = renderedChildNodes(element);
          let text = '';
          for (const node of nodes) {
            if (node.nodeType === Node.TEXT_NODE) text += node.nodeValue;
            else if (node.nodeType === Node.ELEMENT_NODE && !skipped.has(node.nodeName)) {
              if (node.getAttribute('aria-hidden') === 'true') continue;
              const style = getComputedStyle(node);
              if (style.display === 'none' || style.visibility === 'hidden') continue;
              const inline = style.display.startsWith('inline');
              const part = node.localName === 'img' ? (node.alt || '') : accessibleName(node, visiting, true);
              text += inline ? part : ' ' + part + ' ';
            }
          }
          return text;
        };

        const isVisible = element => {
          if (!element.isConnected) return false;
          const style = getComputedStyle(element);
          if (style.display === 'contents') return deepChildren(element).some(isVisible);
          if (style.visibility !== 'visible') return false;
          const box = element.getBoundingClientRect();
          return box.width > 0 && box.height > 0;
        };
        const canBeDisabled = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup']);
        const isDisabled = element => {
          if (canBeDisabled.has(element.localName) && element.disabled) return true;
          if (canBeDisabled.has(element.localName)) {
            const fieldset = element.closest('fieldset[disabled]');
            if (fieldset) {
              const legend = fieldset.querySelector(':scope > legend');
              if (!legend || !legend.contains(element)) return true;
            }
          }
          for (let at = element; at; at = parentOf(at)) if (at.getAttribute?.('aria-disabled') === 'true') return true;
          return false;
        };
        const isEditable = element => {
          if (isDisabled(element)) return false;
          if (['input', 'textarea', 'select'].includes(element.localName)) return !element.readOnly && element.getAttribute('aria-readonly') !== 'true';
          if (element.isContentEditable) return true;
          return false;
        };
        const checkedState = element => {
          if (element instanceof HTMLInputElement && ['checkbox', 'radio'].includes(element.type)) return element.checked;
          const role = roleOf(element);
          if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem'].includes(role)) {
            const checked = element.getAttribute('aria-checked');
            return checked === 'true' ? true : checked === 'mixed' ? 'mixed' : false;
          }
          throw new LocatorError('not-a-checkbox', 'Not a checkbox or radio button');
        };

        // One step of a locator, from the elements matched so far (`scopes`).
        const select = (step, scopes, testId) => {
          const below = scope => scope === document ? deepElements(document) : deepElements(scope);
          const union = lists => {
            const seen = new Set(), all = [];
            for (const list of lists) for (const element of list) if (!seen.has(element)) { seen.add(element); all.push(element); }
            return all;
          };
          switch (step.kind) {
            case 'css': {
              try { document.createDocumentFragment().querySelector(step.selector); }
              catch (error) { throw new LocatorError('invalid-selector', String(error && error.message)); }
              // Within each tree as the browser matches; across shadow
              // boundaries too for descendant and child combinators, as
              // Playwright's css engine does.
              const alternatives = split(step.selector, ',').map(compounds);
              return union(scopes.map(scope => {
                const roots = shadowRoots(scope);
                const found = new Set();
                for (const root of roots) for (const element of root.querySelectorAll(step.selector)) found.add(element);
                const order = below(scope);
                if (roots.length > 1)
                  for (const element of order)
                    if (!found.has(element) && alternatives.some(parts => parts && parts.length > 1 && matchesAcross(element, parts)))
                      found.add(element);
                return order.filter(element => found.has(element));
              }));
            }
            case 'text': {
              const matches = textMatcher(step.text, step.exact);
              return union(scopes.map(scope => below(scope).filter(element =>
                !skipped.has(element.nodeName) && matches(elementText(element))
                && !deepChildren(element).some(child => matches(elementText(child))))));
            }
            case 'role': {
              if (!knownRoles.has(step.role)) throw new LocatorError('unknown-role', step.role);
              const matches = step.name === undefined ? null : textMatcher(step.name, step.exact);
              return union(scopes.map(scope => below(scope).filter(element =>
                roleOf(element) === step.role && !hiddenFromTree(element)
                && (!matches || matches(accessibleName(element))))));
            }
            case 'label': {
              const matches = textMatcher(step.text, step.exact);
              return union(scopes.map(scope => below(scope).filter(element => {
                if (element.getAttribute('aria-label') && matches(element.getAttribute('aria-label'))) return true;
                const labelledby = element.getAttribute('aria-labelledby');
                if (labelledby && matches(byId(element, labelledby).map(other => elementText(other)).join(' '))) return true;
                return labelsOf(element).some(label => matches(elementText(label)));
              })));
            }
            case 'placeholder': {
              const matches = textMatcher(step.text, step.exact);
              return union(scopes.map(scope => below(scope).filter(element =>
                element.hasAttribute('placeholder') && matches(element.getAttribute('placeholder')))));
            }
            case 'testId':
              return union(scopes.map(scope => below(scope).filter(element => element.getAttribute(testId) === step.id)));
            case 'nth': {
              const index = step.index < 0 ? scopes.length + step.index : step.index;
              return index >= 0 && index < scopes.length ? [scopes[index]] : [];
            }
            case 'hasText': {
              const matches = textMatcher(step.text, false);
              return scopes.filter(element => matches(elementText(element)));
            }
          }
          throw new LocatorError('invalid-selector', 'unknown step ' + step.kind);
        };
        const resolve = (steps, testId) => {
          textCache.clear();
          let scopes = [document];
          for (const step of steps) scopes = select(step, scopes, testId);
          return scopes.filter(element => element !== document);
        };

        // Resolves after the next change to the document or `ms`, whichever is first.
        const nextChange = ms => new Promise(done => {
          const observer = new MutationObserver(() => finish());
          const timer = setTimeout(() => finish(), ms);
          const finish = () => { observer.disconnect(); clearTimeout(timer); done(); };
          observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
        });
        const frame = () => new Promise(done => requestAnimationFrame(() => done()));
        const sameBox = (a, b) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
        const describe = element => {
          let text = '<' + element.localName;
          for (const name of ['id', 'class', 'data-testid', 'role']) {
            const value = element.getAttribute?.(name);
            if (value) text += ' ' + name + '="' + value.slice(0, 40) + '"';
          }
          return text + '>';
        };
        // What a pointer at (x, y) hits, inside open shadow roots too.
        const hitAt = (x, y) => {
          let hit = document.elementFromPoint(x, y);
          while (hit && hit.shadowRoot && hit.shadowRoot.mode === 'open') {
            const inner = hit.shadowRoot.elementFromPoint(x, y);
            if (!inner || inner === hit) break;
            hit = inner;
          }
          return hit;
        };
        const followLabel = element => {
          const label = element?.closest?.('label');
          if (label && label.control && !element.closest('a, button, input, select, textarea')) return label.control;
          return element;
        };

        // Waits for the one element `steps` match to be in `states`, then
        // runs `act` on it. Answers { value } or { error, message }.
        const perform = async (steps, testId, states, timeout, act) => {
          const deadline = performance.now() + timeout;
          let reason = 'waiting for the element', attempt = 0;
          while (true) {
            let elements;
            try { elements = resolve(steps, testId); }
            catch (error) { return { error: error.kind ?? 'invalid-selector', message: error.message }; }
            if (elements.length > 1 && states.strict) return { error: 'strict', count: elements.length };
            const element = elements[0];
            if (!element) reason = 'no element matches';
            else {
              reason = null;
              if (states.visible && !isVisible(element)) reason = 'element is not visible';
              else if (states.enabled && isDisabled(element)) reason = 'element is not enabled';
              else if (states.editable && !isEditable(element)) reason = 'element is not editable';
              else if (states.stable) {
                element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
                const before = element.getBoundingClientRect();
                await frame();
                const after = element.getBoundingClientRect();
                if (!element.isConnected) reason = 'element was detached from the document';
                else if (!sameBox(before, after)) reason = 'element is not stable';
                else if (states.pointer) {
                  const x = after.left + after.width / 2, y = after.top + after.height / 2;
                  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) reason = 'element is outside of the viewport';
                  else {
                    const hit = hitAt(x, y);
                    if (!hit || (!containsDeep(element, hit) && followLabel(hit) !== element))
                      reason = (hit ? describe(hit) : 'nothing') + ' intercepts pointer events';
                  }
                }
              }
              if (reason === null) {
                try { return { value: await act(element) }; }
                catch (error) {
                  if (error instanceof LocatorError) return { error: error.kind, message: error.message };
                  throw error;
                }
              }
            }
            const left = deadline - performance.now();
            if (left <= 0) return { error: 'timeout', message: reason };
            attempt += 1;
            await (states.stable ? frame() : nextChange(Math.min(left, attempt < 3 ? 20 : 100)));
          }
        };

        const pointOf = element => {
          const box = element.getBoundingClientRect();
          return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
        };
        // `inputHandled` resolves two tasks after the input's `event` (or,
        // for `mouseup`, `pointerup`: a page that cancels `pointerdown`
        // suppresses the mouse events but not the click).
        const armInput = event => {
          const events = event === 'mouseup' ? ['pointerup', 'mouseup', 'click'] : [event];
          window.navwatchInputHandled = new Promise(done => {
            const handled = () => {
              for (const type of events) removeEventListener(type, handled, true);
              setTimeout(() => setTimeout(done, 0), 0);
            };
            for (const type of events) addEventListener(type, handled, true);
          });
        };
        // Checks where the input's first press lands: on `element` (or in
        // it), the guard steps aside; elsewhere (the page moved something
        // under the pointer after the checks), every press event up to the
        // input's last (`last`) is stopped before the page sees it, the miss
        // is recorded in `hitGuard.missed`, and the action tries again.
        const pressTypes = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'auxclick'];
        let hitGuard = { missed: null };
        const guardHits = (element, last) => {
          const guard = { missed: null };
          const check = event => {
            if (guard.missed === null) {
              const hit = event.composedPath()[0];
              if (hit instanceof Node && (containsDeep(element, hit) || followLabel(hit) === element)) return stop();
              guard.missed = hit instanceof Element ? describe(hit) : 'nothing';
            }
            event.stopImmediatePropagation();
            // Cancelling a pointerdown would suppress the mouse events that tell the input was handled.
            if (!event.type.startsWith('pointer')) event.preventDefault();
            if (event.type === last) stop();
          };
          const stop = () => { for (const type of pressTypes) removeEventListener(type, check, true); };
          for (const type of pressTypes) addEventListener(type, check, true);
          setTimeout(stop, 5000);
          hitGuard = guard;
        };
        const missedHit = () => hitGuard.missed;
        const eventClass = type => {
          if (/^(click|dblclick|mouse|contextmenu|auxclick)/.test(type)) return [MouseEvent, { detail: 1 }];
          if (/^pointer/.test(type)) return [PointerEvent, {}];
          if (/^(focus|blur|focusin|focusout)$/.test(type)) return [FocusEvent, {}];
          if (/^key/.test(type)) return [KeyboardEvent, {}];
          if (/^(drag|drop)/.test(type)) return [DragEvent, {}];
          if (/^touch/.test(type)) return [Event, {}];
          if (/^(input|beforeinput)$/.test(type)) return [InputEvent, {}];
          if (type === 'wheel') return [WheelEvent, {}];
          return [Event, {}];
        };
        const fill = (element, text) => {
          const isField = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement;
          if (!isField && !element.isContentEditable && !(element instanceof HTMLSelectElement))
            throw new LocatorError('not-interactable', 'element is not an <input>, <textarea> or [contenteditable] element');
          element.focus();
          if (isField && typeof element.select === 'function') element.select();
          else { const range = document.createRange(); range.selectNodeContents(element); const selection = getSelection(); selection.removeAllRanges(); selection.addRange(range); }
          if (text === '') document.execCommand('delete');
          else document.execCommand('insertText', false, text);
          if (isField && element.value !== text) {
            element.value = text;
            element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
            element.dispatchEvent(new Event('change', { bubbles: true }));
          }
          return null;
        };
        const selectOption = (element, values) => {
          if (!(element instanceof HTMLSelectElement)) throw new LocatorError('not-interactable', 'element is not a <select> element');
          const options = [...element.options];
          const chosen = [];
          for (const value of values) {
            const option = options.find(option => option.value === value) ?? options.find(option => normalize(option.label) === normalize(value));
            if (!option) throw new LocatorError('no-option', value);
            chosen.push(option);
            if (!element.multiple) break;
          }
          for (const option of options) option.selected = chosen.includes(option);
          element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
          element.dispatchEvent(new Event('change', { bubbles: true }));
          return chosen.map(option => option.value);
        };
        const setInputFiles = (element, files) => {
          if (!(element instanceof HTMLInputElement) || element.type !== 'file')
            throw new LocatorError('not-interactable', 'element is not an <input type=file> element');
          if (files.length > 1 && !element.multiple) throw new LocatorError('not-interactable', 'element does not take several files');
          const transfer = new DataTransfer();
          for (const file of files) {
            const bytes = Uint8Array.from(atob(file.base64), c => c.charCodeAt(0));
            transfer.items.add(new File([bytes], file.name, { type: file.mimeType }));
          }
          element.files = transfer.files;
          element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
          element.dispatchEvent(new Event('change', { bubbles: true }));
          return null;
        };
        const query = (element, what, argument) => {
          switch (what) {
            case 'textContent': return element.textContent;
            case 'innerText': return element.innerText;
            case 'inputValue':
              if (!(element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement))
                throw new LocatorError('not-interactable', 'element is not an <input>, <textarea> or <select> element');
              return element.value;
            case 'attribute': return element.getAttribute(argument);
            case 'visible': return isVisible(element);
            case 'checked': return checkedState(element) === true;
            case 'enabled': return !isDisabled(element);
            case 'editable': return isEditable(element);
            case 'focused': return element.getRootNode().activeElement === element;
            case 'empty': return element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement
              ? element.value === '' : normalize(elementText(element)) === '';
            case 'className': return element.getAttribute('class') ?? '';
          }
          throw new LocatorError('invalid-selector', 'unknown query ' + what);
        };
        // The value of `what` for every element, or the one (strict), now.
        const read = (steps, testId, what, argument, all) => {
          let elements;
          try { elements = resolve(steps, testId); }
          catch (error) { return { error: error.kind ?? 'invalid-selector', message: error.message }; }
          if (what === 'count') return { value: elements.length };
          try {
            if (all) return { value: elements.map(element => query(element, what, argument)) };
            if (elements.length > 1) return { error: 'strict', count: elements.length };
            if (elements.length === 0) return { missing: true };
            return { value: query(elements[0], what, argument) };
          } catch (error) {
            if (error instanceof LocatorError) return { error: error.kind, message: error.message };
            throw error;
          }
        };
        return { resolve, perform, read, query, nextChange, pointOf, armInput, guardHits, missedHit, eventClass, fill,
                 selectOption, setInputFiles, checkedState, isVisible };
        """#
}
