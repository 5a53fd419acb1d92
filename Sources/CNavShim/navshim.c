// navshim.c: see include/navshim.h for the contract.
//
// Layout: runtime (Xvfb, GTK, main loop), contexts, conversions, signal
// handlers (on_view_*, on_resource_*), then the view's public functions.
// Every signal is connected in nw_view_new and every handler is disconnected
// in nw_view_destroy; live_handlers counts them so tests can prove it.
#define _GNU_SOURCE
#include "navshim.h"
#include "navshim-messages.h"

#include <webkit2/webkit2.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long live_views;
static long live_handlers;
static long live_user_contexts;
static long live_resources;

// MARK: - Runtime

int nw_xvfb_start(const char *xvfb_path, int *out_pid, char **out_error) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *out_error = g_strdup_printf("cannot create a pipe for Xvfb: %s", g_strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *out_error = g_strdup_printf("cannot fork Xvfb: %s", g_strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here on. The forking
        // thread may block or ignore signals (Swift's threads do); Xvfb must
        // start with default signal handling, or SIGTERM never reaches it.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1) _exit(1);  // the parent is already gone
        int null_fd = open("/dev/null", O_RDWR);
        if (null_fd >= 0) {
            dup2(null_fd, 0);
            dup2(null_fd, 1);
            dup2(null_fd, 2);
        }
        int write_fd = dup(fds[1]);  // a copy without O_CLOEXEC
        char fd_text[16];
        snprintf(fd_text, sizeof fd_text, "%d", write_fd);
        char *argv[] = {(char *)xvfb_path, "-displayfd", fd_text, "-nolisten", "tcp",
                        "-screen", "0", "1280x1024x24", NULL};
        execv(xvfb_path, argv);
        _exit(127);
    }
    close(fds[1]);
    char buffer[32] = {0};
    size_t used = 0;
    while (used < sizeof buffer - 1) {
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        int ready = poll(&pfd, 1, 15000);
        if (ready <= 0) break;
        ssize_t n = read(fds[0], buffer + used, sizeof buffer - 1 - used);
        if (n <= 0) break;
        used += (size_t)n;
        if (memchr(buffer, '\n', used)) break;
    }
    close(fds[0]);
    char *end = NULL;
    long display = strtol(buffer, &end, 10);
    if (used == 0 || end == buffer) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        *out_error = g_strdup_printf("Xvfb (%s) did not report a display number", xvfb_path);
        return -1;
    }
    *out_pid = pid;
    return (int)display;
}

void nw_xvfb_stop(int pid) {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

int nw_runtime_init(char **out_error) {
    g_setenv("WEBKIT_DISABLE_COMPOSITING_MODE", "1", FALSE);
    g_setenv("NO_AT_BRIDGE", "1", FALSE);
    // No accessibility bus runs here: an empty address keeps web processes
    // from warning that they cannot reach it.
    g_setenv("WEBKIT_A11Y_BUS_ADDRESS", "", FALSE);
    g_setenv("GDK_BACKEND", "x11", FALSE);
    if (!gtk_init_check(NULL, NULL)) {
        const char *display = g_getenv("DISPLAY");
        *out_error = g_strdup_printf("cannot open the X display %s", display ? display : "(DISPLAY is unset)");
        return 0;
    }
    return 1;
}

void nw_runtime_run(void) {
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
}

typedef struct {
    void (*job)(void *);
    void *data;
} nw_job;

static gboolean on_job_ready(gpointer user_data) {
    nw_job *job = user_data;
    job->job(job->data);
    return G_SOURCE_REMOVE;
}

void nw_runtime_enqueue(void (*job)(void *data), void *data) {
    nw_job *item = g_new(nw_job, 1);
    item->job = job;
    item->data = data;
    GSource *source = g_idle_source_new();
    g_source_set_priority(source, G_PRIORITY_DEFAULT);
    g_source_set_callback(source, on_job_ready, item, g_free);
    g_source_attach(source, NULL);
    g_source_unref(source);
}

int nw_current_thread_id(void) { return (int)gettid(); }

void nw_free(void *pointer) { g_free(pointer); }

// MARK: - Contexts

struct nw_context {
    WebKitWebContext *web_context;
};

int nw_sandbox_check(const char *bubblewrap_path, char **out_error) {
    if (!g_file_test(bubblewrap_path, G_FILE_TEST_IS_EXECUTABLE)) {
        *out_error = g_strdup_printf("%s is missing", bubblewrap_path);
        return 0;
    }
    const char *argv[] = {bubblewrap_path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
                          "/bin/true", NULL};
    g_autofree char *errors = NULL;
    g_autoptr(GError) error = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &errors,
                      &status, &error)) {
        *out_error = g_strdup_printf("%s cannot run: %s", bubblewrap_path, error->message);
        return 0;
    }
    if (!g_spawn_check_wait_status(status, NULL)) {
        *out_error = g_strdup_printf("%s cannot create a sandbox: %s", bubblewrap_path,
                                     errors && *errors ? g_strstrip(errors) : "it failed");
        return 0;
    }
    return 1;
}

