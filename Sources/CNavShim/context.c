// context.c: web contexts (one per configuration: data manager, cache model,
// sandbox, proxy, web extensions) and content filters compiled into a store.
// See include/navshim.h for the contract.
#define _GNU_SOURCE
#include "navshim-private.h"
#include "navshim-messages.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - Contexts

static void on_web_context_finalized(gpointer data, GObject *context) { nw_live_web_contexts--; }

nw_context *nw_context_new(int ephemeral, const char *data_directory, int ignore_tls_errors,
                           nw_cache_model cache_model, int sandboxed, const char *proxy_uri,
                           const char *extensions_directory, int read_only_requests, unsigned memory_limit_mb,
                           const char *time_zone) {
    g_autoptr(WebKitWebsiteDataManager) manager = NULL;
    if (ephemeral || data_directory == NULL) {
        manager = webkit_website_data_manager_new_ephemeral();
    } else {
        manager = webkit_website_data_manager_new("base-data-directory", data_directory,
                                                  "base-cache-directory", data_directory, NULL);
    }
    webkit_website_data_manager_set_tls_errors_policy(
        manager, ignore_tls_errors ? WEBKIT_TLS_ERRORS_POLICY_IGNORE : WEBKIT_TLS_ERRORS_POLICY_FAIL);
    if (proxy_uri != NULL) {
        // No host bypasses the proxy: loopback names and addresses included.
        g_autoptr(WebKitNetworkProxySettings) proxy = webkit_network_proxy_settings_new(proxy_uri, NULL);
        webkit_website_data_manager_set_network_proxy_settings(manager, WEBKIT_NETWORK_PROXY_MODE_CUSTOM, proxy);
    }
    nw_context *context = g_new0(nw_context, 1);
    // The time zone is set once, when the context is made.
    context->web_context = g_object_new(WEBKIT_TYPE_WEB_CONTEXT, "website-data-manager", manager,
                                        "time-zone-override", time_zone, NULL);
    nw_live_web_contexts++;
    g_object_weak_ref(G_OBJECT(context->web_context), on_web_context_finalized, NULL);
    webkit_web_context_set_cache_model(context->web_context, (WebKitCacheModel)cache_model);
    // Contexts live as long as the process: the handler is never disconnected.
    g_signal_connect(context->web_context, "download-started", G_CALLBACK(nw_download_started), NULL);
    // Must precede the context's first web process.
    webkit_web_context_set_sandbox_enabled(context->web_context, sandboxed ? TRUE : FALSE);
    // Also before the first web process; the sandbox lets it read the directory.
    if (extensions_directory) {
        const char *markers = memory_limit_mb > 0 ? nw_memory_marker_directory() : NULL;
        // The extension writes its markers there from inside the sandbox.
        if (markers) webkit_web_context_add_path_to_sandbox(context->web_context, markers, FALSE);
        webkit_web_context_set_web_extensions_directory(context->web_context, extensions_directory);
        webkit_web_context_set_web_extensions_initialization_user_data(
            context->web_context, g_variant_new(NW_EXTENSION_SETTINGS_FORMAT, read_only_requests ? TRUE : FALSE,
                                                markers ? (guint32)memory_limit_mb : 0, markers ? markers : ""));
    }
    return context;
}

// MARK: - Memory markers

static char *memory_markers;

static void remove_memory_markers(void) {
    g_autoptr(GDir) directory = g_dir_open(memory_markers, 0, NULL);
    const char *name;
    while (directory && (name = g_dir_read_name(directory))) {
        g_autofree char *path = g_build_filename(memory_markers, name, NULL);
        g_unlink(path);
    }
    g_rmdir(memory_markers);
}

const char *nw_memory_marker_directory(void) {
    if (!memory_markers) {
        memory_markers = g_dir_make_tmp("navwatch-memory-XXXXXX", NULL);
        if (memory_markers) atexit(remove_memory_markers);
    }
    return memory_markers;
}

gboolean nw_memory_marker_take(guint64 page_id) {
    if (!memory_markers) return FALSE;
    g_autofree char *name = g_strdup_printf("%" G_GUINT64_FORMAT, page_id);
    g_autofree char *path = g_build_filename(memory_markers, name, NULL);
    return g_unlink(path) == 0;
}

// MARK: - Content filters

typedef struct {
    void (*done)(void *, nw_content_filter *, const char *);
    void *user_data;
} nw_filter_compilation;

static void on_content_filter_saved(GObject *source, GAsyncResult *result, gpointer data) {
    nw_filter_compilation *compilation = data;
    g_autoptr(GError) error = NULL;
    WebKitUserContentFilter *filter =
        webkit_user_content_filter_store_save_finish(WEBKIT_USER_CONTENT_FILTER_STORE(source), result, &error);
    if (filter) {
        nw_content_filter *compiled = g_new0(nw_content_filter, 1);
        compiled->filter = filter;
        compilation->done(compilation->user_data, compiled, NULL);
    } else {
        compilation->done(compilation->user_data, NULL, error ? error->message : "the rules did not compile");
    }
    g_object_unref(source);
    g_free(compilation);
}

void nw_content_filter_compile(const char *store_directory, const char *identifier, const char *rules_json,
                               void (*done)(void *, nw_content_filter *, const char *), void *user_data) {
    WebKitUserContentFilterStore *store = webkit_user_content_filter_store_new(store_directory);
    nw_filter_compilation *compilation = g_new0(nw_filter_compilation, 1);
    compilation->done = done;
    compilation->user_data = user_data;
    g_autoptr(GBytes) rules = g_bytes_new(rules_json, strlen(rules_json));
    webkit_user_content_filter_store_save(store, identifier, rules, NULL, on_content_filter_saved, compilation);
}

void nw_context_free(nw_context *context) {
    g_object_unref(context->web_context);
    g_free(context);
}
