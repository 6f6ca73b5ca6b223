#include "CSessionIBus.h"
#include <ibus.h>
#include <string.h>

// IBus's "fake" input context stands for "no application's text input has the focus": created
// first by ibus-daemon, so always InputContext_1 (bus/ibusimpl.c); text committed to it is
// dropped with no error.
#define FAKE_CONTEXT_SUFFIX "/InputContext_1"

static IBusBus *bus;
static IBusPanelService *panel;
static gboolean named;
static gchar *focused_path;
static int purpose;
static int focus_changes;
// The lookup table shown last: hidden as it is (visible FALSE), not replaced by an empty one.
static IBusLookupTable *shown_table;

// ---- Keys passing through IBus
// ibus-daemon hands every message that matches a client's match rule to that client, method
// calls and replies included (bus/dbusimpl.c). With its rules the companion sees each
// ProcessKeyEvent that GNOME Shell (or any program of the user's) sends for a key, and the reply
// that lets the key go on to the program: a key has passed IBus when its reply has gone out, and
// a commit sent after that reaches GNOME Shell after it. The copies come in on GDBus's worker
// thread, to a filter that counts them and drops them: nothing of a key is kept but its caller
// and serial until its answer, and left to GDBus, a copied method call would be answered with an
// error. (ibus-daemon takes connections from its own user only: no other user's keys are seen.)
enum { MAX_PENDING = 256 };
static GMutex keys_lock;
static GCond keys_passed_cond;
// `counts`: a key transition, not a repeat (khi_count_key_event).
static struct { gchar *sender; guint32 serial; gboolean counts; } pending[MAX_PENDING];
static guint64 keys_passed;
static guint filter_id;
static gchar *own_name;

// The keys IBus has seen go down and not up. The desktop repeats a held key through the input
// method too (mutter's text input hands it every autorepeat: meta_wayland_text_input_handle_event
// in GNOME 43, _update later), presses that are none of the daemon's writes: counted, they let
// the next character go before the keys written ahead of it (a held key, then a pick: the é
// could go in before the Backspace that erases the e). Cleared when the focus moves: a key
// released while no text input has the focus goes past IBus. Guarded by keys_lock.
enum { KEY_BITS = 1024 };
static guint8 keys_down[KEY_BITS / 8];

int khi_count_key_event(uint32_t keycode, int released) {
    if (keycode >= KEY_BITS) return 1;
    guint8 bit = (guint8)(1u << (keycode % 8));
    guint8 *byte = &keys_down[keycode / 8];
    if (released) { *byte &= (guint8)~bit; return 1; }
    if (*byte & bit) return 0;   // already down: a repeat
    *byte |= bit;
    return 1;
}

void khi_forget_keys_down(void) { memset(keys_down, 0, sizeof keys_down); }   // under keys_lock

// Whether a ProcessKeyEvent (keyval, keycode, state) is a transition; a malformed one counts.
static gboolean counts_key_call(GDBusMessage *message) {
    GVariant *body = g_dbus_message_get_body(message);
    if (!body || !g_variant_is_of_type(body, G_VARIANT_TYPE("(uuu)"))) return TRUE;
    guint32 keyval, keycode, state;
    g_variant_get(body, "(uuu)", &keyval, &keycode, &state);
    return khi_count_key_event(keycode, (state & IBUS_RELEASE_MASK) != 0);
}

static GDBusMessage *key_filter(GDBusConnection *c, GDBusMessage *message, gboolean incoming, gpointer data) {
    (void)c; (void)data;
    if (!incoming) return message;
    const gchar *destination = g_dbus_message_get_destination(message);
    GDBusMessageType type = g_dbus_message_get_message_type(message);
    if (type == G_DBUS_MESSAGE_TYPE_METHOD_CALL
        && g_strcmp0(g_dbus_message_get_member(message), "ProcessKeyEvent") == 0
        && g_strcmp0(g_dbus_message_get_interface(message), IBUS_INTERFACE_INPUT_CONTEXT) == 0) {
        g_mutex_lock(&keys_lock);
        int slot = 0;
        while (slot < MAX_PENDING && pending[slot].sender) slot++;
        if (slot == MAX_PENDING) {   // answers that never came (a program gone): forget them
            for (int i = 0; i < MAX_PENDING; i++) g_clear_pointer(&pending[i].sender, g_free);
            slot = 0;
        }
        pending[slot].sender = g_strdup(g_dbus_message_get_sender(message));
        pending[slot].serial = g_dbus_message_get_serial(message);
        pending[slot].counts = counts_key_call(message);
        g_mutex_unlock(&keys_lock);
        g_object_unref(message);
        return NULL;
    }
    // Every answer not addressed to this process is a copy (an engine's to ibus-daemon has none):
    // dropped, or GDBus could take one whose serial matches a call of its own for the answer.
    if ((type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR)
        && g_strcmp0(destination, own_name) != 0) {
        guint32 serial = g_dbus_message_get_reply_serial(message);
        g_mutex_lock(&keys_lock);
        for (int i = 0; i < MAX_PENDING; i++) {
            if (!destination || !pending[i].sender || pending[i].serial != serial || strcmp(pending[i].sender, destination) != 0) continue;
            g_clear_pointer(&pending[i].sender, g_free);
            if (pending[i].counts) {
                keys_passed++;
                g_cond_broadcast(&keys_passed_cond);
            }
            break;
        }
        g_mutex_unlock(&keys_lock);
        g_object_unref(message);
        return NULL;
    }
    return message;
}