nw_context *nw_context_new(int ephemeral, const char *data_directory, int ignore_tls_errors,
                           nw_cache_model cache_model, int sandboxed, const char *proxy_uri,
                           const char *extensions_directory) {
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
    context->web_context = webkit_web_context_new_with_website_data_manager(manager);
    webkit_web_context_set_cache_model(context->web_context, (WebKitCacheModel)cache_model);
    // Must precede the context's first web process.
    webkit_web_context_set_sandbox_enabled(context->web_context, sandboxed ? TRUE : FALSE);
    // Also before the first web process; the sandbox lets it read the directory.
    if (extensions_directory) webkit_web_context_set_web_extensions_directory(context->web_context, extensions_directory);
    return context;
}

// MARK: - Content filters

struct nw_content_filter {
    WebKitUserContentFilter *filter;
};

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

// MARK: - Views: state

struct nw_view {
    GtkWidget *window;          // GtkOffscreenWindow, owns web_view
    WebKitWebView *web_view;    // borrowed from window
    WebKitUserContentManager *content_manager;  // owned; NULL without a document script or content filter
    char *message_handler;      // owned; NULL without a document script
    char *script_world;         // owned; NULL without a document script
    gboolean show_error_pages;
    nw_callbacks callbacks;
    void *user_context;
    GHashTable *resources;      // WebKitWebResource* -> id, signals connected
    GList *evaluations;         // nw_evaluation* still running
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

// MARK: - Conversions

/// Appends every header of `headers` (nullable) to `names` and `values`; the
/// strings stay owned by `headers`.
static void headers_convert(SoupMessageHeaders *headers, GPtrArray *names, GPtrArray *values) {
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
static void response_convert(WebKitURIResponse *response, nw_response *out, GPtrArray *names, GPtrArray *values) {
    memset(out, 0, sizeof *out);
    out->uri = webkit_uri_response_get_uri(response);
    out->status = webkit_uri_response_get_status_code(response);
    out->mime = webkit_uri_response_get_mime_type(response);
    guint64 length = webkit_uri_response_get_content_length(response);
    out->content_length = length > 0 ? (int64_t)length : -1;
    out->suggested_filename = webkit_uri_response_get_suggested_filename(response);
    headers_convert(webkit_uri_response_get_http_headers(response), names, values);
    out->header_names = (const char *const *)names->pdata;
    out->header_values = (const char *const *)values->pdata;
    out->header_count = names->len;
}

uint64_t nw_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// Stamps the event as the shim hands it on (before converting a response), so
// the time a Swift subscriber receives it can be compared with the signal's.
static void emit(nw_view *view, nw_event *event) {
    if (!event->signal_time_ns) event->signal_time_ns = nw_monotonic_ns();
    view->callbacks.event(view->user_context, event);
}

static void emit_with_response(nw_view *view, nw_event *event, WebKitURIResponse *response) {
    event->signal_time_ns = nw_monotonic_ns();
    if (!response) {
        emit(view, event);
        return;
    }
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GPtrArray) values = g_ptr_array_new();
    nw_response converted;
    response_convert(response, &converted, names, values);
    event->response = &converted;
    emit(view, event);
}

// MARK: - Resource signal handlers

static void resource_forget(nw_view *view, WebKitWebResource *resource);

static uint64_t resource_id(WebKitWebResource *resource) {
    return (uint64_t)(uintptr_t)g_object_get_data(G_OBJECT(resource), "nw-resource-id");
}

static void on_resource_sent_request(WebKitWebResource *resource, WebKitURIRequest *request,
                                     WebKitURIResponse *redirected_response, gpointer user_data) {
    nw_view *view = user_data;
    if (!redirected_response) return;  // the first request was reported by resource-load-started
    nw_event event = {.kind = NW_EVENT_RESOURCE_REDIRECTED,
                      .resource_id = resource_id(resource),
                      .uri = webkit_uri_request_get_uri(request),
                      .method = webkit_uri_request_get_http_method(request)};
    emit_with_response(view, &event, redirected_response);
}

static void on_resource_failed(WebKitWebResource *resource, GError *error, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_RESOURCE_FAILED,
                      .resource_id = resource_id(resource),
                      .uri = webkit_web_resource_get_uri(resource),
                      .error_domain = g_quark_to_string(error->domain),
                      .error_code = error->code,
                      .error_message = error->message};
    emit(view, &event);
}

