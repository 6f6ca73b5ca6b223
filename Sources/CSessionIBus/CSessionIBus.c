#include "CSessionIBus.h"
#include <ibus.h>
#include <string.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

// IBus's "fake" input context stands for "no application's text input has the focus": created
// first by ibus-daemon, so always InputContext_1 (bus/ibusimpl.c); text committed to it is
// dropped with no error.
#define FAKE_CONTEXT_SUFFIX "/InputContext_1"

#define BUS(s) ((IBusBus *)(s)->bus)
#define PANEL(s) ((IBusPanelService *)(s)->panel)

// ---- Keys passing through IBus
// ibus-daemon hands every message that matches a client's match rule to that client, method
// calls and replies included (bus/dbusimpl.c). With its rules the companion sees each
// ProcessKeyEvent that GNOME Shell (or any program of the user's) sends for a key, and the reply
// that lets the key go on to the program: a key has passed IBus when its reply has gone out, and
// a commit sent after that reaches GNOME Shell after it. The copies come in on GDBus's worker
// thread, to a filter that counts them and drops them: nothing of a key is kept but its caller
// and serial until its answer, and left to GDBus, a copied method call would be answered with an
// error. (ibus-daemon takes connections from its own user only: no other user's keys are seen.)
//
// The keys IBus has seen go down and not up: the desktop repeats a held key through the input
// method too (mutter's text input hands it every autorepeat: meta_wayland_text_input_handle_event
// in GNOME 43, _update later), presses that are none of the daemon's writes: counted, they let
// the next character go before the keys written ahead of it (a held key, then a pick: the é
// could go in before the Backspace that erases the e). Cleared when the focus moves: a key
// released while no text input has the focus goes past IBus.

int khi_count_key_event(struct khi_state *s, uint32_t keycode, int released) {
    if (keycode >= KHI_KEY_BITS) return 1;
    uint8_t bit = (uint8_t)(1u << (keycode % 8));
    uint8_t *byte = &s->keys_down[keycode / 8];
    if (released) { *byte &= (uint8_t)~bit; return 1; }
    if (*byte & bit) return 0;   // already down: a repeat
    *byte |= bit;
    return 1;
}

void khi_forget_keys_down(struct khi_state *s) { memset(s->keys_down, 0, sizeof s->keys_down); }

// Notes a ProcessKeyEvent (keyval, keycode, state) under the lock: whether it is a transition
// (`counts`; a malformed one counts), its slot in the trace ring (-1 for a malformed one) and
// what it does to a text field.
static void note_key_call(struct khi_state *s, GDBusMessage *message, int *counts, int *trace, int *edits) {
    GVariant *body = g_dbus_message_get_body(message);
    if (!body || !g_variant_is_of_type(body, G_VARIANT_TYPE("(uuu)"))) { *counts = 1; *trace = -1; *edits = KHI_EDIT_NONE; return; }
    guint32 keyval, keycode, state;
    g_variant_get(body, "(uuu)", &keyval, &keycode, &state);
    int released = (state & IBUS_RELEASE_MASK) != 0;
    *counts = khi_count_key_event(s, keycode, released);
    *edits = released ? KHI_EDIT_NONE : khi_key_edit(keyval, state);
    *trace = (int)(s->trace_next++ % KHI_TRACE);
    s->trace[*trace] = (keycode & 0xffff) | (released ? 1u << 16 : 0) | (*counts ? 1u << 17 : 0);
}

void khi_describe_recent_keys(struct khi_state *s, char *out, size_t size) {
    size_t used = 0;
    out[0] = 0;
    pthread_mutex_lock(&s->lock);
    unsigned n = s->trace_next < KHI_TRACE ? s->trace_next : KHI_TRACE;
    for (unsigned i = s->trace_next - n; i != s->trace_next && used + 12 < size; i++) {
        uint32_t t = s->trace[i % KHI_TRACE];
        used += (size_t)snprintf(out + used, size - used, "%s%u%s%s%s", used ? " " : "", t & 0xffff,
                                 t & (1u << 16) ? "^" : "v", t & (1u << 17) ? "" : "r", t & (1u << 18) ? "" : "*");
    }
    pthread_mutex_unlock(&s->lock);
}

