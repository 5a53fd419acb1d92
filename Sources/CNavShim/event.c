// event.c: the events the view hands to Swift: WebKit's responses and
// headers converted to plain C, and each event stamped and passed to the
// view's callback. See include/navshim.h for the contract.
#define _GNU_SOURCE
#include "navshim-private.h"

#include <string.h>

/// Appends every header of `headers` (nullable) to `names` and `values`; the
/// strings stay owned by `headers`.
void nw_headers_convert(SoupMessageHeaders *headers, GPtrArray *names, GPtrArray *values) {
    if (!headers) return;
    SoupMessageHeadersIter iter;
    const char *name, *value;
    soup_message_headers_iter_init(&iter, headers);
    while (soup_message_headers_iter_next(&iter, &name, &value)) {
        g_ptr_array_add(names, (gpointer)name);
        g_ptr_array_add(values, (gpointer)value);
    }
}

/// Fills `out` from `response`; the strings stay owned by `response` and the
/// header arrays by `names`/`values`, which the caller frees.
void nw_response_convert(WebKitURIResponse *response, nw_response *out, GPtrArray *names, GPtrArray *values) {
    memset(out, 0, sizeof *out);
    out->uri = webkit_uri_response_get_uri(response);
    out->status = webkit_uri_response_get_status_code(response);
    out->mime = webkit_uri_response_get_mime_type(response);
    guint64 length = webkit_uri_response_get_content_length(response);
    out->content_length = length > 0 ? (int64_t)length : -1;
    out->suggested_filename = webkit_uri_response_get_suggested_filename(response);
    nw_headers_convert(webkit_uri_response_get_http_headers(response), names, values);
    out->header_names = (const char *const *)names->pdata;
    out->header_values = (const char *const *)values->pdata;
    out->header_count = names->len;
}

// Stamps the event as the shim hands it on (before converting a response), so
// the time a Swift subscriber receives it can be compared with the signal's.
void nw_emit(nw_view *view, nw_event *event) {
    if (!event->signal_time_ns) event->signal_time_ns = nw_monotonic_ns();
    view->callbacks.event(view->user_context, event);
}

void nw_emit_with_response(nw_view *view, nw_event *event, WebKitURIResponse *response) {
    event->signal_time_ns = nw_monotonic_ns();
    if (!response) {
        nw_emit(view, event);
        return;
    }
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GPtrArray) values = g_ptr_array_new();
    nw_response converted;
    nw_response_convert(response, &converted, names, values);
    event->response = &converted;
    nw_emit(view, event);
}