static void on_resource_finished(WebKitWebResource *resource, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_RESOURCE_FINISHED,
                      .resource_id = resource_id(resource),
                      .uri = webkit_web_resource_get_uri(resource)};
    emit_with_response(view, &event, webkit_web_resource_get_response(resource));
    resource_forget(view, resource);
}

static void on_resource_finalized(gpointer user_data, GObject *where_the_object_was) {
    nw_view *view = user_data;
    // The handlers died with the object; only the bookkeeping is left.
    if (g_hash_table_remove(view->resources, where_the_object_was)) {
        live_handlers -= 3;
        live_resources--;
    }
}

static void resource_forget(nw_view *view, WebKitWebResource *resource) {
    if (!g_hash_table_remove(view->resources, resource)) return;
    live_handlers -= g_signal_handlers_disconnect_by_data(resource, view);
    g_object_weak_unref(G_OBJECT(resource), on_resource_finalized, view);
    live_resources--;
}

// MARK: - View signal handlers

static void on_view_load_changed(WebKitWebView *web_view, WebKitLoadEvent load_event, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.uri = webkit_web_view_get_uri(web_view)};
    switch (load_event) {
    case WEBKIT_LOAD_STARTED: event.kind = NW_EVENT_LOAD_STARTED; break;
    case WEBKIT_LOAD_REDIRECTED: event.kind = NW_EVENT_LOAD_REDIRECTED; break;
    case WEBKIT_LOAD_COMMITTED: {
        event.kind = NW_EVENT_LOAD_COMMITTED;
        WebKitWebResource *main = webkit_web_view_get_main_resource(web_view);
        emit_with_response(view, &event, main ? webkit_web_resource_get_response(main) : NULL);
        return;
    }
    case WEBKIT_LOAD_FINISHED: event.kind = NW_EVENT_LOAD_FINISHED; break;
    }
    emit(view, &event);
}

static gboolean on_view_load_failed(WebKitWebView *web_view, WebKitLoadEvent load_event, gchar *failing_uri,
                                    GError *error, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_LOAD_FAILED,
                      .uri = failing_uri,
                      .error_domain = g_quark_to_string(error->domain),
                      .error_code = error->code,
                      .error_message = error->message};
    emit(view, &event);
    return !view->show_error_pages;  // TRUE: handled, WebKit loads no error page of its own
}

static gboolean on_view_load_failed_tls(WebKitWebView *web_view, gchar *failing_uri, GTlsCertificate *certificate,
                                        GTlsCertificateFlags errors, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_LOAD_FAILED_TLS, .uri = failing_uri};
    emit(view, &event);
    return FALSE;  // let load-failed follow
}

static void on_view_web_process_terminated(WebKitWebView *web_view, WebKitWebProcessTerminationReason reason,
                                           gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_WEB_PROCESS_TERMINATED, .termination_reason = reason};
    emit(view, &event);
}