// The rules and the filter, on the connection of the moment.
static void watch_keys(GDBusConnection *connection) {
    g_free(own_name);
    own_name = g_strdup(g_dbus_connection_get_unique_name(connection));
    filter_id = g_dbus_connection_add_filter(connection, key_filter, NULL, NULL);
    ibus_bus_add_match(bus, "type='method_call',interface='" IBUS_INTERFACE_INPUT_CONTEXT "',member='ProcessKeyEvent'");
    ibus_bus_add_match(bus, "type='method_return'");
    ibus_bus_add_match(bus, "type='error'");
}

void khi_reset_keys(void) {
    g_mutex_lock(&keys_lock);
    keys_passed = 0;
    g_mutex_unlock(&keys_lock);
}

int khi_wait_keys(uint64_t count, int timeout_ms) {
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    g_mutex_lock(&keys_lock);
    while (keys_passed < count) {
        if (!g_cond_wait_until(&keys_passed_cond, &keys_lock, deadline)) break;
    }
    int reached = keys_passed >= count;
    g_mutex_unlock(&keys_lock);
    return reached;
}

uint64_t khi_keys_passed(void) {
    g_mutex_lock(&keys_lock);
    uint64_t passed = keys_passed;
    g_mutex_unlock(&keys_lock);
    return passed;
}

static gboolean is_real_context(const gchar *path) {
    return path && !g_str_has_suffix(path, FAKE_CONTEXT_SUFFIX);
}

// The focus moved: no release of a key down now has to come through IBus.
static void focus_moved(void) {
    focus_changes++;
    g_mutex_lock(&keys_lock);
    khi_forget_keys_down();
    g_mutex_unlock(&keys_lock);
}

static void focus_in(IBusPanelService *p, const gchar *path, gpointer data) {
    (void)p; (void)data;
    if (g_strcmp0(path, focused_path) != 0) focus_moved();
    g_free(focused_path);
    focused_path = g_strdup(path);
}

static void focus_out(IBusPanelService *p, const gchar *path, gpointer data) {
    (void)p; (void)data;
    if (g_strcmp0(path, focused_path) != 0) return;   // an older context's late focus-out
    g_free(focused_path);
    focused_path = NULL;
    purpose = 0;
    focus_moved();
}

static void content_type(IBusPanelService *p, guint new_purpose, guint hints, gpointer data) {
    (void)p; (void)hints; (void)data;
    if ((int)new_purpose != purpose) focus_changes++;   // said just after the focus moved
    purpose = (int)new_purpose;
}

// The panel service (exported before the name is requested: ibus-daemon calls FocusIn on it as
// soon as it sees the new owner), then the name. Again after each reconnection.
static void take_extension(void) {
    named = FALSE;
    g_clear_pointer(&focused_path, g_free);
    purpose = 0;
    if (panel) {
        ibus_object_destroy((IBusObject *)panel);
        g_clear_object(&panel);
    }
    GDBusConnection *connection = ibus_bus_get_connection(bus);
    if (!connection) return;
    watch_keys(connection);
    panel = g_object_new(IBUS_TYPE_PANEL_SERVICE, "object-path", IBUS_PATH_PANEL_EXTENSION_EMOJI,
                         "connection", connection, NULL);
    g_signal_connect(panel, "focus-in", G_CALLBACK(focus_in), NULL);
    g_signal_connect(panel, "focus-out", G_CALLBACK(focus_out), NULL);
    g_signal_connect(panel, "set-content-type", G_CALLBACK(content_type), NULL);
    guint reply = ibus_bus_request_name(bus, IBUS_SERVICE_PANEL_EXTENSION_EMOJI,
                                        IBUS_BUS_NAME_FLAG_REPLACE_EXISTING | IBUS_BUS_NAME_FLAG_DO_NOT_QUEUE);
    named = reply == IBUS_BUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || reply == IBUS_BUS_REQUEST_NAME_REPLY_ALREADY_OWNER;
    if (!named) g_message("keyhold-session: cannot take %s (reply %u)", IBUS_SERVICE_PANEL_EXTENSION_EMOJI, reply);
}

static void connected(IBusBus *b, gpointer data) { (void)b; (void)data; take_extension(); }
static void disconnected(IBusBus *b, gpointer data) {
    (void)b; (void)data;
    named = FALSE;
    g_clear_pointer(&focused_path, g_free);
    focus_moved();
}

