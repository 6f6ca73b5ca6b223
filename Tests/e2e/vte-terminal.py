#!/usr/bin/python3
"""A VTE terminal (GNOME Terminal's widget, GTK 3) whose shell writes the bytes it reads to FILE:
what a terminal program received, raw (`stty raw -echo`). Usage: vte-terminal.py FILE TITLE"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Vte", "2.91")
from gi.repository import GLib, Gtk, Vte  # noqa: E402

path, title = sys.argv[1], sys.argv[2]


def spawned(terminal, pid, error, *data):
    if error is None:
        print("ready", flush=True)


window = Gtk.Window(title=title)
window.set_default_size(600, 200)
terminal = Vte.Terminal()
terminal.set_cursor_blink_mode(Vte.CursorBlinkMode.OFF)
window.add(terminal)
window.connect("destroy", Gtk.main_quit)
window.show_all()
terminal.grab_focus()
terminal.spawn_async(Vte.PtyFlags.DEFAULT, None,
                     ["/bin/sh", "-c", 'stty raw -echo; exec cat >> "$0"', path], None,
                     GLib.SpawnFlags.DEFAULT, None, None, -1, None, spawned)
Gtk.main()