static void wake(struct khi_state *s) {
    uint64_t one = 1;
    if (s->wake_fd >= 0 && write(s->wake_fd, &one, sizeof one) < 0) { /* full: already readable */ }
}

static GDBusMessage *key_filter(GDBusConnection *c, GDBusMessage *message, gboolean incoming, gpointer data) {
    (void)c;
    struct khi_state *s = data;
    if (!incoming) return message;
    const gchar *destination = g_dbus_message_get_destination(message);
    GDBusMessageType type = g_dbus_message_get_message_type(message);
    if (type == G_DBUS_MESSAGE_TYPE_METHOD_CALL
        && g_strcmp0(g_dbus_message_get_member(message), "ProcessKeyEvent") == 0
        && g_strcmp0(g_dbus_message_get_interface(message), IBUS_INTERFACE_INPUT_CONTEXT) == 0) {
        pthread_mutex_lock(&s->lock);
        int slot = 0;
        while (slot < KHI_MAX_PENDING && s->pending[slot].sender) slot++;
        if (slot == KHI_MAX_PENDING) {   // answers that never came (a program gone): forget them
            for (int i = 0; i < KHI_MAX_PENDING; i++) g_clear_pointer(&s->pending[i].sender, g_free);
            slot = 0;
        }
        s->pending[slot].sender = g_strdup(g_dbus_message_get_sender(message));
        s->pending[slot].serial = g_dbus_message_get_serial(message);
        note_key_call(s, message, &s->pending[slot].counts, &s->pending[slot].trace, &s->pending[slot].edits);
        pthread_mutex_unlock(&s->lock);
        g_object_unref(message);
        return NULL;
    }
    // Every answer not addressed to this process is a copy (an engine's to ibus-daemon has none):
    // dropped, or GDBus could take one whose serial matches a call of its own for the answer.
    if ((type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR)
        && g_strcmp0(destination, s->own_name) != 0) {
        guint32 serial = g_dbus_message_get_reply_serial(message);
        int passed = 0;
        pthread_mutex_lock(&s->lock);
        for (int i = 0; i < KHI_MAX_PENDING; i++) {
            if (!destination || !s->pending[i].sender || s->pending[i].serial != serial || strcmp(s->pending[i].sender, destination) != 0) continue;
            g_clear_pointer(&s->pending[i].sender, g_free);
            int64_t now = g_get_monotonic_time();
            khi_note_answer(s, now);
            // Answered TRUE: the engine took the key, and the program never gets it.
            GVariant *body = g_dbus_message_get_body(message);
            gboolean taken = FALSE;
            if (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN && body && g_variant_is_of_type(body, G_VARIANT_TYPE("(b)")))
                g_variant_get(body, "(b)", &taken);
            if (s->pending[i].edits != KHI_EDIT_NONE && !taken) {
                s->edit_kind = s->pending[i].edits;
                s->edit_passed_at = now;
            }
            if (s->pending[i].counts) { s->keys_passed++; passed = 1; }
            if (s->pending[i].trace >= 0) s->trace[s->pending[i].trace] |= 1u << 18;
            break;
        }
        pthread_mutex_unlock(&s->lock);
        if (passed) wake(s);
        g_object_unref(message);
        return NULL;
    }
    return message;
}

// The rules and the filter, on the connection of the moment.
static void watch_keys(struct khi_state *s, GDBusConnection *connection) {
    g_free(s->own_name);
    s->own_name = g_strdup(g_dbus_connection_get_unique_name(connection));
    s->filter_id = g_dbus_connection_add_filter(connection, key_filter, s, NULL);
    ibus_bus_add_match(BUS(s), "type='method_call',interface='" IBUS_INTERFACE_INPUT_CONTEXT "',member='ProcessKeyEvent'");
    ibus_bus_add_match(BUS(s), "type='method_return'");
    ibus_bus_add_match(BUS(s), "type='error'");
}

