// navshim: a flat C layer between WebKitGTK 4.1 and Swift.
//
// Why it exists: GObject signal wiring (g_signal_connect, G_CALLBACK, the type
// cast macros) does not import into Swift. This shim connects every signal
// navwatch needs and forwards each one as plain C data to one of four
// callbacks. It converts and forwards; it makes no decision of its own.
//
// Threading: every function here must be called on the thread that called
// nw_runtime_init (the WebKit thread), except nw_runtime_enqueue, which may be
// called from any thread. Every callback is invoked on the WebKit thread.
//
// Ownership: strings passed to callbacks are borrowed (transfer none) and live
// only for the duration of the call. Functions returning `char *` return
// memory the caller frees with nw_free.
//
// Nullability: every pointer is non-null unless it is marked _Nullable.
#ifndef NAVSHIM_H
#define NAVSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

// MARK: - Runtime: display, GTK, main loop

/// Starts `Xvfb -displayfd ... -nolisten tcp` on a free display number.
/// The child gets SIGTERM when the calling thread exits (PR_SET_PDEATHSIG).
/// Returns the display number (>= 0) and stores the child's pid in `out_pid`,
/// or returns -1 and stores a message (transfer full, nullable) in `out_error`.
int nw_xvfb_start(const char *xvfb_path, int *out_pid, char *_Nullable *_Nonnull out_error);

/// Sends SIGTERM to the Xvfb started by nw_xvfb_start and reaps it.
void nw_xvfb_stop(int pid);

/// Sets WebKit's environment knobs and calls gtk_init_check. Returns 1 on
/// success; on failure returns 0 and stores a message (transfer full) in
/// `out_error`. The calling thread becomes the WebKit thread, named
/// `navwatch-webkit`.
int nw_runtime_init(char *_Nullable *_Nonnull out_error);

/// Runs the default GLib main loop on the WebKit thread. Never returns.
void nw_runtime_run(void);

/// Schedules `job(data)` on the WebKit thread's main loop, after the jobs and
/// events already pending. Safe from any thread; never runs `job` inline.
/// `data` is passed through untouched.
void nw_runtime_enqueue(void (*job)(void *_Nullable data), void *_Nullable data);

/// The calling thread's kernel id (gettid), to tell the WebKit thread apart.
int nw_current_thread_id(void);
/// CLOCK_MONOTONIC in nanoseconds, the clock of `nw_event.signal_time_ns`.
uint64_t nw_monotonic_ns(void);

/// Frees memory returned by this shim.
void nw_free(void *_Nullable pointer);

// MARK: - Web contexts

/// An opaque WebKitWebContext (one network process, one cookie store).
typedef struct nw_context nw_context;

/// WebKitCacheModel, chosen by the caller.
typedef enum {
    NW_CACHE_MODEL_DOCUMENT_VIEWER = 0,
    NW_CACHE_MODEL_WEB_BROWSER = 1,
    NW_CACHE_MODEL_DOCUMENT_BROWSER = 2,
} nw_cache_model;

/// Whether WebKit's web process sandbox can start here: this WebKit runs
/// bubblewrap from the fixed path `bubblewrap_path` and aborts the whole
/// process when it cannot. Runs bubblewrap once with the namespaces WebKit
/// asks for. Returns 1, or 0 with a message (transfer full) in `out_error`.
int nw_sandbox_check(const char *bubblewrap_path, char *_Nullable *_Nonnull out_error);

/// Creates a context. `data_directory` is ignored when `ephemeral` is 1.
/// `sandboxed` 1 runs its web processes inside bubblewrap (the caller checks
/// first that bubblewrap can start). `proxy_uri` (nullable): every request of
/// its network process goes through this HTTP proxy, loopback included.
/// `extensions_directory` (nullable): a directory holding only navwatch's web
/// process extension, which every web process of the context loads; its
/// console messages arrive as NW_EVENT_CONSOLE_MESSAGE.
/// `read_only_requests` 1 makes every web process of the context refuse any
/// request whose method is not GET or HEAD (reported as a console message of
/// source NW_CONSOLE_SOURCE_REFUSED_REQUEST); it needs the extension.
/// `memory_limit_mb` > 0: a web process of the context whose resident memory
/// passes this many MB ends itself (checked ten times a second by a thread
/// of the extension, whatever its main thread is doing), and its views get
/// NW_EVENT_WEB_PROCESS_TERMINATED with WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT;
/// 0: no limit. Both need the extension.
/// `time_zone` (an IANA name), when not NULL, is the time zone the context's
/// pages' `Date` and `Intl` use. (No locale: WebKit keeps one preferred
/// language list per process, which the last context to set it changes for all.)
/// Transfer full: a context the caller no longer needs is given to
/// nw_context_free (views made with it keep what they use alive).
nw_context *nw_context_new(int ephemeral, const char *_Nullable data_directory, int ignore_tls_errors,
                           nw_cache_model cache_model, int sandboxed, const char *_Nullable proxy_uri,
                           const char *_Nullable extensions_directory, int read_only_requests,
                           unsigned memory_limit_mb, const char *_Nullable time_zone);

