/// How characters the layout cannot type are entered (DESIGN.md, Output).
public enum UnicodeMethod: String, Hashable, Sendable, CaseIterable {
    /// The default: chosen by where the keystrokes go (`resolved(for:)`), again whenever the
    /// active session changes: `console` on a text VT, `ctrl-shift-u` in a graphical session.
    case auto
    /// Linux virtual console: Alt held, the decimal code point on the keypad, Alt released.
    case console
    /// GTK / IBus: Ctrl+Shift+U, the hex code point, Space.
    case ctrlShiftU = "ctrl-shift-u"
    /// An XCompose table that `keyhold compose-file` prints: Compose, Compose, six hex digits.
    case compose
}
