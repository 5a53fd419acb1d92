// snapshot.c: PNG snapshots of a view. See include/navshim.h.
#define _GNU_SOURCE
#include "navshim-private.h"

// MARK: - Screenshots

typedef struct {
    char *path;
    void (*done)(void *, const char *);
    void *context;
} nw_snapshot;

static void on_snapshot_ready(GObject *source, GAsyncResult *result, gpointer user_data) {
    nw_snapshot *snapshot = user_data;
    g_autoptr(GError) error = NULL;
    cairo_surface_t *surface = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(source), result, &error);
    g_autofree char *message = NULL;
    if (!surface) {
        message = g_strdup(error ? error->message : "no snapshot");
    } else {
        cairo_status_t status = cairo_surface_write_to_png(surface, snapshot->path);
        if (status != CAIRO_STATUS_SUCCESS) message = g_strdup_printf("%s: %s", snapshot->path, cairo_status_to_string(status));
        cairo_surface_destroy(surface);
    }
    snapshot->done(snapshot->context, message);
    g_free(snapshot->path);
    g_free(snapshot);
}

void nw_view_write_snapshot(nw_view *view, const char *path, int full_document, void (*done)(void *, const char *),
                            void *context) {
    nw_snapshot *snapshot = g_new0(nw_snapshot, 1);
    snapshot->path = g_strdup(path);
    snapshot->done = done;
    snapshot->context = context;
    // The operation holds a reference to the web view until it calls back, so
    // the callback never touches `view`, which may be gone by then.
    webkit_web_view_get_snapshot(view->web_view,
                                 full_document ? WEBKIT_SNAPSHOT_REGION_FULL_DOCUMENT : WEBKIT_SNAPSHOT_REGION_VISIBLE,
                                 WEBKIT_SNAPSHOT_OPTIONS_NONE, NULL, on_snapshot_ready, snapshot);
}