/// Lets go of `context`: the views made with it and their popups keep it
/// alive until they are destroyed; then its network and web processes end.
void nw_context_free(nw_context *context);

// MARK: - Events

typedef enum {
    NW_EVENT_LOAD_STARTED,
    NW_EVENT_LOAD_REDIRECTED,
    NW_EVENT_LOAD_COMMITTED,      // `response`: the main resource's response, when there is one
    NW_EVENT_LOAD_FINISHED,
    NW_EVENT_LOAD_FAILED,         // `uri`: failing URI; `error_*`
    NW_EVENT_LOAD_FAILED_TLS,     // `uri`: failing URI
    NW_EVENT_WEB_PROCESS_TERMINATED, // `termination_reason`: WebKitWebProcessTerminationReason
    NW_EVENT_URI_CHANGED,         // `uri`
    NW_EVENT_HISTORY_CHANGED,     // the back-forward list changed: `history_item_added`, `uri` (its current item's)
    NW_EVENT_TITLE_CHANGED,       // `title` (nullable)
    NW_EVENT_PROGRESS_CHANGED,    // `progress`
    NW_EVENT_LOADING_CHANGED,     // `is_loading`
    NW_EVENT_RESOURCE_STARTED,    // `resource_id`, `uri`, `is_main_resource`, `method`, `request_header_*`
    NW_EVENT_RESOURCE_REDIRECTED, // `resource_id`, `uri` (new request), `response` (the redirect)
    NW_EVENT_RESOURCE_FINISHED,   // `resource_id`, `uri`, `response` (nullable)
    NW_EVENT_RESOURCE_FAILED,     // `resource_id`, `uri`, `error_*`
    NW_EVENT_NEW_WINDOW,          // `create`: `uri`, `frame_name`, `is_user_gesture`; no window is created
    NW_EVENT_SCRIPT_MESSAGE,      // `message`: what the settings' `document_script` posted, as a string
    NW_EVENT_CONSOLE_MESSAGE,     // from the web process extension: `console_source`, `console_level`,
                                  // `message` (text), `uri` (source URL, may be empty), `line` (0: unknown)
} nw_event_kind;

/// A response; every pointer is borrowed for the duration of the callback.
typedef struct {
    const char *_Nullable uri;
    unsigned status;
    const char *_Nullable mime;
    int64_t content_length;                    // -1 when unknown
    const char *_Nullable suggested_filename;
    const char *_Nonnull const *_Nullable header_names;   // `header_count` entries
    const char *_Nonnull const *_Nullable header_values;
    size_t header_count;
} nw_response;

/// One forwarded signal; every pointer is borrowed for the duration of the callback.
typedef struct {
    nw_event_kind kind;
    const char *_Nullable uri;
    const nw_response *_Nullable response;
    const char *_Nullable error_domain;        // g_quark_to_string of the GError domain
    int error_code;
    const char *_Nullable error_message;
    int termination_reason;
    const char *_Nullable title;
    double progress;
    int is_loading;
    uint64_t resource_id;
    int is_main_resource;
    const char *_Nullable method;
    const char *_Nullable frame_name;
    int is_user_gesture;
    const char *_Nullable message;
    int console_source;               // WebKitConsoleMessageSource
    int console_level;                // WebKitConsoleMessageLevel
    unsigned line;
    int history_item_added;           // 1 when the change added an item, 0 when the current item only moved
    const char *_Nonnull const *_Nullable request_header_names;   // `request_header_count` entries
    const char *_Nonnull const *_Nullable request_header_values;
    size_t request_header_count;
    uint64_t signal_time_ns;          // nw_monotonic_ns() when the signal reached the shim
} nw_event;

