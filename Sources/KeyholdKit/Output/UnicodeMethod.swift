/// How characters the layout cannot type are entered (docs/ARCHITECTURE.md, Output).
public enum UnicodeMethod: String, Hashable, Sendable, CaseIterable {
    /// The default: chosen by where the keystrokes go (`resolved(for:)`), again whenever the
    /// active session changes: `console` on a text VT; in a graphical session `session` when its
    /// `keyhold-session` companion is connected, else `ctrl-shift-u`.
    case auto
    /// Linux virtual console: Alt held, the decimal code point on the keypad, Alt released.
    case console
    /// GTK / IBus: Ctrl+Shift+U, the hex code point, Space.
    case ctrlShiftU = "ctrl-shift-u"
    /// An XCompose table that `keyhold compose-file` prints: Compose, Compose, six hex digits.
    case compose
    /// The session's `keyhold-session` companion types the character through the desktop (X11
    /// XTest, a Wayland virtual keyboard) and acknowledges; without one, `ctrl-shift-u`.
    case session
}
