/// How characters the layout cannot type are entered (DESIGN.md, Output).
public enum UnicodeMethod: String, Hashable, Sendable, CaseIterable {
    /// Linux virtual console: Alt held, the decimal code point on the keypad, Alt released.
    case console
    /// GTK / IBus: Ctrl+Shift+U, the hex code point, Space.
    case ctrlShiftU = "ctrl-shift-u"
    /// An XCompose table that `keyhold compose-file` prints: Compose, Compose, six hex digits.
    case compose
}
