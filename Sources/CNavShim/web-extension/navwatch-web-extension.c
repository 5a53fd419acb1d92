// navwatch's web process extension: runs inside every web process of a
// navwatch web context and reports the page's console to the page's view,
// as user messages the shim receives (`user-message-received`, view.c).
//
// Two sources, because WebKit gives the client no console call of a page in
// an ephemeral session (navwatch's default):
// - Calls of `console` methods: each frame's `console` is wrapped, at
//   window-object-cleared (before any script of the document), by a function
//   that reports the call through a native function the page cannot reach,
//   then calls the original. Where the call came from is read from a stack
//   taken by builtins captured before the page ran, so a page cannot move it.
//   A page that replaces `console.log` only changes what its own calls do, as
//   it would in a browser.
// - What the engine reports itself (network, security, JavaScript):
//   `console-message-sent`. Its console-API messages (sent outside ephemeral
//   sessions) repeat the wrapper's; navwatch drops them in Swift.
//
// Built by the WebProcessExtension package plugin into a shared object that
// navwatch writes out at run time and hands to WebKit
// (webkit_web_context_set_web_extensions_directory); it is not part of the
// CNavShim target.
#include <webkit2/webkit-web-extension.h>

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "../include/navshim-messages.h"

static WebKitWebExtension *the_extension;
/// Whether the context's pages send only GET and HEAD requests (its initialization data).
static gboolean read_only_requests;
/// The most resident memory the process may use, in bytes; 0 for no limit.
static guint64 memory_limit;
/// Where the watchdog leaves a file per page id before it ends the process.
static char *marker_directory;
/// The ids of the process's pages, for the markers; guarded by pages_lock.
static GArray *page_ids;
static GMutex pages_lock;

static void send_console_message(WebKitWebPage *page, guint32 source, guint32 level, const char *text,
                                 const char *url, guint32 line) {
    GVariant *parameters = g_variant_new(NW_CONSOLE_MESSAGE_FORMAT, source, level, text ? text : "",
                                         url ? url : "", line);
    webkit_web_page_send_message_to_view(page, webkit_user_message_new(NW_CONSOLE_MESSAGE_NAME, parameters),
                                         NULL, NULL, NULL);
}

static void on_console_message(WebKitWebPage *page, WebKitConsoleMessage *message, gpointer user_data) {
    send_console_message(page, webkit_console_message_get_source(message), webkit_console_message_get_level(message),
                         webkit_console_message_get_text(message), webkit_console_message_get_source_id(message),
                         webkit_console_message_get_line(message));
}

// The wrapper's native end: (page id, level, text, url, line), all from the
// wrapper, which passes only numbers and strings.
static void on_console_call(GPtrArray *arguments, gpointer user_data) {
    if (arguments->len != 5) return;
    JSCValue **values = (JSCValue **)arguments->pdata;
    WebKitWebPage *page = webkit_web_extension_get_page(the_extension, (guint64)jsc_value_to_double(values[0]));
    if (!page) return;
    g_autofree char *text = jsc_value_to_string(values[2]);
    g_autofree char *url = jsc_value_to_string(values[3]);
    send_console_message(page, NW_CONSOLE_SOURCE_CALL, (guint32)jsc_value_to_int32(values[1]),
                         text, url, (guint32)jsc_value_to_int32(values[4]));
}