void khi_reset_keys(struct khi_state *s) {
    pthread_mutex_lock(&s->lock);
    s->keys_passed = 0;
    s->edit_kind = KHI_EDIT_NONE;
    s->edit_passed_at = 0;
    pthread_mutex_unlock(&s->lock);
}

uint64_t khi_keys_passed(struct khi_state *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t passed = s->keys_passed;
    pthread_mutex_unlock(&s->lock);
    return passed;
}

int khi_last_edit(struct khi_state *s, int64_t *at_us) {
    pthread_mutex_lock(&s->lock);
    int kind = s->edit_kind;
    *at_us = s->edit_passed_at;
    pthread_mutex_unlock(&s->lock);
    return kind;
}

int khi_key_edit(uint32_t keyval, uint32_t state) {
    if (keyval == IBUS_KEY_BackSpace || keyval == IBUS_KEY_Delete || keyval == IBUS_KEY_KP_Delete) return KHI_EDIT_DELETE;
    // A shortcut edits nothing; Return, Tab and Escape are characters below the space.
    if (state & (IBUS_CONTROL_MASK | IBUS_MOD1_MASK | IBUS_MOD4_MASK | IBUS_SUPER_MASK)) return KHI_EDIT_NONE;
    gunichar c = ibus_keyval_to_unicode(keyval);
    return c >= 0x20 && c != 0x7f ? KHI_EDIT_INSERT : KHI_EDIT_NONE;
}

void khi_note_answer(struct khi_state *s, int64_t at_us) { s->answered_at[s->answers++ % KHI_ANSWERS] = at_us; }

int khi_recent_answers(struct khi_state *s, int64_t since_us) {
    pthread_mutex_lock(&s->lock);
    unsigned n = s->answers < KHI_ANSWERS ? s->answers : KHI_ANSWERS;
    int recent = 0;
    for (unsigned i = 0; i < n; i++) recent += s->answered_at[(s->answers - 1 - i) % KHI_ANSWERS] >= since_us;
    pthread_mutex_unlock(&s->lock);
    return recent;
}

int khi_wake_fd(const struct khi_state *s) { return s->wake_fd; }

static gboolean is_real_context(const gchar *path) {
    return path && !g_str_has_suffix(path, FAKE_CONTEXT_SUFFIX);
}

// The focus moved: no release of a key down now has to come through IBus.
static void focus_moved(struct khi_state *s) {
    s->focus_changes++;
    pthread_mutex_lock(&s->lock);
    khi_forget_keys_down(s);
    pthread_mutex_unlock(&s->lock);
}

static void focus_in(IBusPanelService *p, const gchar *path, gpointer data) {
    (void)p;
    struct khi_state *s = data;
    if (g_strcmp0(path, s->focused_path) != 0) focus_moved(s);
    g_free(s->focused_path);
    s->focused_path = g_strdup(path);
}

static void focus_out(IBusPanelService *p, const gchar *path, gpointer data) {
    (void)p;
    struct khi_state *s = data;
    if (g_strcmp0(path, s->focused_path) != 0) return;   // an older context's late focus-out
    g_clear_pointer(&s->focused_path, g_free);
    s->purpose = 0;
    focus_moved(s);
}

static void content_type(IBusPanelService *p, guint new_purpose, guint hints, gpointer data) {
    (void)p; (void)hints;
    struct khi_state *s = data;
    if ((int)new_purpose != s->purpose) s->focus_changes++;   // said just after the focus moved
    s->purpose = (int)new_purpose;
}

