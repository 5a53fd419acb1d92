// view.c: the web view: every signal handler (on_view_*, on_resource_*),
// its public functions and its policy decisions. The events it hands to
// Swift are converted and emitted in event.c.
// Every signal is connected in nw_view_new and every handler is disconnected
// in nw_view_destroy; nw_live_handlers counts them so tests can prove it.
// See include/navshim.h for the contract.
#define _GNU_SOURCE
#include "navshim-private.h"
#include "navshim-messages.h"

#include <string.h>

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
    nw_emit_with_response(view, &event, redirected_response);
}

static void on_resource_failed(WebKitWebResource *resource, GError *error, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_RESOURCE_FAILED,
                      .resource_id = resource_id(resource),
                      .uri = webkit_web_resource_get_uri(resource),
                      .error_domain = g_quark_to_string(error->domain),
                      .error_code = error->code,
                      .error_message = error->message};
    nw_emit(view, &event);
}

static void on_resource_finished(WebKitWebResource *resource, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_RESOURCE_FINISHED,
                      .resource_id = resource_id(resource),
                      .uri = webkit_web_resource_get_uri(resource)};
    nw_emit_with_response(view, &event, webkit_web_resource_get_response(resource));
    resource_forget(view, resource);
}

static void on_resource_finalized(gpointer user_data, GObject *where_the_object_was) {
    nw_view *view = user_data;
    // The handlers died with the object; only the bookkeeping is left.
    if (g_hash_table_remove(view->resources, where_the_object_was)) {
        nw_live_handlers -= 3;
        nw_live_resources--;
    }
}

static void resource_forget(nw_view *view, WebKitWebResource *resource) {
    if (!g_hash_table_remove(view->resources, resource)) return;
    nw_live_handlers -= g_signal_handlers_disconnect_by_data(resource, view);
    g_object_weak_unref(G_OBJECT(resource), on_resource_finalized, view);
    nw_live_resources--;
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
        nw_emit_with_response(view, &event, main ? webkit_web_resource_get_response(main) : NULL);
        return;
    }
    case WEBKIT_LOAD_FINISHED: event.kind = NW_EVENT_LOAD_FINISHED; break;
    }
    nw_emit(view, &event);
}

static gboolean on_view_load_failed(WebKitWebView *web_view, WebKitLoadEvent load_event, gchar *failing_uri,
                                    GError *error, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_LOAD_FAILED,
                      .uri = failing_uri,
                      .error_domain = g_quark_to_string(error->domain),
                      .error_code = error->code,
                      .error_message = error->message};
    nw_emit(view, &event);
    return !view->show_error_pages;  // TRUE: handled, WebKit loads no error page of its own
}

static gboolean on_view_load_failed_tls(WebKitWebView *web_view, gchar *failing_uri, GTlsCertificate *certificate,
                                        GTlsCertificateFlags errors, gpointer user_data) {
    nw_view *view = user_data;
    nw_event event = {.kind = NW_EVENT_LOAD_FAILED_TLS, .uri = failing_uri};
    nw_emit(view, &event);
    return FALSE;  // let load-failed follow
}

static void on_view_web_process_terminated(WebKitWebView *web_view, WebKitWebProcessTerminationReason reason,
                                           gpointer user_data) {
    nw_view *view = user_data;
    // The extension's watchdog ends its process itself, which WebKit sees as a crash.
    if (reason == WEBKIT_WEB_PROCESS_CRASHED && nw_memory_marker_take(webkit_web_view_get_page_id(web_view))) {
        reason = WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT;
    }
    nw_event event = {.kind = NW_EVENT_WEB_PROCESS_TERMINATED, .termination_reason = reason};
    nw_emit(view, &event);
}

static void on_view_notify_uri(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_URI_CHANGED, .uri = webkit_web_view_get_uri(web_view)};
    nw_emit(user_data, &event);
}

static void on_history_changed(WebKitBackForwardList *list, WebKitBackForwardListItem *item_added,
                               gpointer items_removed, gpointer user_data) {
    WebKitBackForwardListItem *current = webkit_back_forward_list_get_current_item(list);
    nw_event event = {.kind = NW_EVENT_HISTORY_CHANGED,
                      .history_item_added = item_added != NULL,
                      .uri = current ? webkit_back_forward_list_item_get_uri(current) : NULL};
    nw_emit(user_data, &event);
}

static void on_view_notify_title(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_TITLE_CHANGED, .title = webkit_web_view_get_title(web_view)};
    nw_emit(user_data, &event);
}

static void on_view_notify_progress(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_PROGRESS_CHANGED,
                      .progress = webkit_web_view_get_estimated_load_progress(web_view)};
    nw_emit(user_data, &event);
}

