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

/// GDK's state mask for navwatch's modifier bits (NW_MODIFIER_*).
static guint modifier_state(unsigned modifiers) {
    guint state = 0;
    if (modifiers & NW_MODIFIER_SHIFT) state |= GDK_SHIFT_MASK;
    if (modifiers & NW_MODIFIER_CONTROL) state |= GDK_CONTROL_MASK;
    if (modifiers & NW_MODIFIER_ALT) state |= GDK_MOD1_MASK;
    if (modifiers & NW_MODIFIER_META) state |= GDK_META_MASK | GDK_SUPER_MASK;
    return state;
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

/// The time of the next pointer press: a click at a time of its own, far from
/// the one before, so that WebKit's click counter never takes two separate
/// clicks at one place for a double click; the presses of one double click
/// are a millisecond apart.
static guint32 pointer_clock = 1;

static GdkEvent *timed(GdkEvent *event, guint32 time) {
    if (event->type == GDK_MOTION_NOTIFY) event->motion.time = time;
    else event->button.time = time;
    return event;
}

void nw_view_send_pointer(nw_view *view, double x, double y, int clicks, unsigned modifiers) {
    guint state = modifier_state(modifiers);
    pointer_clock += 10000;
    input_deliver(view, timed(pointer_event(view, GDK_MOTION_NOTIFY, x, y, state), pointer_clock), FALSE);
    for (int click = 0; click < clicks; click++) {
        pointer_clock += 1;
        input_deliver(view, timed(pointer_event(view, GDK_BUTTON_PRESS, x, y, state), pointer_clock), FALSE);
        input_deliver(view, timed(pointer_event(view, GDK_BUTTON_RELEASE, x, y, state | GDK_BUTTON1_MASK), pointer_clock), FALSE);
    }
}

void nw_view_send_click(nw_view *view, double x, double y) { nw_view_send_pointer(view, x, y, 1, 0); }

static GdkEvent *key_event(nw_view *view, GdkEventType type, guint keyval, guint state) {
    GtkWidget *widget = GTK_WIDGET(view->web_view);
    GdkEvent *event = gdk_event_new(type);
    event->key.window = g_object_ref(gtk_widget_get_window(widget));
    event->key.keyval = keyval;
    event->key.state = state;
    event->key.time = GDK_CURRENT_TIME;
    event->key.is_modifier = keyval == GDK_KEY_Shift_L || keyval == GDK_KEY_Control_L || keyval == GDK_KEY_Alt_L
        || keyval == GDK_KEY_Meta_L;
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

void nw_view_send_key(nw_view *view, unsigned keyval) { nw_view_send_key_chord(view, keyval, 0); }

void nw_view_send_key_chord(nw_view *view, unsigned keyval, unsigned modifiers) {
    static const struct { unsigned bit; guint keyval; guint mask; } keys[] = {
        { NW_MODIFIER_SHIFT, GDK_KEY_Shift_L, GDK_SHIFT_MASK },
        { NW_MODIFIER_CONTROL, GDK_KEY_Control_L, GDK_CONTROL_MASK },
        { NW_MODIFIER_ALT, GDK_KEY_Alt_L, GDK_MOD1_MASK },
        { NW_MODIFIER_META, GDK_KEY_Meta_L, GDK_META_MASK | GDK_SUPER_MASK },
    };
    guint state = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        if (!(modifiers & keys[i].bit)) continue;
        input_deliver(view, key_event(view, GDK_KEY_PRESS, keys[i].keyval, state), TRUE);
        state |= keys[i].mask;
    }
    input_deliver(view, key_event(view, GDK_KEY_PRESS, keyval, state), TRUE);
    input_deliver(view, key_event(view, GDK_KEY_RELEASE, keyval, state), TRUE);
    for (size_t i = G_N_ELEMENTS(keys); i > 0; i--) {
        if (!(modifiers & keys[i - 1].bit)) continue;
        state &= ~keys[i - 1].mask;
        input_deliver(view, key_event(view, GDK_KEY_RELEASE, keys[i - 1].keyval, state | keys[i - 1].mask), TRUE);
    }
}

unsigned nw_keyval_from_name(const char *name) {
    guint keyval = gdk_keyval_from_name(name);
    return keyval == GDK_KEY_VoidSymbol ? 0 : keyval;
}

unsigned nw_keyval_from_unicode(uint32_t character) { return gdk_unicode_to_keyval(character); }
