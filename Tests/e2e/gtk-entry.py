#!/usr/bin/python3
"""A GTK 3 window with one text entry that writes its whole text to FILE on every change: what a
real GTK application received (through its input method: GTK's own, which reads Ctrl+Shift+U
hex entry). With "password", a password entry (its characters hidden; AT-SPI says password text).
With ENTRY_TIMES=PATH in the environment, each change is also appended there as "USEC TEXT"
(CLOCK_MONOTONIC), for the delay from a key press to the character. SIGUSR1 empties it, then
creates FILE.cleared; FILE.active holds 1 while it has the keyboard focus.
Usage: gtk-entry.py FILE TITLE [password]"""
import os
import signal
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

path, title = sys.argv[1], sys.argv[2]
password = len(sys.argv) > 3 and sys.argv[3] == "password"


times = os.environ.get("ENTRY_TIMES")


def changed(entry):
    text = entry.get_text()
    if times:
        with open(times, "a", encoding="utf-8") as f:
            f.write(f"{time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000} {text}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# A blinking caret would make two screenshots of the same state differ.
Gtk.Settings.get_default().set_property("gtk-cursor-blink", False)
window = Gtk.Window(title=title)
window.set_default_size(600, 60)
entry = Gtk.Entry()
if password:
    entry.set_visibility(False)
    entry.set_input_purpose(Gtk.InputPurpose.PASSWORD)
entry.connect("changed", changed)
window.add(entry)
window.connect("destroy", Gtk.main_quit)
# FILE.active holds 1 while the window has the keyboard focus (KDE's focus check)
window.connect("notify::is-active", lambda w, _: open(path + ".active", "w").write("1" if w.is_active() else "0"))
window.show_all()
entry.grab_focus()
# SIGUSR1 empties the entry (the test's clear, where keys cannot be trusted to)
# (then FILE.cleared says it is done: a field already empty shows no change to wait for)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1,
                     lambda: entry.set_text("") or open(path + ".cleared", "w").close() or True)
open(path, "w").close()
# Ready once the window is mapped: the test then focuses it by title.
GLib.idle_add(lambda: print("ready", flush=True) and False)
Gtk.main()
