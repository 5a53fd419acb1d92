/*
 * engine-limit: how fast WebKitGTK alone crawls a site on this machine, as a
 * ceiling to compare navwatch's crawler against.
 *
 * Build (the binary does not belong in Benchmarks/; /tmp is fine):
 *
 *   gcc -O2 -Wall -Wextra -o engine-limit engine-limit.c $(pkg-config --cflags --libs webkit2gtk-4.1)
 *
 * Run (needs an X display, e.g. Xvfb):
 *
 *   DISPLAY=:77 ./engine-limit --concurrency 2 --max-pages 300 http://127.0.0.1:8080/
 *
 * Crawls breadth-first from URL with C web views ("slots"). A slot loads the
 * next unvisited same-origin URL as soon as its previous page has finished
 * loading and its links were read with one JavaScript call. Stops after N
 * pages or when the frontier is empty, then prints one JSON line:
 *
 *   {"engine":"webkitgtk","concurrency":C,"pages":P,"failed":F,"seconds":S,"pages_per_second":R}
 *
 * pages counts successful loads; seconds is wall time from the first real load
 * to the last page's end; pages_per_second = pages / seconds. Progress and
 * failures go to stderr.
 *
 * It is the loop a user would write first: WebKit's own defaults (the default
 * web context, so the WEB_BROWSER cache model and a disk cache under
 * $XDG_CACHE_HOME), each view in its own 1280x800 GtkOffscreenWindow,
 * JavaScript and images on, and every view loads about:blank once before
 * timing starts. Scripts/bench gives each run an empty $XDG_CACHE_HOME, as a
 * user's first run has. Unlike navwatch it never replaces a view after a
 * number of pages (navwatch's recycleAfter, 1000 by default).
 *
 * To see what one of navwatch's choices costs or gains, two options change
 * the context (they are not the engine limit):
 *   --ephemeral           one ephemeral context (no disk cache), as navwatch's
 *   --cache-model MODEL   document-viewer, web-browser or document-browser
 */

#include <webkit2/webkit2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEW_WIDTH 1280
#define VIEW_HEIGHT 800
#define LOAD_TIMEOUT_SECONDS 30

/* One call after each load: every link's absolute URL, one a line. */
static const char *LINKS_SCRIPT = "Array.from(document.links, a => a.href).join('\\n')";

typedef enum {
    SLOT_WARMING,   /* loading about:blank, before timing starts */
    SLOT_IDLE,      /* waiting for a URL */
    SLOT_LOADING,   /* load_uri called, FINISHED not seen yet */
    SLOT_READING,   /* FINISHED seen, link-reading JavaScript running */
} SlotState;

typedef struct {
    int index;
    GtkWidget *window;          /* GtkOffscreenWindow; owns view */
    WebKitWebView *view;
    SlotState state;
    char *url;                  /* the page being loaded (owned) */
    gboolean load_failed;       /* load-failed came for this page */
    guint timeout_id;           /* per-page safety timeout */
    guint generation;           /* bumped per page: stale JavaScript replies compare it */
    GCancellable *cancellable;  /* cancels the link-reading JavaScript */
} Slot;

/* What a JavaScript reply has to know to tell whether it is still wanted. */
typedef struct {
    Slot *slot;
    guint generation;
} LinkRequest;

static WebKitWebContext *context;
static Slot *slots;
static int concurrency = 1;
static int max_pages = 300;
static char *start_origin;             /* "scheme://host:port" of the start URL */
static GQueue frontier = G_QUEUE_INIT; /* URLs to load, owned strings, FIFO */
static GHashTable *seen;               /* every URL ever queued (owned keys) */
static int assigned;                   /* pages handed to a slot */
static int loaded;                     /* pages finished and read */
static int failed;                     /* pages failed or timed out */
static int warming;                    /* slots still loading about:blank */
static gint64 started_at;              /* g_get_monotonic_time, microseconds */
static gint64 finished_at;
static guint dispatch_id;
static GMainLoop *loop;

static void create_view(Slot *slot);
static void schedule_dispatch(void);

/* "scheme://host:port" of url, or NULL when url does not parse or has no host. */
static char *origin_of(const char *url) {
    GUri *uri = g_uri_parse(url, G_URI_FLAGS_SCHEME_NORMALIZE, NULL);
    if (!uri) return NULL;
    char *origin = NULL;
    if (g_uri_get_host(uri) && *g_uri_get_host(uri)) {
        char *host = g_ascii_strdown(g_uri_get_host(uri), -1);
        char *scheme = g_ascii_strdown(g_uri_get_scheme(uri), -1);
        origin = g_strdup_printf("%s://%s:%d", scheme, host, g_uri_get_port(uri));
        g_free(host);
        g_free(scheme);
    }
    g_uri_unref(uri);
    return origin;
}