// MARK: - Policy decisions

typedef enum {
    NW_POLICY_NAVIGATION_ACTION,
    NW_POLICY_NEW_WINDOW_ACTION,
    NW_POLICY_RESPONSE,
} nw_policy_kind;

/// An undecided WebKitPolicyDecision. The callee owns one reference and must
/// pass it exactly once to nw_decision_use, _ignore or _download, on the
/// WebKit thread.
typedef struct nw_decision nw_decision;

/// One decide-policy; the strings and the response are borrowed for the
/// duration of the callback.
typedef struct {
    nw_policy_kind kind;
    nw_decision *decision;                     // transfer full
    const char *_Nullable uri;                 // the request's URI
    const char *_Nullable method;
    int navigation_type;                       // WebKitNavigationType (actions only)
    int is_redirect;
    int is_user_gesture;
    const char *_Nullable frame_name;          // the target frame (new-window actions)
    const nw_response *_Nullable response;     // RESPONSE only
    int is_mime_type_supported;                // RESPONSE only
    int is_main_frame_main_resource;           // RESPONSE only
} nw_policy;

/// Answer a decision and drop the reference the callee owned (transfer full).
void nw_decision_use(nw_decision *decision);
void nw_decision_ignore(nw_decision *decision);
/// Lets WebKit download the response (it starts a download, see `download_destination`).
void nw_decision_download(nw_decision *decision);

// MARK: - Script dialogs

/// A script dialog; the strings are borrowed for the duration of the callback.
typedef struct {
    int type;                                  // WebKitScriptDialogType
    const char *_Nullable message;
    const char *_Nullable default_text;        // prompt only
} nw_dialog;

/// The callee's answer; the shim starts it zeroed and applies it as given.
typedef struct {
    int confirmed;                             // confirm, prompt, before-unload: 1 accepts
    char *_Nullable text;                      // prompt: the text to return; transfer full
                                               // (allocated with malloc, freed by the shim)
} nw_dialog_reply;

// MARK: - Content filters

/// An opaque compiled WebKitUserContentFilter.
typedef struct nw_content_filter nw_content_filter;

/// Compiles `rules_json` (WebKit's content-blocker rules: a JSON array of
/// trigger/action objects) into the filter store at `store_directory` under
/// `identifier`, then calls `done` on the WebKit thread with the filter
/// (transfer full; filters live as long as the process) or NULL and a
/// message (borrowed for the call). Call on the WebKit thread.
void nw_content_filter_compile(const char *store_directory, const char *identifier, const char *rules_json,
                               void (*done)(void *_Nullable user_data, nw_content_filter *_Nullable filter,
                                            const char *_Nullable error),
                               void *_Nullable user_data);

// MARK: - Views

typedef struct nw_view nw_view;

typedef struct {
    /// Called for every forwarded signal.
    void (*event)(void *context, const nw_event *event);
    /// Called for every decide-policy; the decision is owned by the callee.
    void (*policy)(void *context, const nw_policy *policy);
    /// Called for every script-dialog; fill `reply` before returning.
    void (*dialog)(void *context, const nw_dialog *dialog, nw_dialog_reply *reply);
    /// Called after the NW_EVENT_NEW_WINDOW event of a window the page asks
    /// for: a view made with the asking view as `related` opens it; NULL refuses it.
    nw_view *_Nullable (*_Nonnull popup)(void *context, const nw_event *request);
    /// Called when a download of the view (`id`, unique while it lasts) knows
    /// its suggested file name: return the absolute path to write it to
    /// (malloc'd, taken by the shim) or NULL to cancel it. `download_ended`
    /// follows either way, once.
    char *_Nullable (*_Nonnull download_destination)(void *context, uint64_t id, const char *uri,
                                                     const char *suggested_filename);
    /// Download `id` ended: written to `destination` when `error` is NULL.
    void (*_Nonnull download_ended)(void *context, uint64_t id, const char *uri, const char *_Nullable destination,
                                    const char *_Nullable error);
    /// The page called `window.close()` and WebKit lets it (`close`: a window
    /// a script opened, or one whose history has one entry). The view is not destroyed
    /// here: the callee destroys it later, never from inside the call.
    void (*_Nonnull close_requested)(void *context);
    /// Called once, from nw_view_destroy, after every handler is disconnected.
    void (*release)(void *context);
} nw_callbacks;