static void on_view_notify_uri(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_URI_CHANGED, .uri = webkit_web_view_get_uri(web_view)};
    emit(user_data, &event);
}

static void on_view_notify_title(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_TITLE_CHANGED, .title = webkit_web_view_get_title(web_view)};
    emit(user_data, &event);
}

static void on_view_notify_progress(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_PROGRESS_CHANGED,
                      .progress = webkit_web_view_get_estimated_load_progress(web_view)};
    emit(user_data, &event);
}

static void on_view_notify_is_loading(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_LOADING_CHANGED, .is_loading = webkit_web_view_is_loading(web_view)};
    emit(user_data, &event);
}

static void on_script_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer user_data) {
    g_autofree char *message = jsc_value_to_string(webkit_javascript_result_get_js_value(result));
    nw_event event = {.kind = NW_EVENT_SCRIPT_MESSAGE, .message = message};
    emit(user_data, &event);
}

static gboolean on_view_user_message(WebKitWebView *web_view, WebKitUserMessage *message, gpointer user_data) {
    GVariant *parameters = webkit_user_message_get_parameters(message);
    if (g_strcmp0(webkit_user_message_get_name(message), NW_CONSOLE_MESSAGE_NAME) != 0 || !parameters ||
        !g_variant_is_of_type(parameters, G_VARIANT_TYPE(NW_CONSOLE_MESSAGE_FORMAT))) {
        return FALSE;
    }
    guint32 source, level, line;
    const char *text, *source_id;
    g_variant_get(parameters, "(uu&s&su)", &source, &level, &text, &source_id, &line);
    nw_event event = {.kind = NW_EVENT_CONSOLE_MESSAGE, .console_source = (int)source, .console_level = (int)level,
                      .message = text, .uri = source_id, .line = line};
    emit(user_data, &event);
    return TRUE;
}

static void on_view_resource_load_started(WebKitWebView *web_view, WebKitWebResource *resource,
                                          WebKitURIRequest *request, gpointer user_data) {
    nw_view *view = user_data;
    uint64_t id = ++view->next_resource_id;
    g_object_set_data(G_OBJECT(resource), "nw-resource-id", (gpointer)(uintptr_t)id);
    g_hash_table_add(view->resources, resource);
    g_object_weak_ref(G_OBJECT(resource), on_resource_finalized, view);
    g_signal_connect(resource, "sent-request", G_CALLBACK(on_resource_sent_request), view);
    g_signal_connect(resource, "failed", G_CALLBACK(on_resource_failed), view);
    g_signal_connect(resource, "finished", G_CALLBACK(on_resource_finished), view);
    live_handlers += 3;
    live_resources++;
    WebKitWebResource *main = webkit_web_view_get_main_resource(web_view);
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GPtrArray) values = g_ptr_array_new();
    headers_convert(webkit_uri_request_get_http_headers(request), names, values);
    nw_event event = {.kind = NW_EVENT_RESOURCE_STARTED,
                      .resource_id = id,
                      .uri = webkit_uri_request_get_uri(request),
                      .method = webkit_uri_request_get_http_method(request),
                      .is_main_resource = main == resource,
                      .request_header_names = (const char *const *)names->pdata,
                      .request_header_values = (const char *const *)values->pdata,
                      .request_header_count = names->len};
    emit(view, &event);
}

