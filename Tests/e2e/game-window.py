#!/usr/bin/python3
"""A window as games are: fullscreen, no text field, no input method, nothing editable; it
records every key press and release, one line each: "press a 123.456 7.891234", the event's own
time (the desktop's timestamp, in seconds) and when the program read it (CLOCK_MONOTONIC seconds).
A program that is not scheduled for a while reads late, and then reads a press and its release
together, but their timestamps still say how long the key was down. Repeats the desktop (or on
Wayland the toolkit) makes of a held key come as more presses. What a real program received.
Usage: game-window.py FILE TITLE"""
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

path, title = sys.argv[1], sys.argv[2]
out = open(path, "w", encoding="utf-8", buffering=1)


def key(_widget, event, kind):
    name = Gdk.keyval_name(Gdk.keyval_to_lower(event.keyval)) or str(event.keyval)
    read = time.clock_gettime(time.CLOCK_MONOTONIC)
    out.write(f"{kind} {name} {event.time / 1000:.3f} {read:.6f}\n")
    return True


window = Gtk.Window(title=title)
screen = window.get_screen()
# No window manager on the X11 test server: as big as the screen is what fullscreen means there.
window.set_default_size(screen.get_width(), screen.get_height())
window.move(0, 0)
window.add(Gtk.DrawingArea())
window.connect("key-press-event", key, "press")
window.connect("key-release-event", key, "release")
window.connect("destroy", Gtk.main_quit)
window.show_all()
window.fullscreen()
GLib.idle_add(lambda: print("ready", flush=True) and False)
Gtk.main()