/// How the view is set up. The strings are copied by nw_view_new.
typedef struct {
    const char *_Nullable user_agent;          // NULL: WebKit's default
    int javascript_markup_enabled;             // the page's own scripts; scripts of the API always run
    int images_enabled;
    int can_open_windows_automatically;        // window.open without a gesture reaches decide-policy
    int show_error_pages;                      // 0: load-failed is handled, WebKit loads no error page
    int width, height;                         // the offscreen window's size
    int scale_factor;                          // the window's scale (devicePixelRatio); 0 or 1: 1
    /// A script run in every top-level document at document start, in the
    /// isolated script world `script_world`, where `message_handler` is a
    /// script message handler (`webkit.messageHandlers[message_handler]`)
    /// whose messages arrive as NW_EVENT_SCRIPT_MESSAGE. All three or none.
    const char *_Nullable document_script;
    const char *_Nullable script_world;
    const char *_Nullable message_handler;
    /// Applied to every load of the view: requests it blocks are never made.
    nw_content_filter *_Nullable content_filter;
} nw_settings;

/// Creates an offscreen window holding a web view that uses `context`, applies
/// `settings` and connects every signal. With `related`, the view shares that
/// view's web process (WebKit's related view; `context` must be its context).
/// `user_context` is retained by the caller on behalf of the view until
/// `callbacks->release` is called.
nw_view *nw_view_new(nw_context *context, nw_view *_Nullable related, const nw_settings *settings,
                     nw_callbacks callbacks, void *user_context);

/// Disconnects every handler (the view's and its resources'), cancels
/// pending script evaluations, destroys the window and the view, then calls
/// `release`. No event, policy or dialog callback is invoked after this
/// returns; a cancelled evaluation's `done` still arrives later.
void nw_view_destroy(nw_view *view);
/// The id of the view's page in its web process (webkit_web_view_get_page_id).
uint64_t nw_view_page_id(nw_view *view);
/// Cancels the view's download `id` if it has not ended (its `download_ended` follows).
void nw_view_cancel_download(nw_view *view, uint64_t id);

void nw_view_load_uri(nw_view *view, const char *uri);
void nw_view_load_html(nw_view *view, const char *html, const char *_Nullable base_uri);
void nw_view_stop(nw_view *view);
void nw_view_reload(nw_view *view);
/// Goes one step back in the view's history, as the Back button does;
/// 0 when there is no step back (nothing is done), 1 otherwise.
int nw_view_go_back(nw_view *view);
/// Goes one step forward in the view's history; 0 when there is none.
int nw_view_go_forward(nw_view *view);
void nw_view_terminate_web_process(nw_view *view);
/// NULL restores WebKit's default.
void nw_view_set_user_agent(nw_view *view, const char *_Nullable user_agent);
void nw_view_set_javascript_markup_enabled(nw_view *view, int enabled);

// MARK: - JavaScript

typedef enum {
    NW_JS_UNDEFINED, NW_JS_NULL, NW_JS_BOOLEAN, NW_JS_NUMBER, NW_JS_STRING,
    NW_JS_ARRAY, NW_JS_OBJECT, NW_JS_ERROR,
} nw_js_type;

/// `json` is the result as JSON (NULL when it cannot be serialised or on
/// error); on NW_JS_ERROR the `error_*` fields describe the GError. Borrowed
/// for the duration of the callback.
typedef struct {
    nw_js_type type;
    const char *_Nullable json;
    const char *_Nullable error_domain;
    int error_code;
    const char *_Nullable error_message;
} nw_js_result;

typedef struct nw_evaluation nw_evaluation;

/// Evaluates `script` in the main frame. `done` is called exactly once, on
/// the WebKit thread, also when the evaluation is cancelled or the view is
/// destroyed. The returned handle (transfer full) may be cancelled with
/// nw_evaluation_cancel and must be released with nw_evaluation_free.
nw_evaluation *nw_view_evaluate(nw_view *view, const char *script,
                                void (*done)(void *_Nullable context, const nw_js_result *result),
                                void *_Nullable context);