static gboolean on_view_decide_policy(WebKitWebView *web_view, WebKitPolicyDecision *decision,
                                      WebKitPolicyDecisionType type, gpointer user_data) {
    nw_view *view = user_data;
    nw_policy policy = {.decision = (nw_decision *)g_object_ref(decision)};
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GPtrArray) values = g_ptr_array_new();
    nw_response response;
    switch (type) {
    case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
    case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION: {
        policy.kind = type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION ? NW_POLICY_NAVIGATION_ACTION
                                                                            : NW_POLICY_NEW_WINDOW_ACTION;
        WebKitNavigationAction *action =
            webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
        WebKitURIRequest *request = webkit_navigation_action_get_request(action);
        policy.uri = webkit_uri_request_get_uri(request);
        policy.method = webkit_uri_request_get_http_method(request);
        policy.navigation_type = webkit_navigation_action_get_navigation_type(action);
        policy.is_redirect = webkit_navigation_action_is_redirect(action);
        policy.is_user_gesture = webkit_navigation_action_is_user_gesture(action);
        policy.frame_name = webkit_navigation_action_get_frame_name(action);
        break;
    }
    case WEBKIT_POLICY_DECISION_TYPE_RESPONSE: {
        policy.kind = NW_POLICY_RESPONSE;
        WebKitResponsePolicyDecision *response_decision = WEBKIT_RESPONSE_POLICY_DECISION(decision);
        policy.uri = webkit_uri_request_get_uri(webkit_response_policy_decision_get_request(response_decision));
        response_convert(webkit_response_policy_decision_get_response(response_decision), &response, names, values);
        policy.response = &response;
        policy.is_mime_type_supported = webkit_response_policy_decision_is_mime_type_supported(response_decision);
        policy.is_main_frame_main_resource =
            webkit_response_policy_decision_is_main_frame_main_resource(response_decision);
        break;
    }
    default:
        g_object_unref(decision);
        return FALSE;
    }
    view->callbacks.policy(view->user_context, &policy);
    return TRUE;
}

static gboolean on_view_script_dialog(WebKitWebView *web_view, WebKitScriptDialog *dialog, gpointer user_data) {
    nw_view *view = user_data;
    WebKitScriptDialogType type = webkit_script_dialog_get_dialog_type(dialog);
    nw_dialog request = {.type = type, .message = webkit_script_dialog_get_message(dialog)};
    if (type == WEBKIT_SCRIPT_DIALOG_PROMPT) request.default_text = webkit_script_dialog_prompt_get_default_text(dialog);
    nw_dialog_reply reply = {0};
    view->callbacks.dialog(view->user_context, &request, &reply);
    if (type == WEBKIT_SCRIPT_DIALOG_CONFIRM || type == WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM) {
        webkit_script_dialog_confirm_set_confirmed(dialog, reply.confirmed);
    } else if (type == WEBKIT_SCRIPT_DIALOG_PROMPT) {
        // A NULL text is how a prompt is cancelled.
        webkit_script_dialog_prompt_set_text(dialog, reply.confirmed ? (reply.text ? reply.text : "") : NULL);
    }
    free(reply.text);
    return TRUE;  // answered: no GTK dialog is built
}

static GtkWidget *on_view_create(WebKitWebView *web_view, WebKitNavigationAction *action, gpointer user_data) {
    WebKitURIRequest *request = webkit_navigation_action_get_request(action);
    nw_event event = {.kind = NW_EVENT_NEW_WINDOW,
                      .uri = webkit_uri_request_get_uri(request),
                      .frame_name = webkit_navigation_action_get_frame_name(action),
                      .is_user_gesture = webkit_navigation_action_is_user_gesture(action)};
    emit(user_data, &event);
    return NULL;  // never open a window
}

// MARK: - Views: public functions

#define CONNECT(signal, handler)                                                   \
    do {                                                                           \
        g_signal_connect(view->web_view, signal, G_CALLBACK(handler), view);       \
        live_handlers++;                                                           \
    } while (0)