// The panel service (exported before the name is requested: ibus-daemon calls FocusIn on it as
// soon as it sees the new owner), then the name. Again after each reconnection.
static void take_extension(struct khi_state *s) {
    s->named = FALSE;
    g_clear_pointer(&s->focused_path, g_free);
    s->purpose = 0;
    if (s->panel) {
        ibus_object_destroy((IBusObject *)s->panel);
        g_clear_object(&s->panel);
    }
    GDBusConnection *connection = ibus_bus_get_connection(BUS(s));
    if (!connection) return;
    watch_keys(s, connection);
    s->panel = g_object_new(IBUS_TYPE_PANEL_SERVICE, "object-path", IBUS_PATH_PANEL_EXTENSION_EMOJI,
                            "connection", connection, NULL);
    g_signal_connect(s->panel, "focus-in", G_CALLBACK(focus_in), s);
    g_signal_connect(s->panel, "focus-out", G_CALLBACK(focus_out), s);
    g_signal_connect(s->panel, "set-content-type", G_CALLBACK(content_type), s);
    guint reply = ibus_bus_request_name(BUS(s), IBUS_SERVICE_PANEL_EXTENSION_EMOJI,
                                        IBUS_BUS_NAME_FLAG_REPLACE_EXISTING | IBUS_BUS_NAME_FLAG_DO_NOT_QUEUE);
    s->named = reply == IBUS_BUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || reply == IBUS_BUS_REQUEST_NAME_REPLY_ALREADY_OWNER;
    if (!s->named) g_message("keyhold-session: cannot take %s (reply %u)", IBUS_SERVICE_PANEL_EXTENSION_EMOJI, reply);
}

static void connected(IBusBus *b, gpointer data) { (void)b; take_extension(data); }
static void disconnected(IBusBus *b, gpointer data) {
    (void)b;
    struct khi_state *s = data;
    s->named = FALSE;
    g_clear_pointer(&s->focused_path, g_free);
    focus_moved(s);
}

int khi_open(struct khi_state *s) {
    if (s->bus) return khi_ready(s);
    pthread_mutex_init(&s->lock, NULL);
    s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->sync_answered = s->panel_answered = 1;
    ibus_init();
    s->bus = ibus_bus_new();
    if (!s->bus) return -1;
    g_signal_connect(s->bus, "connected", G_CALLBACK(connected), s);
    g_signal_connect(s->bus, "disconnected", G_CALLBACK(disconnected), s);
    if (!ibus_bus_is_connected(BUS(s))) return 0;
    take_extension(s);
    return s->named ? 1 : -1;
}

void khi_close(struct khi_state *s) {
    if (!s->bus) return;
    GDBusConnection *connection = ibus_bus_get_connection(BUS(s));
    if (s->filter_id && connection) g_dbus_connection_remove_filter(connection, s->filter_id);
    s->filter_id = 0;
    if (s->named) ibus_bus_release_name(BUS(s), IBUS_SERVICE_PANEL_EXTENSION_EMOJI);
    if (s->panel) {
        ibus_object_destroy((IBusObject *)s->panel);
        g_clear_object(&s->panel);
    }
    g_signal_handlers_disconnect_by_data(s->bus, s);
    g_clear_object(&s->bus);
    g_clear_pointer(&s->focused_path, g_free);
    g_clear_object(&s->shown_table);
    s->named = FALSE;
    // Round trips still under way find their generation gone by (the state itself stays).
    s->sync_generation++; s->panel_generation++;
    s->sync_answered = s->panel_answered = 1;
}

int khi_ready(const struct khi_state *s) { return s->bus && s->named && ibus_bus_is_connected(BUS(s)); }

int khi_focused(const struct khi_state *s) { return khi_ready(s) && is_real_context(s->focused_path); }

int khi_purpose(const struct khi_state *s) { return khi_focused(s) ? s->purpose : 0; }

int khi_take_focus_changes(struct khi_state *s) {
    int n = s->focus_changes;
    s->focus_changes = 0;
    return n;
}

int khi_commit(struct khi_state *s, const char *utf8) {
    if (!khi_focused(s)) return -1;
    IBusText *text = g_object_ref_sink(ibus_text_new_from_string(utf8));
    ibus_panel_service_commit_text(PANEL(s), text);
    g_object_unref(text);
    return 0;
}

// ---- Round trips, answered through the main context

// What an answer needs: whose, and which round trip it ends (a newer one makes it stale).
struct round_trip { struct khi_state *s; unsigned generation; int panel; };

