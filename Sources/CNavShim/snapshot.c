// snapshot.c: pictures of a view, in memory. See include/navshim.h.
#define _GNU_SOURCE
#include "navshim-private.h"

typedef struct {
    int max_width;
    nw_image_type type;
    int quality;
    void (*done)(void *, const unsigned char *, size_t, const char *);
    void *context;
    cairo_surface_t *surface;   // the picture WebKit took, once it has
} nw_snapshot;

static cairo_status_t append_bytes(void *closure, const unsigned char *data, unsigned int length) {
    g_byte_array_append(closure, data, length);
    return CAIRO_STATUS_SUCCESS;
}

// `surface` scaled down to `max_width` pixels wide, or `surface` itself (a new reference).
// Bilinear: about 1 ms for 1280 pixels to 800, where cairo's GOOD filter takes about 20.
static cairo_surface_t *scaled_down(cairo_surface_t *surface, int max_width) {
    int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
    if (max_width <= 0 || width <= max_width) return cairo_surface_reference(surface);
    double factor = (double)max_width / width;
    cairo_surface_t *scaled = cairo_image_surface_create(CAIRO_FORMAT_RGB24, max_width, MAX(1, (int)(height * factor + 0.5)));
    cairo_t *cr = cairo_create(scaled);
    cairo_scale(cr, factor, factor);
    cairo_set_source_surface(cr, surface, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR);
    cairo_paint(cr);
    cairo_destroy(cr);
    return scaled;
}

// `surface` encoded as `snapshot` asks, appended to `bytes`; NULL or why it could not be.
static char *encode(cairo_surface_t *surface, const nw_snapshot *snapshot, GByteArray *bytes) {
    if (snapshot->type == NW_IMAGE_PNG) {
        cairo_status_t status = cairo_surface_write_to_png_stream(surface, append_bytes, bytes);
        return status == CAIRO_STATUS_SUCCESS ? NULL : g_strdup(cairo_status_to_string(status));
    }
    // JPEG through GdkPixbuf (GTK's own dependency, with libjpeg built in): a
    // few milliseconds for 800x500, where PNG takes about 20.
    int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
    g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_get_from_surface(surface, 0, 0, width, height);
    if (!pixbuf) return g_strdup("cannot read the picture's pixels");
    g_autofree char *quality = g_strdup_printf("%d", CLAMP(snapshot->quality, 1, 100));
    g_autofree gchar *buffer = NULL;
    gsize length = 0;
    g_autoptr(GError) error = NULL;
    if (!gdk_pixbuf_save_to_buffer(pixbuf, &buffer, &length, "jpeg", &error, "quality", quality, NULL))
        return g_strdup(error ? error->message : "cannot encode the picture as JPEG");
    g_byte_array_append(bytes, (const guint8 *)buffer, (guint)length);
    return NULL;
}

// Scales and encodes a snapshot's surface (the task's data) on one of GLib's
// worker threads: the WebKit thread only receives the picture.
static void encode_in_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable) {
    nw_snapshot *snapshot = task_data;
    cairo_surface_t *scaled = scaled_down(snapshot->surface, snapshot->max_width);
    GByteArray *bytes = g_byte_array_new();
    char *failure = encode(scaled, snapshot, bytes);
    cairo_surface_destroy(scaled);
    if (failure) {
        g_byte_array_unref(bytes);
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", failure);
        g_free(failure);
    } else {
        g_task_return_pointer(task, bytes, (GDestroyNotify)g_byte_array_unref);
    }
}

// Back on the WebKit thread (the task's main context): hands the bytes or the
// error to `done`, and lets the surface go here, where WebKit made it.
static void on_encoded(GObject *source, GAsyncResult *result, gpointer user_data) {
    nw_snapshot *snapshot = g_task_get_task_data(G_TASK(result));
    g_clear_pointer(&snapshot->surface, cairo_surface_destroy);
    g_autoptr(GError) error = NULL;
    GByteArray *bytes = g_task_propagate_pointer(G_TASK(result), &error);
    if (bytes) {
        snapshot->done(snapshot->context, bytes->data, bytes->len, NULL);
        g_byte_array_unref(bytes);
    } else {
        snapshot->done(snapshot->context, NULL, 0, error ? error->message : "cannot encode the picture");
    }
}

static void free_snapshot(gpointer data) {
    nw_snapshot *snapshot = data;
    g_clear_pointer(&snapshot->surface, cairo_surface_destroy);
    g_free(snapshot);
}

static void on_snapshot_ready(GObject *source, GAsyncResult *result, gpointer user_data) {
    nw_snapshot *snapshot = user_data;
    g_autoptr(GError) error = NULL;
    snapshot->surface = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(source), result, &error);
    if (!snapshot->surface) {
        snapshot->done(snapshot->context, NULL, 0, error ? error->message : "no snapshot");
        free_snapshot(snapshot);
        return;
    }
    // Scaling and encoding take some milliseconds (tens for a PNG): off the
    // WebKit thread, so that the page's events and the next action go on.
    GTask *task = g_task_new(NULL, NULL, on_encoded, NULL);
    g_task_set_task_data(task, snapshot, free_snapshot);
    g_task_run_in_thread(task, encode_in_thread);
    g_object_unref(task);
}

void nw_view_snapshot(nw_view *view, int full_document, int max_width, nw_image_type type, int quality,
                      void (*done)(void *, const unsigned char *, size_t, const char *), void *context) {
    nw_snapshot *snapshot = g_new0(nw_snapshot, 1);
    snapshot->max_width = max_width;
    snapshot->type = type;
    snapshot->quality = quality;
    snapshot->done = done;
    snapshot->context = context;
    // The operation holds a reference to the web view until it calls back, so
    // the callback never touches `view`, which may be gone by then.
    webkit_web_view_get_snapshot(view->web_view,
                                 full_document ? WEBKIT_SNAPSHOT_REGION_FULL_DOCUMENT : WEBKIT_SNAPSHOT_REGION_VISIBLE,
                                 WEBKIT_SNAPSHOT_OPTIONS_NONE, NULL, on_snapshot_ready, snapshot);
}
