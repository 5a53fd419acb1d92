extension LocatorEngine {
    /// The second part of the engine's body: resolving a locator's steps,
    /// waiting for an element to be actionable, where the pointer lands and
    /// the guard on the first press, the actions (fill, select, files) and
    /// the reads; it ends with the engine's object.
    static let actionSource = #"""
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
          \#(InteractionScripts.watchSubmission)
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
