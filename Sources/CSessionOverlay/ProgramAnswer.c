#include "CSessionOverlay.h"
#include <atspi/atspi.h>
#include <dbus/dbus.h>
#include <string.h>

// The focused program's own word that it has handled keys, through AT-SPI: a program that speaks
// AT-SPI (GTK, Qt with accessibility, VTE) says when its text changed (object:text-changed:insert
// or :delete), and answers a call to its accessible from its main loop. On GNOME a commit reaches
// a GTK program by another way than the keys before it, and GTK applies a commit read together
// with those keys before them (IBusOrdering): so a character there waits for that word. Only the
// events of the application that has the focus count (by its bus name: no call is made for it).

static const char *bus_name(AtspiAccessible *accessible) {
    AtspiObject *object = (AtspiObject *)accessible;
    return object && object->app ? object->app->bus_name : NULL;
}

static void text_changed(AtspiEvent *event, void *data) {
    struct khc_state *s = data;
    const char *from = bus_name(event->source);
    const char *focused = bus_name(s->focused);
    if (from && focused && strcmp(from, focused) == 0) {
        int64_t now = g_get_monotonic_time();
        if (g_str_has_suffix(event->type, ":delete")) s->deleted_at = now; else s->inserted_at = now;
        g_strlcpy(s->speaking, from, sizeof s->speaking);
    }
    g_boxed_free(ATSPI_TYPE_EVENT, event);
}

int khc_follow_text(struct khc_state *s) {
    if (!s->started) return 0;
    if (s->follows_text) return 1;
    AtspiEventListener *listener = atspi_event_listener_new(text_changed, s, NULL);
    if (!atspi_event_listener_register(listener, "object:text-changed", NULL)) return 0;
    s->follows_text = 1;
    return 1;
}

int khc_focused_speaks(const struct khc_state *s) {
    const char *focused = bus_name(s->focused);
    return focused && strcmp(focused, s->speaking) == 0;
}

int64_t khc_text_changed_at(const struct khc_state *s, int deleted) { return deleted ? s->deleted_at : s->inserted_at; }

struct ping {
    struct khc_state *s;
    unsigned generation;
};

static void ping_answered(DBusPendingCall *call, void *data) {
    struct ping *ping = data;
    if (ping->generation == ping->s->ping_generation) ping->s->ping_answered = 1;
    dbus_pending_call_unref(call);
}

int khc_ping_start(struct khc_state *s) {
    AtspiObject *focused = s->focused;
    if (!focused || !focused->app || !focused->app->bus || !focused->path) return -1;
    // A property of its accessible: answered from the program's main loop (the Peer interface's
    // Ping is answered by GDBus's worker thread in GTK 4, however busy the program is).
    DBusMessage *message = dbus_message_new_method_call(focused->app->bus_name, focused->path,
                                                        "org.freedesktop.DBus.Properties", "Get");
    if (!message) return -1;
    const char *interface = "org.a11y.atspi.Accessible", *property = "Name";
    dbus_message_append_args(message, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &property, DBUS_TYPE_INVALID);
    DBusPendingCall *call = NULL;
    int sent = dbus_connection_send_with_reply(focused->app->bus, message, &call, 10000) && call;
    dbus_message_unref(message);
    if (!sent) return -1;
    struct ping *ping = g_new(struct ping, 1);
    ping->s = s;
    ping->generation = ++s->ping_generation;
    s->ping_answered = 0;
    dbus_pending_call_set_notify(call, ping_answered, ping, g_free);
    return 0;
}

int khc_ping_done(const struct khc_state *s) { return s->ping_answered; }