static void on_view_notify_is_loading(WebKitWebView *web_view, GParamSpec *pspec, gpointer user_data) {
    nw_event event = {.kind = NW_EVENT_LOADING_CHANGED, .is_loading = webkit_web_view_is_loading(web_view)};
    nw_emit(user_data, &event);
}

static void on_script_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer user_data) {
    g_autofree char *message = jsc_value_to_string(webkit_javascript_result_get_js_value(result));
    nw_event event = {.kind = NW_EVENT_SCRIPT_MESSAGE, .message = message};
    nw_emit(user_data, &event);
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
    nw_emit(user_data, &event);
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
    nw_live_handlers += 3;
    nw_live_resources++;
    WebKitWebResource *main = webkit_web_view_get_main_resource(web_view);
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GPtrArray) values = g_ptr_array_new();
    nw_headers_convert(webkit_uri_request_get_http_headers(request), names, values);
    nw_event event = {.kind = NW_EVENT_RESOURCE_STARTED,
                      .resource_id = id,
                      .uri = webkit_uri_request_get_uri(request),
                      .method = webkit_uri_request_get_http_method(request),
                      .is_main_resource = main == resource,
                      .request_header_names = (const char *const *)names->pdata,
                      .request_header_values = (const char *const *)values->pdata,
                      .request_header_count = names->len};
    nw_emit(view, &event);
}

static gboolean on_view_decide_policy(WebKitWebView *web_view, WebKitPolicyDecision *decision,
                                      WebKitPolicyDecisionType type, gpointer user_data) {
    nw_view *view = user_data;
    nw_policy policy = {.decision = (nw_decision *)g_object_ref(decision)};
    nw_live_decisions++;
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
        nw_response_convert(webkit_response_policy_decision_get_response(response_decision), &response, names, values);
        policy.response = &response;
        policy.is_mime_type_supported = webkit_response_policy_decision_is_mime_type_supported(response_decision);
        policy.is_main_frame_main_resource =
            webkit_response_policy_decision_is_main_frame_main_resource(response_decision);
        break;
    }
    default:
        g_object_unref(decision);
        nw_live_decisions--;
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

// The new-window rule has two halves: Swift answers every NEW_WINDOW_ACTION
// decision with "use" (WebView.handle(_: nw_policy)), so that each request
// for a window reaches this handler exactly once, and this handler reports it
// and opens it only in a view Swift made for it (related to this one, as
// WebKit requires), else nothing. A "window.open" without a user gesture
// comes here directly. The view returned is already in its offscreen
// window, which owns it: the emission takes no reference of its own.
static void on_view_close(WebKitWebView *web_view, gpointer user_data) {
    nw_view *view = user_data;
    view->callbacks.close_requested(view->user_context);
}

static GtkWidget *on_view_create(WebKitWebView *web_view, WebKitNavigationAction *action, gpointer user_data) {
    nw_view *view = user_data;
    WebKitURIRequest *request = webkit_navigation_action_get_request(action);
    nw_event event = {.kind = NW_EVENT_NEW_WINDOW,
                      .uri = webkit_uri_request_get_uri(request),
                      .frame_name = webkit_navigation_action_get_frame_name(action),
                      .is_user_gesture = webkit_navigation_action_is_user_gesture(action)};
    nw_emit(view, &event);
    nw_view *popup = view->callbacks.popup ? view->callbacks.popup(view->user_context, &event) : NULL;
    return popup ? GTK_WIDGET(popup->web_view) : NULL;
}

// MARK: - Downloads

// A download ends once: written ("finished" after success), failed ("failed",
// then "finished", which is ignored), cancelled by Swift's answer or by the
// view's end. Each step reports to Swift at most once, then forgets it.
static void end_download(nw_view *view, WebKitDownload *download, const char *error) {
    GList *item = g_list_find(view->downloads, download);
    if (!item) return;  // ended already
    view->downloads = g_list_delete_link(view->downloads, item);
    nw_live_handlers -= g_signal_handlers_disconnect_by_data(download, view);
    WebKitURIRequest *request = webkit_download_get_request(download);
    const char *destination = webkit_download_get_destination(download);
    g_autofree char *path = destination && !error ? g_filename_from_uri(destination, NULL, NULL) : NULL;
    view->callbacks.download_ended(view->user_context, (uint64_t)(uintptr_t)download,
                                   request ? webkit_uri_request_get_uri(request) : "", path, error);
    g_object_unref(download);
    nw_live_downloads--;
}

