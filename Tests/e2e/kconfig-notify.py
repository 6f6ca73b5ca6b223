#!/usr/bin/python3
"""Says on the session bus that KEY of GROUP in the KDE configuration file FILE changed, as KDE's
System Settings does when it applies a page (KConfig's Notify flag): programs that watch the
file (KWin's KConfigWatcher) read it again. Usage: kconfig-notify.py FILE GROUP KEY"""
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

name, group, key = sys.argv[1:4]
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
# a{saay}: each group's changed keys, as byte arrays without a terminating NUL
changes = GLib.Variant("(a{saay})", ({group: [list(key.encode())]},))
bus.emit_signal(None, "/" + name, "org.kde.kconfig.notify", "ConfigChanged", changes)
bus.flush_sync(None)
