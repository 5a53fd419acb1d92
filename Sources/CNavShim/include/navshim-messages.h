// What navwatch's web process extension (web-extension/) sends to the shim:
// the one definition both ends use.
#ifndef NAVSHIM_MESSAGES_H
#define NAVSHIM_MESSAGES_H

/// A console message of the page: WebKitConsoleMessageSource,
/// WebKitConsoleMessageLevel, text, source URL (may be empty), line (0 when unknown).
#define NW_CONSOLE_MESSAGE_NAME "navwatch.console-message"
#define NW_CONSOLE_MESSAGE_FORMAT "(uussu)"
/// The source of a console call reported by the extension's wrapper (the
/// engine's own reports use WEBKIT_CONSOLE_MESSAGE_SOURCE_CONSOLE_API).
#define NW_CONSOLE_SOURCE_CALL 100
/// The source of the extension's report of a request it refused in a view
/// that sends only GET and HEAD requests: the text is "METHOD URL".
#define NW_CONSOLE_SOURCE_REFUSED_REQUEST 101
/// The extension's initialization data: whether its pages send only GET and
/// HEAD requests; the most resident memory, in MB, its web process may use
/// (0: no limit); the directory where it leaves a file named after each of
/// its pages' ids when it ends itself for using more (empty without a limit).
#define NW_EXTENSION_SETTINGS_FORMAT "(bus)"
/// The isolated script world of navwatch's document script, and the
/// property of its global object where the extension puts the id of the
/// page (webkit_web_page_get_id): the script posts it with every message, so
/// that the view a message is for is known when views share a content
/// manager (a popup shares its opener's).
#define NW_SCRIPT_WORLD "navwatch"
#define NW_PAGE_ID_PROPERTY "navwatchPage"
/// WEBKIT_CONSOLE_MESSAGE_SOURCE_CONSOLE_API (a web-extension-only enum).
#define NW_CONSOLE_SOURCE_ENGINE_CONSOLE_API 2

#endif
