// navshim-private.h: what the shim's files share and Swift never sees:
// the objects behind the opaque handles of navshim.h, the live-object
// counters of nw_stats_get, and the view's conversions and event emitters.
#ifndef NAVSHIM_PRIVATE_H
#define NAVSHIM_PRIVATE_H

#include "navshim.h"

#include <webkit2/webkit2.h>

// MARK: - Objects

struct nw_context {
    WebKitWebContext *web_context;
};

struct nw_content_filter {
    WebKitUserContentFilter *filter;
};

struct nw_view {
    GtkWidget *window;          // GtkOffscreenWindow, owns web_view
    WebKitWebView *web_view;    // borrowed from window
    WebKitUserContentManager *content_manager;  // owned
    char *message_handler;      // owned; NULL without a document script
    char *script_world;         // owned; NULL without a document script
    gboolean show_error_pages;
    nw_callbacks callbacks;
    void *user_context;
    GHashTable *resources;      // WebKitWebResource* -> id, signals connected
    GList *evaluations;         // nw_evaluation* still running
    GList *downloads;           // WebKitDownload* not yet ended, owned, signals connected
    uint64_t next_resource_id;
};

struct nw_evaluation {
    GCancellable *cancellable;
    nw_view *view;              // NULL once the view is destroyed
    void (*done)(void *, const nw_js_result *);
    void *context;
    int refs;                   // the caller's handle + the running operation
    gboolean is_call;           // nw_view_call_async, not nw_view_evaluate
};

// MARK: - Memory markers (context.c)

/// The directory, made on first use and removed at exit, where the web
/// process extension leaves a file named after a page's id when it ends its
/// process for using more memory than its limit; NULL when none can be made.
const char *nw_memory_marker_directory(void);

/// Whether the extension left a marker for `page_id` (and removes it).
gboolean nw_memory_marker_take(guint64 page_id);

// MARK: - Live-object counters (runtime.c), read by nw_stats_get

extern long nw_live_views;
extern long nw_live_handlers;
extern long nw_live_user_contexts;
extern long nw_live_resources;
extern long nw_live_evaluations;
extern long nw_live_decisions;
extern long nw_live_downloads;
extern long nw_live_web_contexts;

/// A context's `download-started` handler (view.c): hands the download to
/// its view, or cancels one of no view navwatch made.
void nw_download_started(WebKitWebContext *context, WebKitDownload *download, gpointer user_data);

// MARK: - Conversions and events (view.c)

/// Appends every header of `headers` (nullable) to `names` and `values`; the
/// strings stay owned by `headers`.
void nw_headers_convert(SoupMessageHeaders *headers, GPtrArray *names, GPtrArray *values);

/// Fills `out` from `response`; the strings stay owned by `response` and the
/// header arrays by `names`/`values`, which the caller frees.
void nw_response_convert(WebKitURIResponse *response, nw_response *out, GPtrArray *names, GPtrArray *values);

/// Hands `event` to the view's event callback, stamped with the time the
/// shim passed it on.
void nw_emit(nw_view *view, nw_event *event);

/// `nw_emit` with `response` (nullable, borrowed) converted for the call.
void nw_emit_with_response(nw_view *view, nw_event *event, WebKitURIResponse *response);

#endif
