import KeyholdLinux

/// The keymap of a desktop's current layout by its names (GNOME's input sources, KDE's layouts):
/// those desktops compile all of the user's layouts into one keymap and tell a switch only to the
/// focused window, so the companion compiles the current one itself. The last one is kept.
final class NamedKeymap {
    private var last: (names: XKBNames, text: String?)?

    /// The current layout's keymap, its names as `read` (GNOME's `khg_current`, KDE's
    /// `khk_current`) gives them: layout, variant and options into buffers, 1 when it knows. nil
    /// when it does not know or xkbcommon cannot compile them.
    func current(of source: String, read: (UnsafeMutablePointer<CChar>, Int32, UnsafeMutablePointer<CChar>, Int32,
                                           UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
        var layout = [CChar](repeating: 0, count: 64), variant = [CChar](repeating: 0, count: 64)
        var options = [CChar](repeating: 0, count: 512)
        guard read(&layout, 64, &variant, 64, &options, 512) == 1 else { return nil }
        return text(for: XKBNames(layout: String(cStringBuffer: layout), variant: String(cStringBuffer: variant),
                                  options: String(cStringBuffer: options), source: source))
    }

    /// The keymap for `names`; nil when xkbcommon cannot compile it (logged once).
    func text(for names: XKBNames) -> String? {
        if let last, last.names == names { return last.text }
        let text = XKBLayout.keymapText(for: names)
        if text == nil { Log.warning("cannot compile the layout \(names.layoutName) (\(names.source)); keeping the seat's keymap") }
        last = (names, text)
        return text
    }
}
