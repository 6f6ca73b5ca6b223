#!/usr/bin/python3
"""A Qt 5 window with one text field that writes its whole text to FILE on every change: what a
real Qt program received (through Qt's Wayland text input, which KWin's input method commits to).
KIND "widgets" (the default): a QLineEdit; "password": one that hides its text; "qml": a Qt Quick
Controls 2 TextField. With ENTRY_TIMES=PATH in the environment, each change is also appended there
as "USEC TEXT" (CLOCK_MONOTONIC), for the delay from a key press to the character. SIGUSR1 empties
it (the test's clear, where keys cannot be trusted to), then creates FILE.cleared; FILE.active
holds 1 while it has the keyboard focus. Prints "ready" once shown.
Usage: qt-entry.py FILE TITLE [widgets|password|qml]"""
import os
import signal
import sys
import time

from PyQt5.QtCore import Qt, QTimer, QUrl
from PyQt5.QtWidgets import QApplication, QLineEdit

path, title = sys.argv[1], sys.argv[2]
kind = sys.argv[3] if len(sys.argv) > 3 else "widgets"


times = os.environ.get("ENTRY_TIMES")


def changed(text):
    if times:
        with open(times, "a", encoding="utf-8") as f:
            f.write(f"{time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000} {text}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def cleared(clear):
    """Empties the field, then says so in FILE.cleared: the signal is handled up to 100 ms
    later, and a field already empty shows no change to wait for."""
    clear()
    open(path + ".cleared", "w").close()


app = QApplication(sys.argv[:1])
# A blinking cursor would make two screenshots of the same state differ.
app.setCursorFlashTime(0)
# FILE.active says whether the window has the keyboard focus (the test's focus check).
app.applicationStateChanged.connect(
    lambda state: open(path + ".active", "w").write("1" if state == Qt.ApplicationActive else "0"))
# Qt runs Python's signal handlers only when Python code runs: a timer lets it in.
tick = QTimer()
tick.start(100)
tick.timeout.connect(lambda: None)
open(path, "w").close()
if kind == "qml":
    from PyQt5.QtQml import QQmlApplicationEngine
    engine = QQmlApplicationEngine()
    engine.loadData(("""
import QtQuick 2.15
import QtQuick.Controls 2.15
ApplicationWindow {
    visible: true; width: 600; height: 60; title: "%s"
    TextField { objectName: "field"; anchors.fill: parent; focus: true; cursorVisible: true }
}""" % title).encode(), QUrl())
    window = engine.rootObjects()[0]
    field = window.findChild(object, "field")
    field.textChanged.connect(lambda: changed(field.property("text")))
    signal.signal(signal.SIGUSR1, lambda *_: cleared(lambda: field.setProperty("text", "")))
else:
    window = QLineEdit()
    if kind == "password":
        window.setEchoMode(QLineEdit.Password)
    window.setWindowTitle(title)
    window.resize(600, 60)
    window.textChanged.connect(changed)
    window.show()
    signal.signal(signal.SIGUSR1, lambda *_: cleared(window.clear))
QTimer.singleShot(0, lambda: print("ready", flush=True))
app.exec_()
