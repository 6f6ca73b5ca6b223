#include "CSessionKWin.h"
#include <gio/gio.h>
#include <string.h>

// The D-Bus half of taking or giving back KWin's input-method slot; the file half is Swift's
// (KWinInputMethodSlot.swift). GLib's shared session bus connection; nothing kept here.

int khs_announce_config_change(const char *file, const char *group, const char *key) {
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!bus) return 0;
    // KConfig's notification: a{saay}, each group's changed keys as byte arrays without a NUL,
    // on the object path "/" + the file's name, as KConfigWatcher listens for it.
    GVariantBuilder groups, keys;
    g_variant_builder_init(&keys, G_VARIANT_TYPE("aay"));
    g_variant_builder_add_value(&keys, g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, key, strlen(key), 1));
    g_variant_builder_init(&groups, G_VARIANT_TYPE("a{saay}"));
    g_variant_builder_add(&groups, "{saay}", group, &keys);
    gchar *path = g_strconcat("/", file, NULL);
    gboolean sent = g_dbus_connection_emit_signal(bus, NULL, path, "org.kde.kconfig.notify", "ConfigChanged",
                                                  g_variant_new("(a{saay})", &groups), NULL);
    g_free(path);
    // Sent before the reference goes: the last one closes the connection with what it queued.
    if (sent) g_dbus_connection_flush_sync(bus, NULL, NULL);
    g_object_unref(bus);
    return sent ? 1 : 0;
}

int khs_notify(const char *summary, const char *body) {
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!bus) return 0;
    g_dbus_connection_call(bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                           "org.freedesktop.Notifications", "Notify",
                           g_variant_new("(susss@as@a{sv}i)", "Keyhold", 0, "input-keyboard", summary, body,
                                         g_variant_new_array(G_VARIANT_TYPE_STRING, NULL, 0),
                                         g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0), -1),
                           NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL, NULL);
    g_dbus_connection_flush_sync(bus, NULL, NULL);
    g_object_unref(bus);
    return 1;
}

int khs_bus_name_has_owner(const char *name) {
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!bus) return 0;
    GVariant *reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                  "NameHasOwner", g_variant_new("(s)", name), G_VARIANT_TYPE("(b)"),
                                                  G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
    gboolean owned = FALSE;
    if (reply) { g_variant_get(reply, "(b)", &owned); g_variant_unref(reply); }
    g_object_unref(bus);
    return owned ? 1 : 0;
}