int khi_open(void) {
    if (bus) return khi_ready();
    ibus_init();
    bus = ibus_bus_new();
    if (!bus) return -1;
    g_signal_connect(bus, "connected", G_CALLBACK(connected), NULL);
    g_signal_connect(bus, "disconnected", G_CALLBACK(disconnected), NULL);
    if (!ibus_bus_is_connected(bus)) return 0;
    take_extension();
    return named ? 1 : -1;
}

void khi_close(void) {
    if (!bus) return;
    GDBusConnection *connection = ibus_bus_get_connection(bus);
    if (filter_id && connection) g_dbus_connection_remove_filter(connection, filter_id);
    filter_id = 0;
    if (named) ibus_bus_release_name(bus, IBUS_SERVICE_PANEL_EXTENSION_EMOJI);
    if (panel) {
        ibus_object_destroy((IBusObject *)panel);
        g_clear_object(&panel);
    }
    g_signal_handlers_disconnect_by_data(bus, NULL);
    g_clear_object(&bus);
    g_clear_pointer(&focused_path, g_free);
    g_clear_object(&shown_table);
    named = FALSE;
}

int khi_ready(void) { return bus && named && ibus_bus_is_connected(bus); }

int khi_focused(void) { return khi_ready() && is_real_context(focused_path); }

int khi_purpose(void) { return khi_focused() ? purpose : 0; }

int khi_take_focus_changes(void) {
    int n = focus_changes;
    focus_changes = 0;
    return n;
}

int khi_commit(const char *utf8) {
    if (!khi_focused()) return -1;
    IBusText *text = g_object_ref_sink(ibus_text_new_from_string(utf8));
    ibus_panel_service_commit_text(panel, text);
    g_object_unref(text);
    return 0;
}

int khi_sync(void) {
    if (!khi_ready()) return -1;
    // Any method call: ibus-daemon handles one connection's messages in order.
    GVariant *reply = g_dbus_connection_call_sync(ibus_bus_get_connection(bus), "org.freedesktop.DBus",
                                                  "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                                                  NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 2000, NULL, NULL);
    if (!reply) return -1;
    g_variant_unref(reply);
    return 0;
}

// GNOME Shell puts a key that passed IBus back into mutter's event queue from the main-thread
// callback of its ProcessKeyEvent answer; mutter's backend source hands the program one queued
// event per main-loop iteration, and a commit GNOME Shell handles before that goes first (mutter
// then flushes it ahead of the key: meta_wayland_text_input_handle_event in mutter 43). Its
// connection to ibus-daemon carries the answers, this call and the commit in order, and its main
// context runs their callbacks in that order: once the panel has answered, every key answered
// before is back in the queue, and each main-loop iteration after it (a round trip to the
// compositor is at least one) has the backend source, older than any callback, hand on one more.
// A Wayland round trip alone proves nothing of the answers: GNOME Shell reads them on GDBus's
// worker thread, which a loaded machine may run late. Properties.GetAll of the panel's interface
// (it has none) is answered from the main context and changes nothing.
int khi_sync_panel(void) {
    if (!khi_ready()) return -1;
    GVariant *reply = g_dbus_connection_call_sync(ibus_bus_get_connection(bus), IBUS_SERVICE_PANEL, IBUS_PATH_PANEL,
                                                  "org.freedesktop.DBus.Properties", "GetAll",
                                                  g_variant_new("(s)", IBUS_INTERFACE_PANEL), NULL,
                                                  G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
    if (!reply) return -1;
    g_variant_unref(reply);
    return 0;
}

void khi_show_table(const char *const *candidates, int count, int cursor) {
    if (!khi_ready() || count <= 0) return;
    if (count > 16) count = 16;   // IBus's page size limit; callouts have fewer
    IBusLookupTable *table = g_object_ref_sink(ibus_lookup_table_new((guint)count, 0, TRUE, FALSE));
    ibus_lookup_table_set_orientation(table, IBUS_ORIENTATION_HORIZONTAL);
    for (int i = 0; i < count; i++) {
        ibus_lookup_table_append_candidate(table, ibus_text_new_from_string(candidates[i]));
        ibus_lookup_table_append_label(table, ibus_text_new_from_printf("%d", i + 1));
    }
    if (cursor >= 0 && cursor < count) ibus_lookup_table_set_cursor_pos(table, (guint)cursor);
    ibus_lookup_table_set_cursor_visible(table, cursor >= 0 && cursor < count);
    ibus_panel_service_update_lookup_table_received(panel, table, TRUE);
    if (shown_table) g_object_unref(shown_table);
    shown_table = table;
}

void khi_hide_table(void) {
    if (!khi_ready() || !shown_table) return;
    ibus_panel_service_update_lookup_table_received(panel, shown_table, FALSE);
    g_clear_object(&shown_table);
}