/* Queues href (fragment stripped) if it is same-origin and new. */
static void add_link(const char *href) {
    char *url = g_strndup(href, strcspn(href, "#"));
    char *origin = origin_of(url);
    if (origin && strcmp(origin, start_origin) == 0 && !g_hash_table_contains(seen, url)) {
        g_hash_table_add(seen, g_strdup(url));
        g_queue_push_tail(&frontier, url);
        url = NULL;
    }
    g_free(origin);
    g_free(url);
}

/* Ends the slot's current page: counts it and frees the slot for the next. */
static void page_done(Slot *slot, gboolean ok) {
    if (slot->timeout_id) {
        g_source_remove(slot->timeout_id);
        slot->timeout_id = 0;
    }
    if (ok) loaded++;
    else failed++;
    finished_at = g_get_monotonic_time();
    slot->state = SLOT_IDLE;
    slot->generation++;
    g_clear_pointer(&slot->url, g_free);
    schedule_dispatch();
}

static void on_links_read(GObject *object, GAsyncResult *result, gpointer user_data) {
    LinkRequest *request = user_data;
    Slot *slot = request->slot;
    gboolean current = request->generation == slot->generation && slot->state == SLOT_READING;
    g_free(request);

    GError *error = NULL;
    JSCValue *value = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(object), result, &error);
    if (!current) {
        /* The page already timed out and the slot moved on. */
        g_clear_error(&error);
        g_clear_object(&value);
        return;
    }
    if (!value) {
        fprintf(stderr, "engine-limit: reading links of %s failed: %s\n", slot->url, error->message);
        g_error_free(error);
        page_done(slot, FALSE);
        return;
    }
    char *text = jsc_value_to_string(value);
    char **links = g_strsplit(text, "\n", -1);
    for (char **link = links; *link; link++) {
        if (**link) add_link(*link);
    }
    g_strfreev(links);
    g_free(text);
    g_object_unref(value);
    page_done(slot, TRUE);
}

static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer user_data) {
    Slot *slot = user_data;
    if (event != WEBKIT_LOAD_FINISHED) return;

    if (slot->state == SLOT_WARMING) {
        /* The view's web process is up: its start-up cost stays out of the timing. */
        slot->state = SLOT_IDLE;
        if (--warming == 0) {
            started_at = finished_at = g_get_monotonic_time();
            schedule_dispatch();
        }
        return;
    }
    if (slot->state != SLOT_LOADING) return;

    /* load-failed always comes before its FINISHED. */
    if (slot->load_failed) {
        page_done(slot, FALSE);
        return;
    }
    /* Subresources (image, script) have had their load events by FINISHED, so
       the DOM is complete. The reply comes back asynchronously, through the
       web process, after this handler has returned. */
    slot->state = SLOT_READING;
    LinkRequest *request = g_new(LinkRequest, 1);
    request->slot = slot;
    request->generation = slot->generation;
    webkit_web_view_evaluate_javascript(view, LINKS_SCRIPT, -1, NULL, NULL, slot->cancellable,
                                        on_links_read, request);
}

static gboolean on_load_failed(WebKitWebView *view, WebKitLoadEvent event, const char *failing_uri,
                               GError *error, gpointer user_data) {
    (void)view;
    (void)event;
    Slot *slot = user_data;
    if (slot->state == SLOT_LOADING) {
        slot->load_failed = TRUE;
        fprintf(stderr, "engine-limit: %s failed: %s %d %s\n", failing_uri,
                g_quark_to_string(error->domain), error->code, error->message);
    }
    /* TRUE: do not load WebKit's HTML error page, which would be a second
       load cycle with a FINISHED of its own. */
    return TRUE;
}

static void on_web_process_terminated(WebKitWebView *view, WebKitWebProcessTerminationReason reason,
                                      gpointer user_data) {
    (void)view;
    Slot *slot = user_data;
    fprintf(stderr, "engine-limit: web process of slot %d terminated (reason %d) on %s\n", slot->index,
            (int)reason, slot->url ? slot->url : "(no page)");
    /* A crash during a load brings neither load-failed nor FINISHED: end the
       page here. A JavaScript call in flight fails on its own. The view
       starts a new web process with its next load. */
    if (slot->state == SLOT_LOADING) page_done(slot, FALSE);
}