nw_view *nw_view_new(nw_context *context, const nw_settings *settings, nw_callbacks callbacks, void *user_context) {
    nw_view *view = g_new0(nw_view, 1);
    view->callbacks = callbacks;
    view->user_context = user_context;
    view->resources = g_hash_table_new(g_direct_hash, g_direct_equal);
    live_views++;
    live_user_contexts++;

    view->show_error_pages = settings->show_error_pages;
    if (settings->content_filter) {
        view->content_manager = webkit_user_content_manager_new();
        webkit_user_content_manager_add_filter(view->content_manager, settings->content_filter->filter);
    }
    if (settings->document_script && settings->script_world && settings->message_handler) {
        if (!view->content_manager) view->content_manager = webkit_user_content_manager_new();
        view->message_handler = g_strdup(settings->message_handler);
        view->script_world = g_strdup(settings->script_world);
        g_autofree char *detailed = g_strdup_printf("script-message-received::%s", settings->message_handler);
        g_signal_connect(view->content_manager, detailed, G_CALLBACK(on_script_message), view);
        live_handlers++;
        webkit_user_content_manager_register_script_message_handler_in_world(
            view->content_manager, settings->message_handler, settings->script_world);
        g_autoptr(WebKitUserScript) script = webkit_user_script_new_for_world(
            settings->document_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
            settings->script_world, NULL, NULL);
        webkit_user_content_manager_add_script(view->content_manager, script);
    }
    view->web_view = WEBKIT_WEB_VIEW(g_object_new(
        WEBKIT_TYPE_WEB_VIEW, "web-context", context->web_context,
        "is-ephemeral", webkit_web_context_is_ephemeral(context->web_context),
        view->content_manager ? "user-content-manager" : NULL, view->content_manager, NULL));
    WebKitSettings *web_settings = webkit_web_view_get_settings(view->web_view);
    if (settings->user_agent) webkit_settings_set_user_agent(web_settings, settings->user_agent);
    webkit_settings_set_enable_javascript_markup(web_settings, settings->javascript_markup_enabled);
    webkit_settings_set_auto_load_images(web_settings, settings->images_enabled);
    webkit_settings_set_javascript_can_open_windows_automatically(web_settings,
                                                                  settings->can_open_windows_automatically);

    view->window = gtk_offscreen_window_new();
    gtk_window_set_default_size(GTK_WINDOW(view->window), settings->width, settings->height);
    gtk_widget_set_size_request(GTK_WIDGET(view->web_view), settings->width, settings->height);
    gtk_container_add(GTK_CONTAINER(view->window), GTK_WIDGET(view->web_view));
    gtk_widget_show_all(view->window);

    CONNECT("load-changed", on_view_load_changed);
    CONNECT("load-failed", on_view_load_failed);
    CONNECT("load-failed-with-tls-errors", on_view_load_failed_tls);
    CONNECT("web-process-terminated", on_view_web_process_terminated);
    CONNECT("notify::uri", on_view_notify_uri);
    CONNECT("notify::title", on_view_notify_title);
    CONNECT("notify::estimated-load-progress", on_view_notify_progress);
    CONNECT("notify::is-loading", on_view_notify_is_loading);
    CONNECT("resource-load-started", on_view_resource_load_started);
    CONNECT("decide-policy", on_view_decide_policy);
    CONNECT("script-dialog", on_view_script_dialog);
    CONNECT("create", on_view_create);
    CONNECT("user-message-received", on_view_user_message);
    return view;
}

void nw_view_destroy(nw_view *view) {
    if (!view) return;
    live_handlers -= g_signal_handlers_disconnect_by_data(view->web_view, view);
    if (view->content_manager) {
        live_handlers -= g_signal_handlers_disconnect_by_data(view->content_manager, view);
        if (view->message_handler) {
            webkit_user_content_manager_unregister_script_message_handler_in_world(
                view->content_manager, view->message_handler, view->script_world);
        }
    }

    GHashTableIter iter;
    gpointer resource;
    g_hash_table_iter_init(&iter, view->resources);
    while (g_hash_table_iter_next(&iter, &resource, NULL)) {
        live_handlers -= g_signal_handlers_disconnect_by_data(resource, view);
        g_object_weak_unref(G_OBJECT(resource), on_resource_finalized, view);
        live_resources--;
        g_hash_table_iter_remove(&iter);
    }
    g_hash_table_unref(view->resources);

    for (GList *item = view->evaluations; item; item = item->next) {
        nw_evaluation *evaluation = item->data;
        evaluation->view = NULL;
        g_cancellable_cancel(evaluation->cancellable);
    }
    g_list_free(view->evaluations);

    webkit_web_view_stop_loading(view->web_view);
    gtk_widget_destroy(view->window);  // destroys the web view with it
    g_clear_object(&view->content_manager);
    g_clear_pointer(&view->message_handler, g_free);
    g_clear_pointer(&view->script_world, g_free);
    view->callbacks.release(view->user_context);
    live_user_contexts--;
    live_views--;
    g_free(view);
}

