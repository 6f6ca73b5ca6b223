import CSessionIBus
import CSessionKWin
import KeyholdLinux

/// Where a desktop keeps its current layout when the seat's keymap does not say it: GNOME and KDE
/// compile all of the user's layouts into one keymap and tell a switch only to the focused
/// window, so the companion reads the current one from their settings (`NamedKeymap`).
protocol LayoutSource: AnyObject {
    /// The current layout's keymap; nil when it does not know (the seat's keymap serves then).
    func keymapText() -> String?
    /// Whether the layout changed since the last call.
    func takeChanges() -> Bool
    /// Whether the seat's keymap says nothing of the layout (GNOME's holds every source).
    var replacesSeatChanges: Bool { get }
    /// What the companion's log says of it.
    var summary: String { get }
}

/// GNOME's input sources (org.gnome.desktop.input-sources): the current one is the first of
/// `mru-sources` (GNOME Shell rewrites it on every switch) still among `sources`.
final class GNOMEInputSources: LayoutSource {
    private let state = CState(khg_state())
    private let ibus: IBusSurface
    private let keymap = NamedKeymap()
    let replacesSeatChanges = true
    let summary = "the layout of GNOME's current input source"

    /// nil outside a GNOME session with its settings schema.
    init?(ibus: IBusSurface) {
        self.ibus = ibus
        guard khg_open(state.pointer) == 1 else { return nil }
    }

    deinit { khg_close(state.pointer) }

    func keymapText() -> String? {
        keymap.current(of: "GNOME's input sources") { khg_current(state.pointer, ibus.state.pointer, $0, $1, $2, $3, $4, $5) }
    }

    func takeChanges() -> Bool { khg_take_changes(state.pointer) > 0 }
}

/// KDE's keyboard layouts: kxkbrc's list, the current one as KWin's org.kde.keyboard says.
final class KDEKeyboardLayouts: LayoutSource {
    private let state = CState(khk_state())
    private let keymap = NamedKeymap()
    let replacesSeatChanges = false
    let summary = "the layout of KDE's current keyboard layout"

    /// nil outside a KDE session.
    init?() {
        guard khk_open(state.pointer) == 1 else { return nil }
    }

    deinit { khk_close(state.pointer) }

    func keymapText() -> String? {
        keymap.current(of: "KDE's keyboard layouts") { khk_current(state.pointer, $0, $1, $2, $3, $4, $5) }
    }

    func takeChanges() -> Bool { khk_take_changes(state.pointer) > 0 }
}
