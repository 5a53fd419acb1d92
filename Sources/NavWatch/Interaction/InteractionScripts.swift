import Foundation
import NavWatchSupport

/// The scripts behind `WebView`'s interaction methods, each the body of an
/// async function. They answer an `Answer` object; `error` names a failure
/// (`no-match`, `invalid-selector`, `not-interactable`, with `message`).
enum InteractionScripts {
    struct Answer: Decodable {
        var error: String?
        var message: String?
        var x: Double?
        var y: Double?
        var found: Bool?
        var thrown: String?
    }

    /// Finds the element, or answers why not.
    private static func find(_ selector: String) -> String {
        """
        let element;
        try { element = document.querySelector(\(JavaScriptValue.literal(selector))); }
        catch (error) { return { error: 'invalid-selector', message: String(error && error.message) }; }
        if (!element) return { error: 'no-match' };
        """
    }

    /// Resolves `navwatchInputHandled` two tasks after the next `event` on the
    /// window: by then the input's default action has run and a navigation it
    /// scheduled has been asked for.
    static func arm(_ event: String) -> String {
        armStatement(event) + "\nreturn {};"
    }

    private static func armStatement(_ event: String) -> String {
        """
        \(watchSubmission)
        window.navwatchInputHandled = new Promise(resolve => addEventListener(\(JavaScriptValue.literal(event)),
          () => setTimeout(() => setTimeout(resolve, 0), 0), { capture: true, once: true }));
        """
    }

    /// Notes a form's submission from now on (one listener per page): WebKit
    /// asks about its navigation only once the UI process has seen the
    /// submission, which can come after the input has been handled.
    static let watchSubmission = """
        window.navwatchSubmission = null;
        if (!window.navwatchWatchesSubmissions) {
          window.navwatchWatchesSubmissions = true;
          addEventListener('submit', event => { window.navwatchSubmission = event; }, true);
        }
        """

    /// Answers once the input has been handled: whether it submitted a form (a submission not prevented).
    static let inputHandled = """
        await window.navwatchInputHandled;
        const submission = window.navwatchSubmission;
        return !!(submission && !submission.defaultPrevented);
        """

    /// Scrolls the element into view and answers the viewport point at its
    /// centre, if that point hits it; arms `inputHandled` for `event`.
    static func locate(_ selector: String, arming event: String) -> String {
        """
        \(find(selector))
        element.scrollIntoView({ block: 'center', inline: 'center' });
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) return { error: 'not-interactable', message: 'it is not displayed' };
        const x = box.left + box.width / 2, y = box.top + box.height / 2;
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight)
          return { error: 'not-interactable', message: 'it lies outside the viewport' };
        const hit = document.elementFromPoint(x, y);
        if (hit !== element && !element.contains(hit)) {
          const name = hit ? hit.localName + (hit.id ? '#' + hit.id : '') : 'nothing';
          return { error: 'not-interactable', message: 'another element is on top of it (' + name + ')' };
        }
        if (element.disabled) return { error: 'not-interactable', message: 'it is disabled' };
        \(armStatement(event))
        return { x, y };
        """
    }

    static func fill(_ selector: String, text: String) -> String {
        """
        \(find(selector))
        const text = \(JavaScriptValue.literal(text));
        const isField = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement;
        if (!isField && !element.isContentEditable) return { error: 'not-interactable', message: 'it is not a text field' };
        if (element.disabled) return { error: 'not-interactable', message: 'it is disabled' };
        if (element.readOnly) return { error: 'not-interactable', message: 'it is read-only' };
        element.focus();
        if (isField && typeof element.select === 'function') element.select();
        else document.execCommand('selectAll');
        if (text === '') document.execCommand('delete');
        else document.execCommand('insertText', false, text);
        if (isField && element.value !== text) {  // a field that takes no typed text
          element.value = text;
          element.dispatchEvent(new Event('input', { bubbles: true }));
          element.dispatchEvent(new Event('change', { bubbles: true }));
        }
        return {};
        """
    }

    static func submit(_ selector: String) -> String {
        """
        \(find(selector))
        const form = element instanceof HTMLFormElement ? element : element.form;
        if (!form) return { error: 'not-interactable', message: 'it is not a form or in one' };
        \(watchSubmission)
        form.requestSubmit();
        // After the submission is planned, so that its navigation is asked for first.
        window.navwatchInputHandled = new Promise(resolve => setTimeout(() => setTimeout(resolve, 0), 0));
        return {};
        """
    }

    static func waitForSelector(_ selector: String, timeout: Duration) -> String {
        """
        const selector = \(JavaScriptValue.literal(selector));
        try { if (document.querySelector(selector)) return { found: true }; }
        catch (error) { return { error: 'invalid-selector', message: String(error && error.message) }; }
        return await new Promise(resolve => {
          const timer = setTimeout(() => { observer.disconnect(); resolve({ found: false }); }, \(milliseconds(timeout)));
          const observer = new MutationObserver(() => {
            if (!document.querySelector(selector)) return;
            observer.disconnect();
            clearTimeout(timer);
            resolve({ found: true });
          });
          observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
        });
        """
    }

    /// Runs in the page's world: captures what it uses before the predicate runs.
    static func waitForPredicate(_ predicate: String, timeout: Duration) -> String {
        """
        const Observer = MutationObserver, later = setTimeout, cancel = clearTimeout;
        const check = () => Boolean((
        \(predicate)
        ));
        try { if (check()) return { found: true }; } catch (error) { return { thrown: String(error) }; }
        return await new Promise(resolve => {
          const timer = later(() => { observer.disconnect(); resolve({ found: false }); }, \(milliseconds(timeout)));
          const observer = new Observer(() => {
            let answer;
            try { if (!check()) return; answer = { found: true }; } catch (error) { answer = { thrown: String(error) }; }
            observer.disconnect();
            cancel(timer);
            resolve(answer);
          });
          observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
        });
        """
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int((duration.seconds * 1000).rounded())
    }
}