void nw_view_load_uri(nw_view *view, const char *uri) { webkit_web_view_load_uri(view->web_view, uri); }

void nw_view_load_html(nw_view *view, const char *html, const char *base_uri) {
    webkit_web_view_load_html(view->web_view, html, base_uri);
}

void nw_view_stop(nw_view *view) { webkit_web_view_stop_loading(view->web_view); }
void nw_view_reload(nw_view *view) { webkit_web_view_reload(view->web_view); }
void nw_view_terminate_web_process(nw_view *view) { webkit_web_view_terminate_web_process(view->web_view); }

void nw_view_set_user_agent(nw_view *view, const char *user_agent) {
    webkit_settings_set_user_agent(webkit_web_view_get_settings(view->web_view), user_agent);
}

void nw_view_set_javascript_markup_enabled(nw_view *view, int enabled) {
    webkit_settings_set_enable_javascript_markup(webkit_web_view_get_settings(view->web_view), enabled);
}

// MARK: - Policy decisions

void nw_decision_use(nw_decision *decision) {
    webkit_policy_decision_use(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
}

void nw_decision_ignore(nw_decision *decision) {
    webkit_policy_decision_ignore(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
}


// MARK: - JavaScript

static void evaluation_unref(nw_evaluation *evaluation) {
    if (--evaluation->refs > 0) return;
    g_object_unref(evaluation->cancellable);
    g_free(evaluation);
}

static void on_evaluation_finished(GObject *source, GAsyncResult *result, gpointer user_data) {
    nw_evaluation *evaluation = user_data;
    g_autoptr(GError) error = NULL;
    g_autoptr(JSCValue) value = evaluation->is_call
        ? webkit_web_view_call_async_javascript_function_finish(WEBKIT_WEB_VIEW(source), result, &error)
        : webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(source), result, &error);
    nw_js_result converted = {0};
    g_autofree char *json = NULL;
    if (error) {
        converted.type = NW_JS_ERROR;
        converted.error_domain = g_quark_to_string(error->domain);
        converted.error_code = error->code;
        converted.error_message = error->message;
    } else if (jsc_value_is_undefined(value)) {
        converted.type = NW_JS_UNDEFINED;
    } else if (jsc_value_is_null(value)) {
        converted.type = NW_JS_NULL;
    } else {
        if (jsc_value_is_boolean(value)) converted.type = NW_JS_BOOLEAN;
        else if (jsc_value_is_number(value)) converted.type = NW_JS_NUMBER;
        else if (jsc_value_is_string(value)) converted.type = NW_JS_STRING;
        else if (jsc_value_is_array(value)) converted.type = NW_JS_ARRAY;
        else converted.type = NW_JS_OBJECT;
        json = jsc_value_to_json(value, 0);
        converted.json = json;
    }
    if (evaluation->view) evaluation->view->evaluations = g_list_remove(evaluation->view->evaluations, evaluation);
    evaluation->done(evaluation->context, &converted);
    evaluation_unref(evaluation);
}

static nw_evaluation *evaluation_new(nw_view *view, void (*done)(void *context, const nw_js_result *result),
                                     void *context) {
    nw_evaluation *evaluation = g_new0(nw_evaluation, 1);
    evaluation->cancellable = g_cancellable_new();
    evaluation->view = view;
    evaluation->done = done;
    evaluation->context = context;
    evaluation->refs = 2;
    view->evaluations = g_list_prepend(view->evaluations, evaluation);
    return evaluation;
}

nw_evaluation *nw_view_evaluate(nw_view *view, const char *script,
                                void (*done)(void *context, const nw_js_result *result), void *context) {
    nw_evaluation *evaluation = evaluation_new(view, done, context);
    webkit_web_view_evaluate_javascript(view->web_view, script, -1, NULL, NULL, evaluation->cancellable,
                                        on_evaluation_finished, evaluation);
    return evaluation;
}

nw_evaluation *nw_view_call_async(nw_view *view, const char *body, const char *world,
                                  void (*done)(void *context, const nw_js_result *result), void *context) {
    nw_evaluation *evaluation = evaluation_new(view, done, context);
    evaluation->is_call = TRUE;
    webkit_web_view_call_async_javascript_function(view->web_view, body, -1, NULL, world, NULL,
                                                   evaluation->cancellable, on_evaluation_finished, evaluation);
    return evaluation;
}

void nw_evaluation_cancel(nw_evaluation *evaluation) { g_cancellable_cancel(evaluation->cancellable); }
void nw_evaluation_free(nw_evaluation *evaluation) { evaluation_unref(evaluation); }

// MARK: - Input

/// Delivers `event` (transfer full) to the view's window as the window system would.
static void input_deliver(nw_view *view, GdkEvent *event, gboolean keyboard) {
    GtkWidget *widget = GTK_WIDGET(view->web_view);
    GdkSeat *seat = gdk_display_get_default_seat(gtk_widget_get_display(widget));
    gdk_event_set_device(event, keyboard ? gdk_seat_get_keyboard(seat) : gdk_seat_get_pointer(seat));
    gtk_main_do_event(event);
    gdk_event_free(event);
}

static GdkEvent *pointer_event(nw_view *view, GdkEventType type, double x, double y, guint state) {
    GdkWindow *window = gtk_widget_get_window(GTK_WIDGET(view->web_view));
    GdkEvent *event = gdk_event_new(type);
    int root_x = 0, root_y = 0;
    gdk_window_get_root_coords(window, (int)x, (int)y, &root_x, &root_y);
    if (type == GDK_MOTION_NOTIFY) {
        event->motion.window = g_object_ref(window);
        event->motion.x = x;
        event->motion.y = y;
        event->motion.x_root = root_x;
        event->motion.y_root = root_y;
        event->motion.time = GDK_CURRENT_TIME;
        event->motion.state = state;
    } else {
        event->button.window = g_object_ref(window);
        event->button.x = x;
        event->button.y = y;
        event->button.x_root = root_x;
        event->button.y_root = root_y;
        event->button.button = 1;
        event->button.time = GDK_CURRENT_TIME;
        event->button.state = state;
    }
    return event;
}

void nw_view_send_click(nw_view *view, double x, double y) {
    input_deliver(view, pointer_event(view, GDK_MOTION_NOTIFY, x, y, 0), FALSE);
    input_deliver(view, pointer_event(view, GDK_BUTTON_PRESS, x, y, 0), FALSE);
    input_deliver(view, pointer_event(view, GDK_BUTTON_RELEASE, x, y, GDK_BUTTON1_MASK), FALSE);
}

static GdkEvent *key_event(nw_view *view, GdkEventType type, guint keyval) {
    GtkWidget *widget = GTK_WIDGET(view->web_view);
    GdkEvent *event = gdk_event_new(type);
    event->key.window = g_object_ref(gtk_widget_get_window(widget));
    event->key.keyval = keyval;
    event->key.time = GDK_CURRENT_TIME;
    GdkKeymapKey *keys = NULL;
    gint count = 0;
    if (gdk_keymap_get_entries_for_keyval(gdk_keymap_get_for_display(gtk_widget_get_display(widget)), keyval, &keys,
                                          &count) && count > 0) {
        event->key.hardware_keycode = (guint16)keys[0].keycode;
        event->key.group = (guint8)keys[0].group;
    }
    g_free(keys);
    return event;
}

void nw_view_send_key(nw_view *view, unsigned keyval) {
    input_deliver(view, key_event(view, GDK_KEY_PRESS, keyval), TRUE);
    input_deliver(view, key_event(view, GDK_KEY_RELEASE, keyval), TRUE);
}

unsigned nw_keyval_from_name(const char *name) {
    guint keyval = gdk_keyval_from_name(name);
    return keyval == GDK_KEY_VoidSymbol ? 0 : keyval;
}

unsigned nw_keyval_from_unicode(uint32_t character) { return gdk_unicode_to_keyval(character); }

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

// MARK: - Accounting

nw_stats nw_stats_get(void) {
    return (nw_stats){.views = live_views,
                      .signal_handlers = live_handlers,
                      .user_contexts = live_user_contexts,
                      .tracked_resources = live_resources};
}