static gboolean on_load_timeout(gpointer user_data) {
    Slot *slot = user_data;
    slot->timeout_id = 0;
    fprintf(stderr, "engine-limit: %s timed out after %d s\n", slot->url, LOAD_TIMEOUT_SECONDS);
    /* Stopping a load that hangs may itself never finish (a stuck web process
       does not answer), and a stopped load's late FINISHED would end the next
       page: replace the view instead. Destroying the window drops the view
       and its signal handlers; its web process exits with it. */
    g_cancellable_cancel(slot->cancellable);
    g_clear_object(&slot->cancellable);
    /* Disconnect first: a view disposed mid-load may still report the
       cancelled load, which would count this page twice. */
    g_signal_handlers_disconnect_by_data(slot->view, slot);
    gtk_widget_destroy(slot->window);
    create_view(slot);
    page_done(slot, FALSE);
    return G_SOURCE_REMOVE;
}

/* Gives every idle slot a URL; ends the crawl when no slot has work left. */
static gboolean dispatch(gpointer user_data) {
    (void)user_data;
    dispatch_id = 0;
    gboolean busy = FALSE;
    for (int i = 0; i < concurrency; i++) {
        Slot *slot = &slots[i];
        if (slot->state == SLOT_IDLE && assigned < max_pages && !g_queue_is_empty(&frontier)) {
            slot->url = g_queue_pop_head(&frontier);
            slot->load_failed = FALSE;
            slot->state = SLOT_LOADING;
            assigned++;
            slot->timeout_id = g_timeout_add_seconds(LOAD_TIMEOUT_SECONDS, on_load_timeout, slot);
            webkit_web_view_load_uri(slot->view, slot->url);
        }
        if (slot->state != SLOT_IDLE) busy = TRUE;
    }
    if (!busy) g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

/* Dispatches from an idle callback, never from inside a WebKit signal
   handler: a load started inside load-changed interleaves its events with
   the ones still being delivered for the previous load. */
static void schedule_dispatch(void) {
    if (!dispatch_id) dispatch_id = g_idle_add(dispatch, NULL);
}

static void create_view(Slot *slot) {
    slot->view = WEBKIT_WEB_VIEW(webkit_web_view_new_with_context(context));
    WebKitSettings *settings = webkit_web_view_get_settings(slot->view);
    webkit_settings_set_enable_javascript(settings, TRUE);
    webkit_settings_set_auto_load_images(settings, TRUE);

    /* Without a shown toplevel the page sees a 0x0 viewport, is "hidden",
       gets no requestAnimationFrame and throttled timers. The offscreen
       window's size is the viewport, and it costs throughput: keep 1280x800
       like navwatch. */
    slot->window = gtk_offscreen_window_new();
    gtk_window_set_default_size(GTK_WINDOW(slot->window), VIEW_WIDTH, VIEW_HEIGHT);
    gtk_widget_set_size_request(GTK_WIDGET(slot->view), VIEW_WIDTH, VIEW_HEIGHT);
    gtk_container_add(GTK_CONTAINER(slot->window), GTK_WIDGET(slot->view));
    gtk_widget_show_all(slot->window);

    slot->cancellable = g_cancellable_new();
    g_signal_connect(slot->view, "load-changed", G_CALLBACK(on_load_changed), slot);
    g_signal_connect(slot->view, "load-failed", G_CALLBACK(on_load_failed), slot);
    g_signal_connect(slot->view, "web-process-terminated", G_CALLBACK(on_web_process_terminated), slot);
}

/* The crawl cannot start until every view has loaded about:blank; a web
   process that dies during that load reports nothing at all. */
static gboolean on_warmup_timeout(gpointer user_data) {
    (void)user_data;
    if (warming > 0) {
        fprintf(stderr, "engine-limit: %d view(s) did not load about:blank within %d s\n", warming,
                LOAD_TIMEOUT_SECONDS);
        g_main_loop_quit(loop);
    }
    return G_SOURCE_REMOVE;
}

static void usage(void) {
    fprintf(stderr, "usage: engine-limit [--concurrency C] [--max-pages N] [--ephemeral] "
                    "[--cache-model document-viewer|web-browser|document-browser] URL\n");
    exit(2);
}

static int parse_count(const char *text) {
    char *end = NULL;
    long value = text ? strtol(text, &end, 10) : 0;
    if (!text || *end || value < 1 || value > 1000000) usage();
    return (int)value;
}

/* -1: the context's own default. */
static int parse_cache_model(const char *text) {
    if (text && strcmp(text, "document-viewer") == 0) return WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER;
    if (text && strcmp(text, "web-browser") == 0) return WEBKIT_CACHE_MODEL_WEB_BROWSER;
    if (text && strcmp(text, "document-browser") == 0) return WEBKIT_CACHE_MODEL_DOCUMENT_BROWSER;
    usage();
    return -1;
}

int main(int argc, char **argv) {
    gboolean ephemeral = FALSE;
    int cache_model = -1;
    const char *start_url = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--concurrency") == 0) concurrency = parse_count(argv[++i]);
        else if (strcmp(argv[i], "--max-pages") == 0) max_pages = parse_count(argv[++i]);
        else if (strcmp(argv[i], "--ephemeral") == 0) ephemeral = TRUE;
        else if (strcmp(argv[i], "--cache-model") == 0) cache_model = parse_cache_model(argv[++i]);
        else if (argv[i][0] == '-' || start_url) usage();
        else start_url = argv[i];
    }
    if (!start_url) usage();

    /* A URL with no path ("http://host:port") gets "/", the form a.href uses,
       so the start page is not crawled twice. */
    GUri *uri = g_uri_parse(start_url, G_URI_FLAGS_SCHEME_NORMALIZE, NULL);
    start_origin = origin_of(start_url);
    if (!uri || !start_origin) {
        fprintf(stderr, "engine-limit: not an absolute URL with a host: %s\n", start_url);
        return 2;
    }
    char *first = g_uri_to_string(uri);
    if (*g_uri_get_path(uri) == '\0') {
        char *with_slash = g_strconcat(first, "/", NULL);
        g_free(first);
        first = with_slash;
    }
    g_uri_unref(uri);

    /* Read when WebKit starts its subprocesses; navwatch sets the same. */
    g_setenv("WEBKIT_DISABLE_COMPOSITING_MODE", "1", FALSE);
    g_setenv("NO_AT_BRIDGE", "1", FALSE);
    g_setenv("GDK_BACKEND", "x11", FALSE);
    if (!gtk_init_check(NULL, NULL)) {
        const char *display = g_getenv("DISPLAY");
        fprintf(stderr, "engine-limit: cannot open the X display %s\n", display ? display : "(DISPLAY is unset)");
        return 2;
    }

    /* One context for all views: one network process shared by every view,
       and one web process per view (the 4.1 API's process model setting is
       deprecated and ignored). By default it is WebKit's default context. */
    if (ephemeral) {
        WebKitWebsiteDataManager *manager = webkit_website_data_manager_new_ephemeral();
        context = webkit_web_context_new_with_website_data_manager(manager);
        g_object_unref(manager);
    } else {
        context = g_object_ref(webkit_web_context_get_default());
    }
    if (cache_model >= 0) webkit_web_context_set_cache_model(context, (WebKitCacheModel)cache_model);

    seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_add(seen, g_strdup(first));
    g_queue_push_tail(&frontier, first);

    loop = g_main_loop_new(NULL, FALSE);
    slots = g_new0(Slot, concurrency);
    warming = concurrency;
    for (int i = 0; i < concurrency; i++) {
        slots[i].index = i;
        slots[i].state = SLOT_WARMING;
        create_view(&slots[i]);
        webkit_web_view_load_uri(slots[i].view, "about:blank");
    }
    g_timeout_add_seconds(LOAD_TIMEOUT_SECONDS, on_warmup_timeout, NULL);
    g_main_loop_run(loop);
    if (warming > 0) return 1;

    double seconds = (double)(finished_at - started_at) / G_USEC_PER_SEC;
    printf("{\"engine\":\"webkitgtk\",\"concurrency\":%d,\"pages\":%d,\"failed\":%d,"
           "\"seconds\":%.3f,\"pages_per_second\":%.2f}\n",
           concurrency, loaded, failed, seconds, seconds > 0 ? loaded / seconds : 0.0);
    fflush(stdout);

    for (int i = 0; i < concurrency; i++) {
        g_clear_object(&slots[i].cancellable);
        gtk_widget_destroy(slots[i].window);
    }
    g_free(slots);
    g_object_unref(context);
    g_hash_table_unref(seen);
    g_queue_clear_full(&frontier, g_free);
    g_free(start_origin);
    g_main_loop_unref(loop);
    return 0;
}
