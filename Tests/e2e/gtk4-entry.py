#!/usr/bin/python3
"""A GTK 4 window with one text entry that writes its whole text to FILE on every change: what a
real GTK 4 application received (through its input method: on GNOME, IBus by way of the
compositor's text-input protocol). Usage: gtk4-entry.py FILE TITLE"""
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402

path, title = sys.argv[1], sys.argv[2]


def changed(entry):
    with open(path, "w", encoding="utf-8") as f:
        f.write(entry.get_text())


def activate(app):
    # A blinking caret would make two screenshots of the same state differ.
    Gtk.Settings.get_default().set_property("gtk-cursor-blink", False)
    window = Gtk.ApplicationWindow(application=app, title=title)
    window.set_default_size(600, 60)
    entry = Gtk.Entry()
    entry.connect("changed", changed)
    window.set_child(entry)
    window.present()
    entry.grab_focus()
    # SIGUSR1 empties the entry (the test's clear, where keys cannot be trusted to)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, lambda: entry.set_text("") or True)
    open(path, "w").close()
    # Ready once the window is mapped: the test then focuses it by title.
    GLib.idle_add(lambda: print("ready", flush=True) and False)


app = Gtk.Application(application_id="org.keyhold.E2EGtk4")
app.connect("activate", activate)
app.run([])
