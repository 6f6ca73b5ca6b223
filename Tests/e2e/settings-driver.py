#!/usr/bin/python3
"""keyhold-settings driven through its accessibility tree (AT-SPI), as a screen reader or any
assistive tool drives it: nothing but what the window says of itself.

  settings-driver.py shown                 exit 0 once the window is on the bus with its rows
  settings-driver.py check NAME on|off     the check box or switch named NAME into that state
  settings-driver.py press NAME            the button named NAME pressed (exit 1 while it is insensitive)
  settings-driver.py set NAME TEXT         the editable (spin button, entry) named NAME holds TEXT
  settings-driver.py says TEXT             exit 0 when a label of the window reads TEXT
  settings-driver.py dump                  every node: role, name, states (for a failed check)
"""
import sys
import time

import gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi

APP_NAMES = ("keyhold-settings", "org.keyhold.Settings", "Keyhold")


def application():
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        try:
            if app is not None and app.get_name() in APP_NAMES:
                return app
        except gi.repository.GLib.Error:
            continue
    return None


def walk(node, depth=0):
    if node is None or depth > 40:
        return
    yield node, depth
    try:
        count = node.get_child_count()
    except gi.repository.GLib.Error:
        return
    for i in range(min(count, 200)):
        try:
            child = node.get_child_at_index(i)
        except gi.repository.GLib.Error:
            continue
        yield from walk(child, depth + 1)


def find(name, roles):
    app = application()
    for node, _ in walk(app):
        try:
            if node.get_name() == name and node.get_role_name() in roles:
                return node
        except gi.repository.GLib.Error:
            continue
    return None


def checked(node):
    states = node.get_state_set()
    return states.contains(Atspi.StateType.CHECKED) or states.contains(Atspi.StateType.PRESSED)


def press(node):
    if node.get_n_actions() == 0:
        raise SystemExit("%s has no action" % node.get_name())
    node.do_action(0)


def main():
    Atspi.init()
    Atspi.set_timeout(2000, 5000)
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "shown":
        return 0 if find("Hold time in milliseconds", ("spin button",)) else 1
    if what == "check" and len(sys.argv) == 4:
        node = find(sys.argv[2], ("check box", "toggle button", "switch"))
        if node is None:
            print("no check box or switch named %r" % sys.argv[2])
            return 1
        want = sys.argv[3] == "on"
        if checked(node) != want:
            press(node)
        end = time.monotonic() + 5
        while checked(node) != want and time.monotonic() < end:
            time.sleep(0.1)
        return 0 if checked(node) == want else 1
    if what == "press" and len(sys.argv) == 3:
        node = find(sys.argv[2], ("push button", "button"))
        if node is None:
            print("no button named %r" % sys.argv[2])
            return 1
        if not node.get_state_set().contains(Atspi.StateType.SENSITIVE):
            print("%r is insensitive" % sys.argv[2])
            return 1
        press(node)
        return 0
    if what == "set" and len(sys.argv) == 4:
        node = find(sys.argv[2], ("spin button", "text", "entry"))
        if node is None:
            print("no editable named %r" % sys.argv[2])
            return 1
        if not node.set_text_contents(sys.argv[3]):
            print("%r does not take text" % sys.argv[2])
            return 1
        return 0
    if what == "says" and len(sys.argv) == 3:
        for node, _ in walk(application()):
            try:
                if node.get_role_name() == "label" and node.get_name() == sys.argv[2]:
                    return 0
            except gi.repository.GLib.Error:
                continue
        return 1
    if what == "dump":
        for node, depth in walk(application()):
            try:
                states = [s.value_nick for s in node.get_state_set().get_states()]
                print("  " * depth + "%s %r %s" % (node.get_role_name(), node.get_name(), " ".join(states)))
            except gi.repository.GLib.Error as e:
                print("  " * depth + "error: %s" % e)
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