static gboolean on_download_decide_destination(WebKitDownload *download, const char *suggested, gpointer user_data) {
    nw_view *view = user_data;
    WebKitURIRequest *request = webkit_download_get_request(download);
    char *path = view->callbacks.download_destination(view->user_context, (uint64_t)(uintptr_t)download,
                                                      request ? webkit_uri_request_get_uri(request) : "",
                                                      suggested ? suggested : "");
    if (!path) {
        webkit_download_cancel(download);  // "failed" with a cancellation follows
        return TRUE;
    }
    g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
    free(path);
    if (!uri) {
        webkit_download_cancel(download);
        return TRUE;
    }
    webkit_download_set_allow_overwrite(download, FALSE);
    webkit_download_set_destination(download, uri);
    return TRUE;
}

static void on_download_failed(WebKitDownload *download, GError *error, gpointer user_data) {
    end_download(user_data, download, error && error->message ? error->message : "the download failed");
}

static void on_download_finished(WebKitDownload *download, gpointer user_data) {
    end_download(user_data, download, NULL);
}

void nw_download_started(WebKitWebContext *context, WebKitDownload *download, gpointer user_data) {
    WebKitWebView *web_view = webkit_download_get_web_view(download);
    nw_view *view = web_view ? g_object_get_data(G_OBJECT(web_view), "nw-view") : NULL;
    if (!view) {
        webkit_download_cancel(download);  // never written anywhere
        return;
    }
    view->downloads = g_list_prepend(view->downloads, g_object_ref(download));
    nw_live_downloads++;
    g_signal_connect(download, "decide-destination", G_CALLBACK(on_download_decide_destination), view);
    g_signal_connect(download, "failed", G_CALLBACK(on_download_failed), view);
    g_signal_connect(download, "finished", G_CALLBACK(on_download_finished), view);
    nw_live_handlers += 3;
}

// MARK: - Views: public functions

#define CONNECT(signal, handler)                                                   \
    do {                                                                           \
        g_signal_connect(view->web_view, signal, G_CALLBACK(handler), view);       \
        nw_live_handlers++;                                                           \
    } while (0)

nw_view *nw_view_new(nw_context *context, nw_view *related, const nw_settings *settings, nw_callbacks callbacks,
                     void *user_context) {
    nw_view *view = g_new0(nw_view, 1);
    view->callbacks = callbacks;
    view->user_context = user_context;
    view->resources = g_hash_table_new(g_direct_hash, g_direct_equal);
    nw_live_views++;
    nw_live_user_contexts++;

    view->show_error_pages = settings->show_error_pages;
    // A web view takes the display's scale when it is made, and keeps it.
    nw_prepare_window_scale(settings->scale_factor);
    view->content_manager = webkit_user_content_manager_new();
    // No scrollbars, as in headless Chromium: an overlay scrollbar of a page
    // taller than the view repaints it continuously while the page is idle
    // (about 12 ms of CPU a second per view), and a hidden overlay
    // scrollbar changes no layout.
    g_autoptr(WebKitUserStyleSheet) no_scrollbars = webkit_user_style_sheet_new(
        "::-webkit-scrollbar { display: none; }", WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_STYLE_LEVEL_USER,
        NULL, NULL);
    webkit_user_content_manager_add_style_sheet(view->content_manager, no_scrollbars);
    if (settings->content_filter) {
        webkit_user_content_manager_add_filter(view->content_manager, settings->content_filter->filter);
    }
    if (settings->document_script && settings->script_world && settings->message_handler) {
        view->message_handler = g_strdup(settings->message_handler);
        view->script_world = g_strdup(settings->script_world);
        g_autofree char *detailed = g_strdup_printf("script-message-received::%s", settings->message_handler);
        g_signal_connect(view->content_manager, detailed, G_CALLBACK(on_script_message), view);
        nw_live_handlers++;
        webkit_user_content_manager_register_script_message_handler_in_world(
            view->content_manager, settings->message_handler, settings->script_world);
        g_autoptr(WebKitUserScript) script = webkit_user_script_new_for_world(
            settings->document_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
            settings->script_world, NULL, NULL);
        webkit_user_content_manager_add_script(view->content_manager, script);
    }
    if (related) {
        // The context and the ephemeral session come from the related view.
        view->web_view = WEBKIT_WEB_VIEW(g_object_new(
            WEBKIT_TYPE_WEB_VIEW, "related-view", related->web_view, "user-content-manager", view->content_manager, NULL));
    } else {
        view->web_view = WEBKIT_WEB_VIEW(g_object_new(
            WEBKIT_TYPE_WEB_VIEW, "web-context", context->web_context,
            "is-ephemeral", webkit_web_context_is_ephemeral(context->web_context),
            "user-content-manager", view->content_manager, NULL));
    }
    WebKitSettings *web_settings = webkit_web_view_get_settings(view->web_view);
    if (settings->user_agent) webkit_settings_set_user_agent(web_settings, settings->user_agent);
    webkit_settings_set_enable_javascript_markup(web_settings, settings->javascript_markup_enabled);
    webkit_settings_set_auto_load_images(web_settings, settings->images_enabled);
    // navwatch never goes back: a page left for the next need not be kept
    // (suspended, alive) in the back/forward cache.
    webkit_settings_set_enable_page_cache(web_settings, FALSE);
    webkit_settings_set_javascript_can_open_windows_automatically(web_settings,
                                                                  settings->can_open_windows_automatically);

    view->window = gtk_offscreen_window_new();
    gtk_window_set_default_size(GTK_WINDOW(view->window), settings->width, settings->height);
    gtk_widget_set_size_request(GTK_WIDGET(view->web_view), settings->width, settings->height);
    gtk_container_add(GTK_CONTAINER(view->window), GTK_WIDGET(view->web_view));
    g_object_set_data(G_OBJECT(view->web_view), "nw-view", view);  // a download's view (nw_download_started)
    // Nobody looks at the offscreen window (screenshots come from the web
    // process): drawing the view into it would only copy each frame to X.
    g_signal_connect(view->window, "draw", G_CALLBACK(gtk_true), NULL);
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
    CONNECT("close", on_view_close);
    CONNECT("user-message-received", on_view_user_message);
    g_signal_connect(webkit_web_view_get_back_forward_list(view->web_view), "changed",
                     G_CALLBACK(on_history_changed), view);
    nw_live_handlers++;
    return view;
}

