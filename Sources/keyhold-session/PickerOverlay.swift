import CSessionOverlay
import Glibc
import KeyholdKit
import KeyholdLinux

/// The picker on screen while a callout is open: the base character and the candidates numbered
/// 1…n, the shown one highlighted (CSessionOverlay: GTK 3; wlr-layer-shell on Wayland, an
/// override-redirect popup on X11; it never takes keyboard focus), run from GLib's main
/// context (`GLibLoop`). It also says, through AT-SPI, what has the focus.
final class PickerOverlay: CandidatePicker {

    /// nil when the session has nowhere to show it (no display; Wayland without wlr-layer-shell).
    init?() {
        guard kho_init() == 1 else { return nil }
        kho_warm_up()
    }

    /// The callout in front changed.
    func handle(_ event: CalloutEvent) {
        switch event {
        case .opened(let base, let candidates):
            kho_begin(base)
            for candidate in candidates { kho_add(candidate) }
            kho_present(0)
        case .moved(let index, _):
            kho_select(Int32(clamping: index))
        case .closed:
            kho_hide()
        }
    }

    func hide() { kho_hide() }

    var isVisible: Bool { kho_visible() == 1 }
    /// Placed at the text caret where applications report it (X11 with AT-SPI), else bottom centre.
    var followsCaret: Bool { kho_follows_caret() == 1 }
    /// Why AT-SPI cannot say what has the focus though the session has an accessibility bus (its
    /// registry does not answer), or nil.
    var accessibilityError: String? { kho_accessibility_error().map { String(cString: $0) } }
    /// Whether the pointer is over the picker (a click there is the picker's own).
    var pointerInside: Bool { kho_pointer_inside() == 1 }
    /// The candidate clicked since the last call (0: the base character).
    func takePick() -> Int? {
        let index = kho_take_pick()
        return index >= 0 ? Int(index) : nil
    }

    /// When AT-SPI last said the focus moved (monotonic ms; 0: never): cheap, no D-Bus call.
    var focusMovedAt: Int64 { kho_focus_moved_at() }

    /// What has the focus as AT-SPI says (where applications speak it): the kind of widget, its
    /// process (0: unknown) and when the focus last moved (monotonic ms). Asks the application.
    func focusKind() -> (kind: ApplicationFocus.TextField, pid: Int32, at: Int64) {
        var pid: Int32 = 0, at: Int64 = 0
        let kind: ApplicationFocus.TextField
        switch kho_focus_kind(&pid, &at) {
        case 1: kind = .normal
        case 2: kind = .password
        case 3: kind = .terminal
        default: kind = .unknown   // nothing known, or a widget that takes no text
        }
        return (kind, pid, at)
    }
}
