#include "CSessionIBus.h"
#include <gio/gio.h>
#include <ibus.h>
#include <string.h>

// GNOME's input sources (org.gnome.desktop.input-sources): GNOME Shell compiles all of them into
// one keymap and switches between them by locking a layout group, which it tells only the
// focused Wayland client, so a companion with no window never sees the switch on the seat. The
// settings say it: the current source is the first of `mru-sources` (GNOME Shell rewrites it on
// every switch) that is still among `sources`.

static void changed(GSettings *settings, const gchar *key, gpointer data) {
    (void)settings;
    struct khg_state *s = data;
    if (!strcmp(key, "sources") || !strcmp(key, "mru-sources") || !strcmp(key, "xkb-options")) s->changes++;
}

int khg_open(struct khg_state *s) {
    if (s->settings) return 1;
    const char *desktop = g_getenv("XDG_CURRENT_DESKTOP");
    if (!desktop || !strstr(desktop, "GNOME")) return 0;
    GSettingsSchemaSource *source = g_settings_schema_source_get_default();
    GSettingsSchema *schema = source ? g_settings_schema_source_lookup(source, "org.gnome.desktop.input-sources", TRUE) : NULL;
    if (!schema) return 0;   // g_settings_new would abort without it
    g_settings_schema_unref(schema);
    s->settings = g_settings_new("org.gnome.desktop.input-sources");
    g_signal_connect(s->settings, "changed", G_CALLBACK(changed), s);
    return 1;
}

void khg_close(struct khg_state *s) {
    if (s->settings) g_signal_handlers_disconnect_by_data(s->settings, s);
    g_clear_object(&s->settings);
}

int khg_take_changes(struct khg_state *s) {
    int n = s->changes;
    s->changes = 0;
    return n;
}

static int contains(GVariant *sources, const char *type, const char *id) {
    GVariantIter iter;
    const char *t, *i;
    g_variant_iter_init(&iter, sources);
    while (g_variant_iter_next(&iter, "(&s&s)", &t, &i)) if (!strcmp(t, type) && !strcmp(i, id)) return 1;
    return 0;
}

// An IBus engine's own layout (most say "us"; "default": the layout before it). Asked of
// ibus-daemon and waited for: only when the current source is an IBus engine and changed.
static void engine_layout(IBusBus *bus, const char *engine, char *layout, int layout_size, char *variant, int variant_size) {
    if (!bus || !ibus_bus_is_connected(bus)) return;
    const gchar *names[] = { engine, NULL };
    IBusEngineDesc **descs = ibus_bus_get_engines_by_names(bus, names);
    if (descs && descs[0]) {
        const gchar *l = ibus_engine_desc_get_layout(descs[0]), *v = ibus_engine_desc_get_layout_variant(descs[0]);
        if (l && *l && strcmp(l, "default") != 0) {
            g_strlcpy(layout, l, (gsize)layout_size);
            g_strlcpy(variant, v ? v : "", (gsize)variant_size);
        }
    }
    for (int i = 0; descs && descs[i]; i++) g_object_unref(descs[i]);
    g_free(descs);
}

int khg_current(const struct khg_state *s, struct khi_state *ibus, char *layout, int layout_size, char *variant, int variant_size,
                char *options, int options_size) {
    GSettings *settings = s->settings;
    if (!settings) return 0;
    g_strlcpy(layout, "us", (gsize)layout_size);
    variant[0] = options[0] = 0;
    GVariant *sources = g_settings_get_value(settings, "sources");
    GVariant *mru = g_settings_get_value(settings, "mru-sources");
    const char *type = NULL, *id = NULL;
    GVariantIter iter;
    const char *t, *i;
    g_variant_iter_init(&iter, mru);
    while (!type && g_variant_iter_next(&iter, "(&s&s)", &t, &i)) if (contains(sources, t, i)) { type = t; id = i; }
    if (!type && g_variant_n_children(sources) > 0) g_variant_get_child(sources, 0, "(&s&s)", &type, &id);
    if (type && !strcmp(type, "xkb")) {
        const char *plus = strchr(id, '+');
        if (plus) {
            g_strlcpy(layout, id, MIN((gsize)layout_size, (gsize)(plus - id) + 1));
            g_strlcpy(variant, plus + 1, (gsize)variant_size);
        } else {
            g_strlcpy(layout, id, (gsize)layout_size);
        }
    } else if (type && !strcmp(type, "ibus")) {
        engine_layout(ibus ? ibus->bus : NULL, id, layout, layout_size, variant, variant_size);
    }
    gchar **xkb_options = g_settings_get_strv(settings, "xkb-options");
    gchar *joined = g_strjoinv(",", xkb_options);
    g_strlcpy(options, joined, (gsize)options_size);
    g_free(joined);
    g_strfreev(xkb_options);
    g_variant_unref(mru);
    g_variant_unref(sources);
    return 1;
}
