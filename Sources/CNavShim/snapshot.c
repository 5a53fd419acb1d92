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

// MARK: - Screenshots in memory, scaled down

typedef struct {
    int max_width;
    void (*done)(void *, const unsigned char *, size_t, const char *);
    void *context;
} nw_png_snapshot;

static cairo_status_t append_png_bytes(void *closure, const unsigned char *data, unsigned int length) {
    g_byte_array_append(closure, data, length);
    return CAIRO_STATUS_SUCCESS;
}

static void on_png_snapshot_ready(GObject *source, GAsyncResult *result, gpointer user_data) {
    nw_png_snapshot *snapshot = user_data;
    g_autoptr(GError) error = NULL;
    cairo_surface_t *surface = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(source), result, &error);
    if (!surface) {
        snapshot->done(snapshot->context, NULL, 0, error ? error->message : "no snapshot");
        g_free(snapshot);
        return;
    }
    int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
    cairo_surface_t *scaled = surface;
    if (snapshot->max_width > 0 && width > snapshot->max_width) {
        double factor = (double)snapshot->max_width / width;
        int scaled_height = MAX(1, (int)(height * factor + 0.5));
        scaled = cairo_image_surface_create(CAIRO_FORMAT_RGB24, snapshot->max_width, scaled_height);
        cairo_t *cr = cairo_create(scaled);
        cairo_scale(cr, factor, factor);
        cairo_set_source_surface(cr, surface, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        cairo_paint(cr);
        cairo_destroy(cr);
    }
    GByteArray *png = g_byte_array_new();
    cairo_status_t status = cairo_surface_write_to_png_stream(scaled, append_png_bytes, png);
    if (status == CAIRO_STATUS_SUCCESS) {
        snapshot->done(snapshot->context, png->data, png->len, NULL);
    } else {
        snapshot->done(snapshot->context, NULL, 0, cairo_status_to_string(status));
    }
    g_byte_array_unref(png);
    if (scaled != surface) cairo_surface_destroy(scaled);
    cairo_surface_destroy(surface);
    g_free(snapshot);
}

void nw_view_snapshot_png(nw_view *view, int max_width,
                          void (*done)(void *, const unsigned char *, size_t, const char *), void *context) {
    nw_png_snapshot *snapshot = g_new0(nw_png_snapshot, 1);
    snapshot->max_width = max_width;
    snapshot->done = done;
    snapshot->context = context;
    // The operation holds a reference to the web view until it calls back.
    webkit_web_view_get_snapshot(view->web_view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, NULL,
                                 on_png_snapshot_ready, snapshot);
}
