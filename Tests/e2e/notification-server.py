#!/usr/bin/python3
"""The session's notification server for a test session without Plasma's: owns
org.freedesktop.Notifications on the session bus and appends each notification's summary and
body, one line each ("SUMMARY | BODY"), to FILE. Prints "ready" once the name is owned.
Usage: notification-server.py FILE"""
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

XML = """<node><interface name="org.freedesktop.Notifications">
  <method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
    <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
    <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/></method>
  <method name="GetCapabilities"><arg type="as" direction="out"/></method>
  <method name="GetServerInformation"><arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="s" direction="out"/><arg type="s" direction="out"/></method>
</interface></node>"""
log = sys.argv[1]
count = 0


def call(connection, sender, path, interface, method, parameters, invocation):
    global count
    if method == "Notify":
        count += 1
        with open(log, "a") as f:
            f.write(f"{parameters[3]} | {parameters[4]}\n")
        invocation.return_value(GLib.Variant("(u)", (count,)))
    elif method == "GetCapabilities":
        invocation.return_value(GLib.Variant("(as)", (["body"],)))
    else:
        invocation.return_value(GLib.Variant("(ssss)", ("keyhold-e2e", "keyhold", "1", "1.2")))


def acquired(connection, name):
    print("ready", flush=True)


def bus_up(connection, name):
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    connection.register_object("/org/freedesktop/Notifications", info, call, None, None)


Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.Notifications", Gio.BusNameOwnerFlags.NONE, bus_up, acquired,
                 lambda c, n: sys.exit(1))
GLib.MainLoop().run()
