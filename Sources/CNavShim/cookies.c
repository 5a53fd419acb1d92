// cookies.c: a view's cookies, read, added and cleared through the cookie
// manager of its website data manager, and scripts that seed its storage.
// See include/navshim.h for the contract.
#define _GNU_SOURCE
#include "navshim-private.h"

struct nw_user_script {
    WebKitUserScript *script;
};

typedef struct {
    void (*read)(void *, const nw_cookie *, size_t, const char *);
    void (*done)(void *, const char *);
    void *context;
    size_t pending;  // nw_view_add_cookies: adds not yet finished
    char *error;     // the first add that failed
} nw_cookie_operation;

static WebKitCookieManager *cookie_manager(nw_view *view) {
    WebKitWebsiteDataManager *manager = webkit_web_view_get_website_data_manager(view->web_view);
    return webkit_website_data_manager_get_cookie_manager(manager);
}

static nw_cookie_operation *operation_new(void *context) {
    nw_cookie_operation *operation = g_new0(nw_cookie_operation, 1);
    operation->context = context;
    return operation;
}

static void operation_finish(nw_cookie_operation *operation, const char *error) {
    operation->done(operation->context, error);
    g_free(operation->error);
    g_free(operation);
}

// MARK: - Reading

static void on_cookies_read(GObject *source, GAsyncResult *result, gpointer data) {
    nw_cookie_operation *operation = data;
    g_autoptr(GError) error = NULL;
    GList *list = webkit_cookie_manager_get_all_cookies_finish(WEBKIT_COOKIE_MANAGER(source), result, &error);
    if (error) {
        operation->read(operation->context, NULL, 0, error->message);
    } else {
        size_t count = g_list_length(list);
        nw_cookie *cookies = g_new0(nw_cookie, count ? count : 1);
        size_t index = 0;
        for (GList *item = list; item; item = item->next, index++) {
            SoupCookie *cookie = item->data;
            GDateTime *expires = soup_cookie_get_expires(cookie);
            cookies[index] = (nw_cookie){
                .name = soup_cookie_get_name(cookie),
                .value = soup_cookie_get_value(cookie),
                .domain = soup_cookie_get_domain(cookie),
                .path = soup_cookie_get_path(cookie),
                .expires = expires ? (double)g_date_time_to_unix(expires) : -1,
                .http_only = soup_cookie_get_http_only(cookie),
                .secure = soup_cookie_get_secure(cookie),
                .same_site = (int)soup_cookie_get_same_site_policy(cookie),
            };
        }
        operation->read(operation->context, cookies, count, NULL);
        g_free(cookies);
    }
    g_list_free_full(list, (GDestroyNotify)soup_cookie_free);
    g_object_unref(source);
    g_free(operation);
}

void nw_view_get_cookies(nw_view *view, void (*done)(void *, const nw_cookie *, size_t, const char *),
                         void *context) {
    nw_cookie_operation *operation = operation_new(context);
    operation->read = done;
    WebKitCookieManager *manager = g_object_ref(cookie_manager(view));  // held until it answers
    webkit_cookie_manager_get_all_cookies(manager, NULL, on_cookies_read, operation);
}

// MARK: - Adding

static void on_cookie_added(GObject *source, GAsyncResult *result, gpointer data) {
    nw_cookie_operation *operation = data;
    g_autoptr(GError) error = NULL;
    if (!webkit_cookie_manager_add_cookie_finish(WEBKIT_COOKIE_MANAGER(source), result, &error) &&
        !operation->error) {
        operation->error = g_strdup(error ? error->message : "the cookie was not added");
    }
    g_object_unref(source);
    if (--operation->pending == 0) operation_finish(operation, operation->error);
}

void nw_view_add_cookies(nw_view *view, const nw_cookie *cookies, size_t count, void (*done)(void *, const char *),
                         void *context) {
    nw_cookie_operation *operation = operation_new(context);
    operation->done = done;
    if (count == 0) {
        operation_finish(operation, NULL);
        return;
    }
    operation->pending = count;
    WebKitCookieManager *manager = cookie_manager(view);
    for (size_t index = 0; index < count; index++) {
        const nw_cookie *input = &cookies[index];
        SoupCookie *cookie = soup_cookie_new(input->name, input->value, input->domain, input->path, -1);
        if (input->expires >= 0) {
            g_autoptr(GDateTime) expires = g_date_time_new_from_unix_utc((gint64)input->expires);
            soup_cookie_set_expires(cookie, expires);
        }
        soup_cookie_set_http_only(cookie, input->http_only != 0);
        soup_cookie_set_secure(cookie, input->secure != 0);
        soup_cookie_set_same_site_policy(cookie, (SoupSameSitePolicy)input->same_site);
        webkit_cookie_manager_add_cookie(g_object_ref(manager), cookie, NULL, on_cookie_added, operation);
        soup_cookie_free(cookie);  // the manager copied it
    }
}

// MARK: - Clearing

static void on_cookies_cleared(GObject *source, GAsyncResult *result, gpointer data) {
    g_autoptr(GError) error = NULL;
    gboolean cleared = webkit_website_data_manager_clear_finish(WEBKIT_WEBSITE_DATA_MANAGER(source), result, &error);
    g_object_unref(source);
    operation_finish(data, cleared ? NULL : (error ? error->message : "the cookies were not cleared"));
}

void nw_view_clear_cookies(nw_view *view, void (*done)(void *, const char *), void *context) {
    nw_cookie_operation *operation = operation_new(context);
    operation->done = done;
    WebKitWebsiteDataManager *manager = g_object_ref(webkit_web_view_get_website_data_manager(view->web_view));
    webkit_website_data_manager_clear(manager, WEBKIT_WEBSITE_DATA_COOKIES, 0, NULL, on_cookies_cleared, operation);
}

// MARK: - Scripts

nw_user_script *nw_view_add_script(nw_view *view, const char *source) {
    nw_user_script *script = g_new0(nw_user_script, 1);
    script->script = webkit_user_script_new(source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                                            WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
    webkit_user_content_manager_add_script(view->content_manager, script->script);
    return script;
}

void nw_view_remove_script(nw_view *view, nw_user_script *script) {
    webkit_user_content_manager_remove_script(view->content_manager, script->script);
    webkit_user_script_unref(script->script);
    g_free(script);
}
