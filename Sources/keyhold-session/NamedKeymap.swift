import KeyholdLinux

/// The keymap of a desktop's current layout by its names (GNOME's input sources, KDE's layouts):
/// those desktops compile all of the user's layouts into one keymap and tell a switch only to the
/// focused window, so the companion compiles the current one itself. The last one is kept.
final class NamedKeymap {
    private var last: (names: XKBNames, text: String?)?

    /// The keymap for `names`; nil when xkbcommon cannot compile it (logged once).
    func text(for names: XKBNames) -> String? {
        if let last, last.names == names { return last.text }
        let text = XKBLayout.keymapText(for: names)
        if text == nil { Log.warning("cannot compile the layout \(names.layoutName) (\(names.source)); keeping the seat's keymap") }
        last = (names, text)
        return text
    }
}
