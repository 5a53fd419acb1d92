import Foundation

/// navwatch's own script, run at document start in every top-level document
/// of every view, in a script world of its own: the page cannot see it,
/// replace what it calls, or post to its message handler.
///
/// It tells the view the document's title when the `load` event fires (its
/// listener is the first capturing one, so no page listener can stop it). WebKit
/// announces a new title (`notify::title`) only after it reports the load
/// finished, so without it a finished page would show the previous title.
/// The message crosses from the web process on the same connection as the
/// load events, ahead of the finish. It also lets Resource Timing keep every
/// request of the page (browsers keep 250 by default).
enum DocumentScript {
    static let world = "navwatch"
    static let messageHandler = "navwatch"
    static let source = """
        performance.setResourceTimingBufferSize(100000);
        addEventListener('load', () => {
          webkit.messageHandlers.\(messageHandler).postMessage(JSON.stringify({ title: document.title }));
        }, { capture: true, once: true });
        """

    /// What the script posts.
    struct Message: Decodable {
        var title: String?
    }

    /// Decodes a posted message; nil for anything else.
    static func decode(_ text: String) -> Message? {
        try? JSONDecoder().decode(Message.self, from: Data(text.utf8))
    }
}