// Evaluated in the frame's main world before the document's scripts; called
// with the page id and the native reporter. Levels are WebKitConsoleMessageLevel's.
static const char wrap_console[] =
    "(function (page, report) {\n"
    "  const target = globalThis.console;\n"
    "  if (!target) return;\n"
    "  const apply = Reflect.apply, ErrorType = Error, toText = String, stringify = JSON.stringify;\n"
    "  const split = String.prototype.split, exec = RegExp.prototype.exec, join = Array.prototype.join;\n"
    "  const includes = String.prototype.includes, frame = /@(.+):(\\d+):(\\d+)$/;\n"
    "  const describe = value => {\n"
    "    if (typeof value === 'string') return value;\n"
    "    try {\n"
    "      if (value !== null && typeof value === 'object' && !(value instanceof ErrorType)) {\n"
    "        const json = stringify(value);\n"
    "        if (json !== undefined) return json;\n"
    "      }\n"
    "      return toText(value);\n"
    "    } catch (error) { return '[unprintable]'; }\n"
    "  };\n"
    "  const currentScript = Object.getOwnPropertyDescriptor(Document.prototype, 'currentScript').get;\n"
    "  const scriptSource = Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, 'src').get;\n"
    "  const documentURL = Object.getOwnPropertyDescriptor(Document.prototype, 'URL').get;\n"
    "  const caller = () => {\n"
    "    const lines = apply(split, toText(new ErrorType().stack || ''), ['\\n']);\n"
    "    for (let i = 0; i < lines.length; i++) {\n"
    "      if (apply(includes, lines[i], ['navwatch://'])) continue;\n"
    "      const match = apply(exec, frame, [lines[i]]);\n"
    "      if (match) return [match[1], +match[2]];\n"
    "    }\n"
    "    // JSC leaves the calling frame out of some stacks: the script running, if any.\n"
    "    const script = apply(currentScript, document, []);\n"
    "    if (!script) return ['', 0];\n"
    "    return [(script instanceof HTMLScriptElement && apply(scriptSource, script, [])) || apply(documentURL, document, []), 0];\n"
    "  };\n"
    "  const levels = { debug: 4, log: 1, info: 0, warn: 2, error: 3, trace: 1, dir: 1, dirxml: 1, table: 1 };\n"
    "  for (const name in levels) {\n"
    "    const original = target[name];\n"
    "    if (typeof original !== 'function') continue;\n"
    "    const level = levels[name];\n"
    "    target[name] = { [name](...args) {\n"
    "      const texts = [];\n"
    "      for (let i = 0; i < args.length; i++) texts[i] = describe(args[i]);\n"
    "      const [url, line] = caller();\n"
    "      report(page, level, apply(join, texts, [' ']), url, line);\n"
    "      return apply(original, this, args);\n"
    "    } }[name];\n"
    "  }\n"
    "  const assert = target.assert;\n"
    "  if (typeof assert === 'function') {\n"
    "    target.assert = { assert(condition, ...args) {\n"
    "      if (!condition) {\n"
    "        const texts = ['Assertion failed:'];\n"
    "        for (let i = 0; i < args.length; i++) texts[i + 1] = describe(args[i]);\n"
    "        const [url, line] = caller();\n"
    "        report(page, 3, apply(join, texts, [' ']), url, line);\n"
    "      }\n"
    "      return apply(assert, this, [condition, ...args]);\n"
    "    } }.assert;\n"
    "  }\n"
    "})";

static void on_window_object_cleared(WebKitScriptWorld *world, WebKitWebPage *page, WebKitFrame *frame,
                                     gpointer user_data) {
    g_autoptr(JSCContext) context = webkit_frame_get_js_context_for_script_world(frame, world);
    g_autoptr(JSCValue) wrap = jsc_context_evaluate_with_source_uri(context, wrap_console, -1, "navwatch://console", 1);
    g_autoptr(JSCValue) report = jsc_value_new_function_variadic(context, "report", G_CALLBACK(on_console_call), NULL,
                                                                 NULL, G_TYPE_NONE);
    g_autoptr(JSCValue) page_id = jsc_value_new_number(context, (double)webkit_web_page_get_id(page));
    g_autoptr(JSCValue) result = jsc_value_function_call(wrap, JSC_TYPE_VALUE, page_id, JSC_TYPE_VALUE, report,
                                                         G_TYPE_NONE);
    jsc_context_clear_exception(context);
}

// navwatch's own world: its document script learns the page's id.
static void on_navwatch_world_cleared(WebKitScriptWorld *world, WebKitWebPage *page, WebKitFrame *frame,
                                      gpointer user_data) {
    if (!webkit_frame_is_main_frame(frame)) return;
    g_autoptr(JSCContext) context = webkit_frame_get_js_context_for_script_world(frame, world);
    g_autoptr(JSCValue) page_id = jsc_value_new_number(context, (double)webkit_web_page_get_id(page));
    jsc_context_set_value(context, NW_PAGE_ID_PROPERTY, page_id);
}

