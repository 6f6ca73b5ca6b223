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

static gboolean is_real_context(const gchar *path) {
    return path && !g_str_has_suffix(path, FAKE_CONTEXT_SUFFIX);
}

static void focus_in(IBusPanelService *p, const gchar *path, gpointer data) {
    (void)p; (void)data;
    if (g_strcmp0(path, focused_path) != 0) focus_changes++;
    g_free(focused_path);
    focused_path = g_strdup(path);
}

static void focus_out(IBusPanelService *p, const gchar *path, gpointer data) {
    (void)p; (void)data;
    if (g_strcmp0(path, focused_path) != 0) return;   // an older context's late focus-out
    g_free(focused_path);
    focused_path = NULL;
    purpose = 0;
    focus_changes++;
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
    focus_changes++;
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