/// Runs `body` as the body of an async function in the main frame, in the
/// script world `world` (NULL: the page's own) and answers with the value its
/// promise settles to; otherwise as nw_view_evaluate.
nw_evaluation *nw_view_call_async(nw_view *view, const char *body, const char *_Nullable world,
                                  void (*done)(void *_Nullable context, const nw_js_result *result),
                                  void *_Nullable context);
void nw_evaluation_cancel(nw_evaluation *evaluation);
void nw_evaluation_free(nw_evaluation *evaluation);

// MARK: - Input

/// Sends a left-button click at (`x`, `y`) in the view's coordinates (CSS
/// pixels of the viewport): pointer motion, press and release, as the window
/// system would deliver them, so the page sees trusted events.
void nw_view_send_click(nw_view *view, double x, double y);

/// Modifier keys held during `nw_view_send_pointer` and `nw_view_send_key_chord`.
#define NW_MODIFIER_SHIFT 1u
#define NW_MODIFIER_CONTROL 2u
#define NW_MODIFIER_ALT 4u
#define NW_MODIFIER_META 8u

/// Moves the pointer to (`x`, `y`) in the view and clicks button 1 there
/// `clicks` times (0: only moves; 2: a double click), holding `modifiers`
/// (NW_MODIFIER_* bits). Each call is a gesture of its own: WebKit never
/// counts the clicks of two calls as one double click.
void nw_view_send_pointer(nw_view *view, double x, double y, int clicks, unsigned modifiers);

/// Sends a key press and release of `keyval` (a GDK keyval) to the view.
void nw_view_send_key(nw_view *view, unsigned keyval);

/// Presses `modifiers` (NW_MODIFIER_* bits, in the order shift, control,
/// alt, meta), presses and releases `keyval` with them held, and releases
/// them in reverse order.
void nw_view_send_key_chord(nw_view *view, unsigned keyval, unsigned modifiers);

/// The GDK keyval of a key name (`Return`, `Tab`, `Left`...), 0 when unknown.
unsigned nw_keyval_from_name(const char *name);
/// The GDK keyval that types the Unicode character `character`.
unsigned nw_keyval_from_unicode(uint32_t character);

// MARK: - Screenshots

/// How `nw_view_snapshot` encodes its picture.
typedef enum {
    NW_IMAGE_PNG = 0,
    NW_IMAGE_JPEG = 1,
} nw_image_type;

/// Takes a picture of the view's visible area (its viewport), or of the
/// whole document when `full_document` is 1, in memory: scaled down
/// (bilinear) to `max_width` pixels wide when it is wider (0: not scaled),
/// encoded as `type` (`quality` 1-100 for JPEG) on one of GLib's worker
/// threads. `done` is called exactly once, on the WebKit thread, with the
/// image's bytes (borrowed for the call) or an error message; also when the
/// view is destroyed first.
void nw_view_snapshot(nw_view *view, int full_document, int max_width, nw_image_type type, int quality,
                      void (*done)(void *_Nullable context, const unsigned char *_Nullable bytes, size_t length,
                                   const char *_Nullable error),
                      void *_Nullable context);

// MARK: - Preferences of the process (preferences.c)

/// The colour scheme pages see (`prefers-color-scheme`).
typedef enum {
    NW_COLOR_SCHEME_SYSTEM = 0,   // GTK's own settings, as they were before any change
    NW_COLOR_SCHEME_LIGHT,
    NW_COLOR_SCHEME_DARK,
} nw_color_scheme;

/// Sets the colour scheme of every page of every view of the process, at
/// once (WebKitGTK reads it from GTK's settings, which the process shares).
void nw_set_color_scheme(nw_color_scheme scheme);

/// `prefers-reduced-motion` of every page of the process, at once: 1
/// `reduce`, 0 `no-preference`, -1 GTK's own setting as it was.
void nw_set_reduced_motion(int reduce);

/// The language WebKit gives pages when none is set (`en-US` under the C
/// locale); free it with nw_free.
char *nw_default_language(void);

/// The one preferred language (`de-DE`) of every view of the process:
/// `navigator.language` and `Intl` of the documents loaded after, and the
/// `Accept-Language` of the requests made after.
void nw_set_preferred_language(const char *language);

/// The scale factor (`devicePixelRatio`) of the next view nw_view_new
/// makes (nw_view_new calls it): a web view keeps the display's scale of
/// when it was made. 1 leaves the display's own (GDK_SCALE) until a scale
/// other than 1 was asked for.
void nw_prepare_window_scale(int scale);