// In a read-only context, every request the page makes passes here before
// it leaves the web process (documents, subresources, fetch, XHR, beacons,
// pings): one whose method is not GET or HEAD is cancelled and reported to the view.
static gboolean on_send_request(WebKitWebPage *page, WebKitURIRequest *request, WebKitURIResponse *redirected_response,
                                gpointer user_data) {
    const char *uri = webkit_uri_request_get_uri(request);
    const char *method = webkit_uri_request_get_http_method(request);
    if (!method || g_ascii_strcasecmp(method, "GET") == 0 || g_ascii_strcasecmp(method, "HEAD") == 0) return FALSE;
    g_autofree char *text = g_strdup_printf("%s %s", method, uri ? uri : "");
    // No source URL: a network message naming the page's own URL is taken for the page's load failing.
    send_console_message(page, NW_CONSOLE_SOURCE_REFUSED_REQUEST, WEBKIT_CONSOLE_MESSAGE_LEVEL_ERROR, text, "", 0);
    return TRUE;
}

// MARK: - The memory watchdog

static guint64 resident_bytes(void) {
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm) return 0;
    unsigned long size = 0, resident = 0;
    int read = fscanf(statm, "%lu %lu", &size, &resident);
    fclose(statm);
    return read == 2 ? (guint64)resident * (guint64)sysconf(_SC_PAGESIZE) : 0;
}

// A thread of its own, so that a main thread busy parsing an endless page
// cannot hold it back: twenty times a second, the process's resident memory;
// past the limit, a marker for each page, then the end of the process.
static gpointer watch_memory(gpointer data) {
    for (;;) {
        g_usleep(G_USEC_PER_SEC / 20);
        if (resident_bytes() <= memory_limit) continue;
        g_mutex_lock(&pages_lock);
        for (guint i = 0; i < page_ids->len; i++) {
            char name[32];
            g_snprintf(name, sizeof name, "%" G_GUINT64_FORMAT, g_array_index(page_ids, guint64, i));
            g_autofree char *path = g_build_filename(marker_directory, name, NULL);
            g_file_set_contents(path, "", 0, NULL);
        }
        g_mutex_unlock(&pages_lock);
        kill(getpid(), SIGKILL);
    }
    return NULL;
}

static void forget_page(gpointer data, GObject *page) {
    guint64 id = (guint64)(guintptr)data;
    g_mutex_lock(&pages_lock);
    for (guint i = 0; i < page_ids->len; i++) {
        if (g_array_index(page_ids, guint64, i) == id) {
            g_array_remove_index_fast(page_ids, i);
            break;
        }
    }
    g_mutex_unlock(&pages_lock);
}

// MARK: - Pages

static void on_page_created(WebKitWebExtension *extension, WebKitWebPage *page, gpointer user_data) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    g_signal_connect(page, "console-message-sent", G_CALLBACK(on_console_message), NULL);
    G_GNUC_END_IGNORE_DEPRECATIONS
    if (read_only_requests) g_signal_connect(page, "send-request", G_CALLBACK(on_send_request), NULL);
    if (memory_limit) {
        guint64 id = webkit_web_page_get_id(page);
        g_mutex_lock(&pages_lock);
        g_array_append_val(page_ids, id);
        g_mutex_unlock(&pages_lock);
        g_object_weak_ref(G_OBJECT(page), forget_page, (gpointer)(guintptr)id);
    }
}

G_MODULE_EXPORT void webkit_web_extension_initialize_with_user_data(WebKitWebExtension *extension, GVariant *user_data) {
    the_extension = extension;
    guint32 limit_mb = 0;
    if (user_data && g_variant_is_of_type(user_data, G_VARIANT_TYPE(NW_EXTENSION_SETTINGS_FORMAT))) {
        g_variant_get(user_data, NW_EXTENSION_SETTINGS_FORMAT, &read_only_requests, &limit_mb, &marker_directory);
    }
    if (limit_mb > 0 && marker_directory && *marker_directory) {
        memory_limit = (guint64)limit_mb << 20;
        page_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
        g_thread_unref(g_thread_new("navwatch-memory", watch_memory, NULL));
    }
    g_signal_connect(extension, "page-created", G_CALLBACK(on_page_created), NULL);
    g_signal_connect(webkit_script_world_get_default(), "window-object-cleared", G_CALLBACK(on_window_object_cleared),
                     NULL);
    // Named: the same world as the user content manager's scripts for that name. Kept for the process's life.
    g_signal_connect(webkit_script_world_new_with_name(NW_SCRIPT_WORLD), "window-object-cleared",
                     G_CALLBACK(on_navwatch_world_cleared), NULL);
}
