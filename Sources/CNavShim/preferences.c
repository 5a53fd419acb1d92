// preferences.c: what WebKitGTK takes from the process rather than from a
// view (the colour scheme, reduced motion, the preferred languages) and the
// display scale a view's window is made with. See include/navshim.h.
#include "navshim-private.h"

#include <gdk/gdkx.h>
#include <locale.h>
#include <string.h>

/// GTK's values of the settings nw_set_color_scheme and nw_set_reduced_motion
/// change, read before the first change so that "no preference" restores them.
static struct {
    int read;
    gboolean prefer_dark;
    gboolean enable_animations;
    char *theme_name;
} gtk_defaults;

static GtkSettings *settings_read_once(void) {
    GtkSettings *settings = gtk_settings_get_default();
    if (!gtk_defaults.read) {
        g_object_get(settings, "gtk-application-prefer-dark-theme", &gtk_defaults.prefer_dark,
                     "gtk-enable-animations", &gtk_defaults.enable_animations,
                     "gtk-theme-name", &gtk_defaults.theme_name, NULL);
        gtk_defaults.read = 1;
    }
    return settings;
}

void nw_set_color_scheme(nw_color_scheme scheme) {
    GtkSettings *settings = settings_read_once();
    // WebKit's pages are dark when GTK prefers a dark theme or the theme's
    // name ends in "-dark" (PageClientImpl::effectiveAppearanceIsDark).
    const char *theme = gtk_defaults.theme_name;
    g_autofree char *light_theme = NULL;
    if (scheme == NW_COLOR_SCHEME_LIGHT && theme && g_str_has_suffix(theme, "-dark")) {
        light_theme = g_strndup(theme, strlen(theme) - strlen("-dark"));
        theme = light_theme;
    }
    gboolean dark = scheme == NW_COLOR_SCHEME_DARK ? TRUE
                  : scheme == NW_COLOR_SCHEME_LIGHT ? FALSE : gtk_defaults.prefer_dark;
    g_object_set(settings, "gtk-application-prefer-dark-theme", dark, NULL);
    if (theme) g_object_set(settings, "gtk-theme-name", theme, NULL);
}

void nw_set_reduced_motion(int reduce) {
    GtkSettings *settings = settings_read_once();
    gboolean animations = reduce > 0 ? FALSE : reduce == 0 ? TRUE : gtk_defaults.enable_animations;
    g_object_set(settings, "gtk-enable-animations", animations, NULL);
}

char *nw_default_language(void) {
    // WebKit's own rule for a process that sets no languages
    // (WTF::platformUserPreferredLanguages on Unix): LC_CTYPE's locale,
    // "en-US" for C and POSIX, "de_DE.UTF-8" read as "de-DE".
    const char *locale = setlocale(LC_CTYPE, NULL);
    if (!locale || !*locale || g_ascii_strcasecmp(locale, "C") == 0 || g_ascii_strcasecmp(locale, "POSIX") == 0
        || g_str_has_prefix(locale, "C.")) {
        return g_strdup("en-US");
    }
    char *language = g_strndup(locale, strcspn(locale, ".@"));
    g_strdelimit(language, "_", '-');
    return language;
}

void nw_set_preferred_language(const char *language) {
    const char *languages[] = {language, NULL};
    webkit_web_context_set_preferred_languages(webkit_web_context_get_default(), languages);
}

void nw_prepare_window_scale(int scale) {
    static int forced = 0;
    if (scale < 1) scale = 1;
    // A web view takes the display's scale when it is made, and keeps it:
    // the scale is set for each view once any view asked for one, so that a
    // user's GDK_SCALE stands while none does.
    if (scale == 1 && !forced) return;
    GdkDisplay *display = gdk_display_get_default();
    if (!GDK_IS_X11_DISPLAY(display)) return;
    gdk_x11_display_set_window_scale(display, scale);
    forced = 1;
}
