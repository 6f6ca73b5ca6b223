#include "CSessionKWin.h"
#include <gio/gio.h>
#include <string.h>

// KDE's keyboard layouts: KWin compiles all of them into one keymap and switches between them
// by locking a layout group, which it tells only the focused client, so a companion with no
// window (the input method's connection included) never sees a switch on the seat. KWin's
// org.kde.keyboard service says which layout is current and signals every switch; it is asked
// without waiting, and its answer counts as a change when it comes.

static void got_layout(GObject *source, GAsyncResult *result, gpointer data) {
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, NULL);
    if (!reply) return;   // (also when closed: the state is not touched then)
    struct khk_state *s = data;
    guint current = 0;
    g_variant_get(reply, "(u)", &current);
    g_variant_unref(reply);
    s->current = current;
    s->changes++;
}

static void ask_layout(struct khk_state *s) {
    g_dbus_connection_call(s->bus, "org.kde.keyboard", "/Layouts", "org.kde.KeyboardLayouts", "getLayout", NULL,
                           G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, 1000, NULL, got_layout, s);
}

static void changed(GDBusConnection *c, const gchar *sender, const gchar *path, const gchar *interface,
                    const gchar *signal, GVariant *parameters, gpointer data) {
    (void)c; (void)sender; (void)path; (void)interface; (void)signal; (void)parameters;
    struct khk_state *s = data;
    s->changes++;
    ask_layout(s);
}

int khk_open(struct khk_state *s) {
    if (s->bus) return 1;
    const char *desktop = g_getenv("XDG_CURRENT_DESKTOP");
    if (!desktop || !strstr(desktop, "KDE")) return 0;
    s->bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!s->bus) return 0;
    // (for the process's life: the state lives as long; never unsubscribed)
    const char *signals[2] = { "layoutChanged", "layoutListChanged" };
    for (int i = 0; i < 2; i++)
        g_dbus_connection_signal_subscribe(s->bus, NULL, "org.kde.KeyboardLayouts", signals[i], "/Layouts", NULL,
                                           G_DBUS_SIGNAL_FLAGS_NONE, changed, s, NULL);
    ask_layout(s);
    return 1;
}

void khk_close(struct khk_state *s) {
    (void)s;   // the connection stays for the process (GLib shares the session bus)
}

// Entry `index` of a comma-separated list ("" past its end).
static void nth(const char *list, guint index, char *out, int size) {
    out[0] = 0;
    if (!list) return;
    gchar **items = g_strsplit(list, ",", -1);
    if (index < g_strv_length(items)) g_strlcpy(out, g_strstrip(items[index]), (gsize)size);
    g_strfreev(items);
}

int khk_current(const struct khk_state *s, char *layout, int layout_size, char *variant, int variant_size, char *options, int options_size) {
    if (!s->bus) return 0;
    // KDE's layouts as KWin reads them (kxkbrc's [Layout]); without a list there, the system's
    // (localed's), which is the seat's keymap.
    gchar *path = g_build_filename(g_get_user_config_dir(), "kxkbrc", NULL);
    GKeyFile *file = g_key_file_new();
    int loaded = g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, NULL);
    g_free(path);
    gchar *layouts = loaded ? g_key_file_get_string(file, "Layout", "LayoutList", NULL) : NULL;
    int found = 0;
    if (layouts && *layouts) {
        gchar *variants = g_key_file_get_string(file, "Layout", "VariantList", NULL);
        gchar *reset = g_key_file_get_string(file, "Layout", "ResetOldOptions", NULL);
        gchar *opts = reset && !strcmp(reset, "true") ? g_key_file_get_string(file, "Layout", "Options", NULL) : NULL;
        nth(layouts, s->current, layout, layout_size);
        nth(variants, s->current, variant, variant_size);
        g_strlcpy(options, opts ? opts : "", (gsize)options_size);
        found = layout[0] != 0;
        g_free(variants); g_free(reset); g_free(opts);
    }
    g_free(layouts);
    g_key_file_free(file);
    return found;
}

int khk_take_changes(struct khk_state *s) {
    int n = s->changes;
    s->changes = 0;
    return n;
}
