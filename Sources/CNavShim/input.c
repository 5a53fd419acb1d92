// input.c: synthetic pointer and keyboard input, delivered to the view's
// window as the window system would. See include/navshim.h.
#define _GNU_SOURCE
#include "navshim-private.h"

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