static void answered(GObject *source, GAsyncResult *result, gpointer data) {
    struct round_trip *trip = data;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, NULL);
    if (reply) g_variant_unref(reply);   // an error or a timeout ends the wait as well
    struct khi_state *s = trip->s;
    if (trip->panel) { if (trip->generation == s->panel_generation) s->panel_answered = 1; }
    else if (trip->generation == s->sync_generation) s->sync_answered = 1;
    g_free(trip);
}

int khi_sync_start(struct khi_state *s) {
    if (!khi_ready(s)) return -1;
    struct round_trip *trip = g_new(struct round_trip, 1);
    *trip = (struct round_trip){ s, ++s->sync_generation, 0 };
    s->sync_answered = 0;
    // Any method call: ibus-daemon handles one connection's messages in order.
    g_dbus_connection_call(ibus_bus_get_connection(BUS(s)), "org.freedesktop.DBus", "/org/freedesktop/DBus",
                           "org.freedesktop.DBus", "GetId", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 2000, NULL, answered, trip);
    return 0;
}

int khi_sync_done(const struct khi_state *s) { return s->sync_answered; }

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
int khi_sync_panel_start(struct khi_state *s) {
    if (!khi_ready(s)) return -1;
    struct round_trip *trip = g_new(struct round_trip, 1);
    *trip = (struct round_trip){ s, ++s->panel_generation, 1 };
    s->panel_answered = 0;
    g_dbus_connection_call(ibus_bus_get_connection(BUS(s)), IBUS_SERVICE_PANEL, IBUS_PATH_PANEL, "org.freedesktop.DBus.Properties",
                           "GetAll", g_variant_new("(s)", IBUS_INTERFACE_PANEL), NULL, G_DBUS_CALL_FLAGS_NONE, 1000, NULL,
                           answered, trip);
    return 0;
}

int khi_sync_panel_done(const struct khi_state *s) { return s->panel_answered; }

// ---- The picker as a lookup table

// The auxiliary text (the highlighted candidate's name, a search's query before it) above the table; NULL
// or "" hides it (told to the panel only when it was shown).
static void show_auxiliary(struct khi_state *s, const char *auxiliary) {
    int has_auxiliary = auxiliary && *auxiliary;
    if (!has_auxiliary && !s->shown_auxiliary) return;
    ibus_panel_service_update_auxiliary_text_received(PANEL(s), ibus_text_new_from_string(has_auxiliary ? auxiliary : ""),
                                                      has_auxiliary);
    s->shown_auxiliary = has_auxiliary;
}

// The table shown is hidden as it is (visible FALSE), then let go.
static void hide_lookup_table(struct khi_state *s) {
    if (!s->shown_table) return;
    ibus_panel_service_update_lookup_table_received(PANEL(s), s->shown_table, FALSE);
    g_clear_object(&s->shown_table);
}

void khi_show_table(struct khi_state *s, const char *const *candidates, int count, int cursor, const char *auxiliary) {
    if (!khi_ready(s)) return;
    show_auxiliary(s, auxiliary);
    if (count <= 0) { hide_lookup_table(s); return; }
    if (count > 16) count = 16;   // IBus's page size limit; callouts have fewer
    IBusLookupTable *table = g_object_ref_sink(ibus_lookup_table_new((guint)count, 0, TRUE, FALSE));
    ibus_lookup_table_set_orientation(table, IBUS_ORIENTATION_HORIZONTAL);
    for (int i = 0; i < count; i++) {
        ibus_lookup_table_append_candidate(table, ibus_text_new_from_string(candidates[i]));
        ibus_lookup_table_append_label(table, ibus_text_new_from_printf("%d", i + 1));
    }
    if (cursor >= 0 && cursor < count) ibus_lookup_table_set_cursor_pos(table, (guint)cursor);
    ibus_lookup_table_set_cursor_visible(table, cursor >= 0 && cursor < count);
    ibus_panel_service_update_lookup_table_received(PANEL(s), table, TRUE);
    if (s->shown_table) g_object_unref(s->shown_table);
    s->shown_table = table;
}

void khi_hide_table(struct khi_state *s) {
    if (!khi_ready(s)) return;
    show_auxiliary(s, NULL);
    hide_lookup_table(s);
}
