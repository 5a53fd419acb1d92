extension LocatorEngine {
    /// The first part of the engine's body: the document's elements across
    /// open shadow roots, CSS selectors that cross them, text and its
    /// matching, ARIA roles and accessible names, and element states
    /// (visible, disabled, editable, checked).
    static let selectionSource = #"""
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

        """#
}
