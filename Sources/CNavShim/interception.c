// interception.c: a view's requests sent through a proxy of navwatch's own,
// and the certificates that proxy shows accepted. See include/navshim.h.
#define _GNU_SOURCE
#include "navshim-private.h"

void nw_view_set_proxy(nw_view *view, const char *proxy_uri) {
    WebKitWebsiteDataManager *manager = webkit_web_view_get_website_data_manager(view->web_view);
    if (proxy_uri == NULL) {
        webkit_website_data_manager_set_network_proxy_settings(manager, WEBKIT_NETWORK_PROXY_MODE_NO_PROXY, NULL);
        return;
    }
    // No host bypasses the proxy: loopback names and addresses included.
    g_autoptr(WebKitNetworkProxySettings) proxy = webkit_network_proxy_settings_new(proxy_uri, NULL);
    webkit_website_data_manager_set_network_proxy_settings(manager, WEBKIT_NETWORK_PROXY_MODE_CUSTOM, proxy);
}

char *nw_view_allow_certificate(nw_view *view, const char *certificate_pem, const char *host) {
    g_autoptr(GError) error = NULL;
    g_autoptr(GTlsCertificate) certificate = g_tls_certificate_new_from_pem(certificate_pem, -1, &error);
    if (!certificate) return g_strdup(error ? error->message : "not a certificate");
    webkit_web_context_allow_tls_certificate_for_host(webkit_web_view_get_context(view->web_view), certificate, host);
    return NULL;
}
