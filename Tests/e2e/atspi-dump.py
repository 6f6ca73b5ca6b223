#!/usr/bin/python3
# What AT-SPI shows of the session, for a check that found nothing: the accessibility bus's
# address, each application with its process, and the widgets that say they are focused or
# active (a few levels deep), with their roles.
import os
import sys
import gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi

print("DBUS_SESSION_BUS_ADDRESS", os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
print("init", Atspi.init())
Atspi.set_timeout(1000, 2000)


def walk(node, depth, out):
    if depth > 8 or node is None:
        return
    try:
        states = node.get_state_set()
        flags = [s for s in ("focused", "active", "editable") if states.contains(getattr(Atspi.StateType, s.upper()))]
        if flags:
            out.append("  " * depth + f"{node.get_role_name()} {node.get_name()!r} {' '.join(flags)}")
        for i in range(min(node.get_child_count(), 50)):
            walk(node.get_child_at_index(i), depth + 1, out)
    except Exception as e:  # an application that does not answer is named, the rest goes on
        out.append("  " * depth + f"error: {e}")


desktop = Atspi.get_desktop(0)
print("applications", desktop.get_child_count())
for i in range(desktop.get_child_count()):
    app = desktop.get_child_at_index(i)
    if app is None:
        continue
    try:
        print(f"app {app.get_name()!r} pid {app.get_process_id()}")
    except Exception as e:
        print("app error", e)
        continue
    out = []
    walk(app, 1, out)
    print("\n".join(out))
sys.stdout.flush()