void nw_view_destroy(nw_view *view) {
    if (!view) return;
    nw_live_handlers -= g_signal_handlers_disconnect_by_data(view->web_view, view);
    nw_live_handlers -= g_signal_handlers_disconnect_by_data(webkit_web_view_get_back_forward_list(view->web_view), view);
    if (view->content_manager) {
        nw_live_handlers -= g_signal_handlers_disconnect_by_data(view->content_manager, view);
        if (view->message_handler) {
            webkit_user_content_manager_unregister_script_message_handler_in_world(
                view->content_manager, view->message_handler, view->script_world);
        }
    }

    GHashTableIter iter;
    gpointer resource;
    g_hash_table_iter_init(&iter, view->resources);
    while (g_hash_table_iter_next(&iter, &resource, NULL)) {
        nw_live_handlers -= g_signal_handlers_disconnect_by_data(resource, view);
        g_object_weak_unref(G_OBJECT(resource), on_resource_finalized, view);
        nw_live_resources--;
        g_hash_table_iter_remove(&iter);
    }
    g_hash_table_unref(view->resources);

    g_object_set_data(G_OBJECT(view->web_view), "nw-view", NULL);
    while (view->downloads) {
        WebKitDownload *download = view->downloads->data;
        g_object_ref(download);
        end_download(view, download, "the view closed");
        webkit_download_cancel(download);
        g_object_unref(download);
    }

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
    nw_live_user_contexts--;
    nw_live_views--;
    g_free(view);
}

uint64_t nw_view_page_id(nw_view *view) { return webkit_web_view_get_page_id(view->web_view); }

void nw_view_cancel_download(nw_view *view, uint64_t id) {
    for (GList *item = view->downloads; item; item = item->next) {
        if ((uint64_t)(uintptr_t)item->data == id) {
            webkit_download_cancel(item->data);  // "failed" follows, and ends it
            return;
        }
    }
}

void nw_view_load_uri(nw_view *view, const char *uri) { webkit_web_view_load_uri(view->web_view, uri); }

void nw_view_load_html(nw_view *view, const char *html, const char *base_uri) {
    webkit_web_view_load_html(view->web_view, html, base_uri);
}

void nw_view_stop(nw_view *view) { webkit_web_view_stop_loading(view->web_view); }
void nw_view_reload(nw_view *view) { webkit_web_view_reload(view->web_view); }
int nw_view_go_back(nw_view *view) {
    if (!webkit_web_view_can_go_back(view->web_view)) return 0;
    webkit_web_view_go_back(view->web_view);
    return 1;
}
int nw_view_go_forward(nw_view *view) {
    if (!webkit_web_view_can_go_forward(view->web_view)) return 0;
    webkit_web_view_go_forward(view->web_view);
    return 1;
}
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
    nw_live_decisions--;
}

void nw_decision_ignore(nw_decision *decision) {
    webkit_policy_decision_ignore(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
    nw_live_decisions--;
}

void nw_decision_download(nw_decision *decision) {
    webkit_policy_decision_download(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
    nw_live_decisions--;
}