// MARK: - Interception (interception.c)

/// Sends every later request of the view's website data manager (so of
/// every view of its context) through the HTTP proxy at `proxy_uri`
/// (`http://127.0.0.1:PORT`), loopback hosts included; NULL: straight to
/// the network. Requests already on the network finish as they started.
void nw_view_set_proxy(nw_view *view, const char *_Nullable proxy_uri);

/// Makes the view's context accept `certificate_pem` (one PEM certificate)
/// for `host` (a name or IP address, as in URLs, without brackets) however
/// it fails to validate. NULL on success, else why (free it with nw_free).
char *_Nullable nw_view_allow_certificate(nw_view *view, const char *certificate_pem, const char *host);

// MARK: - Cookies and storage (cookies.c)

/// One cookie, as libsoup has it. Strings are borrowed.
typedef struct {
    const char *name;
    const char *value;
    /// A leading dot for a cookie of the domain and its subdomains; none for one host's.
    const char *domain;
    const char *path;
    /// Seconds since 1970-01-01 UTC; -1 for a cookie of the session.
    double expires;
    int http_only;
    int secure;
    /// SoupSameSitePolicy: 0 None, 1 Lax, 2 Strict.
    int same_site;
} nw_cookie;

/// Calls `done` exactly once, on the WebKit thread, with every cookie of the
/// view's storage (borrowed for the call), or with an error message; also
/// when the view is destroyed first.
void nw_view_get_cookies(nw_view *view,
                         void (*done)(void *_Nullable context, const nw_cookie *_Nullable cookies, size_t count,
                                      const char *_Nullable error),
                         void *_Nullable context);

/// Adds `cookies` (copied) to the view's storage, replacing those of the same
/// name, domain and path; `done` as for nw_view_get_cookies, with NULL on success.
void nw_view_add_cookies(nw_view *view, const nw_cookie *_Nullable cookies, size_t count,
                         void (*done)(void *_Nullable context, const char *_Nullable error), void *_Nullable context);

/// Removes every cookie of the view's storage; `done` as for nw_view_add_cookies.
void nw_view_clear_cookies(nw_view *view, void (*done)(void *_Nullable context, const char *_Nullable error),
                           void *_Nullable context);

/// A script of the page's own world that runs at the start of every top
/// frame document of the view, before the page's scripts, until removed.
typedef struct nw_user_script nw_user_script;

/// Adds `source` as such a script. Transfer full: give it to nw_view_remove_script.
nw_user_script *nw_view_add_script(nw_view *view, const char *source);

/// Stops `script` running in the view's next documents and frees it.
void nw_view_remove_script(nw_view *view, nw_user_script *script);

// MARK: - Images (screenshots compared by navwatch diff)

/// 32-bit pixels in memory: premultiplied ARGB in native byte order, rows
/// `stride` bytes apart. Plain memory, usable from any thread.
typedef struct nw_image nw_image;

/// Reads the PNG file at `path`; NULL when it cannot, with `*error` set to a
/// message the caller frees with free().
nw_image *_Nullable nw_image_read_png(const char *path, char *_Nullable *_Nonnull error);
/// A transparent image of `width` x `height` pixels; NULL when it cannot be made.
nw_image *_Nullable nw_image_new(int width, int height);
int nw_image_width(const nw_image *image);
int nw_image_height(const nw_image *image);
/// Bytes from one row to the next.
int nw_image_stride(const nw_image *image);
unsigned char *nw_image_data(nw_image *image);
/// Writes the image to `path` as PNG; NULL on success, else a message the caller frees with free().
char *_Nullable nw_image_write_png(nw_image *image, const char *path);
void nw_image_free(nw_image *_Nullable image);

// MARK: - Accounting (for leak tests)

typedef struct {
    long views;             // nw_view objects alive
    long signal_handlers;   // handlers connected by the shim and not yet disconnected
    long user_contexts;     // user contexts not yet released
    long tracked_resources; // resources whose signals are still connected
    long evaluations;       // JavaScript evaluations and calls not yet freed
    long decisions;         // policy decisions handed to Swift and not yet answered
    long downloads;         // downloads not yet ended
    long web_contexts;      // WebKitWebContexts made by nw_context_new and not yet finalized
} nw_stats;

nw_stats nw_stats_get(void);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
