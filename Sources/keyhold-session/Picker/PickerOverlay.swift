import CSessionOverlay
import Glibc
import KeyholdKit
import KeyholdLinux

/// The picker on screen while a callout is open: the base character and the candidates numbered
/// 1…n, the shown one highlighted and its name above them (CSessionOverlay: GTK 3; wlr-layer-shell on Wayland, an
/// override-redirect popup on X11; it never takes keyboard focus), run from GLib's main
/// context (`GLibLoop`). It also says, through AT-SPI, what has the focus.
final class PickerOverlay: CandidatePicker {
    private let state = CState(kho_state())

    /// When to ask AT-SPI's registry again (monotonic ms), while it has not answered: it may answer
    /// a moment after the session started (on a busy machine, later than the companion).
    private(set) var accessibilityRetryAt: Int64?
    private var accessibilityRetries = 0
    /// Asked again this many times, 1 s apart and doubling (about a minute in all).
    static let accessibilityAttempts = 6

    /// nil when the session has nowhere to show it (no display; Wayland without wlr-layer-shell).
    init?() {
        guard kho_init(state.pointer) == 1 else { return nil }
        kho_warm_up(state.pointer)
        if accessibilityError != nil {
            kho_watch_accessibility_bus(state.pointer)
            accessibilityRetryAt = Companion.now() + 1_000
        }
    }

    /// Asks AT-SPI's registry again when it is time to; says so once it answers, and why not once
    /// it has been asked for the last time. The asking blocks (libatspi's calls are synchronous,
    /// up to its 1 s start-up timeout): the caller asks only while no character or callout is
    /// under way, and only once the accessibility bus runs (starting it could take seconds).
    func retryAccessibility(now: Int64) {
        guard let at = accessibilityRetryAt, now >= at else { return }
        guard kho_accessibility_bus_up(state.pointer) == 1 else {
            accessibilityRetryAt = now + 1_000 << accessibilityRetries   // not asked: not counted
            return
        }
        let why = accessibilityError ?? "no answer"
        if kho_retry_accessibility(state.pointer) == 1 {
            accessibilityRetryAt = nil
            Log.info("AT-SPI's registry answers now: password fields and terminals are told from other text fields"
                     + (followsCaret ? ", and the picker shows at the text caret" : ""))
            return
        }
        accessibilityRetries += 1
        guard accessibilityRetries < Self.accessibilityAttempts else {
            accessibilityRetryAt = nil
            Log.warning("AT-SPI's registry does not answer (\(accessibilityError ?? why)): password fields and terminals are not told from other text fields; its accessibility bus is likely left from an earlier X11 login (a logout, then a login after the user's services have stopped, starts a new one)")
            return
        }
        accessibilityRetryAt = now + 1_000 << accessibilityRetries
    }

    /// The callout in front changed.
    func handle(_ event: CalloutEvent, name: String) {
        switch event {
        case .opened(let base, let candidates):
            kho_begin(state.pointer, base)
            for candidate in candidates { kho_add(state.pointer, candidate) }
            kho_set_header(state.pointer, name)
            kho_present(state.pointer, 0)
        case .moved(let index, _):
            kho_select(state.pointer, Int32(clamping: index))
            kho_set_header(state.pointer, name)
        case .search(let query, let candidates, let index, _):
            kho_begin_search(state.pointer)
            kho_set_header(state.pointer, searchHeader(query, name: name))
            for candidate in candidates { kho_add(state.pointer, candidate) }
            kho_present(state.pointer, Int32(clamping: index))
        case .closed:
            kho_hide(state.pointer)
        }
    }

    func hide() { kho_hide(state.pointer) }

    var isVisible: Bool { kho_visible(state.pointer) == 1 }
    /// Placed at the text caret where applications report it (X11 with AT-SPI), else bottom centre.
    var followsCaret: Bool { kho_follows_caret(state.pointer) == 1 }
    /// Why AT-SPI cannot say what has the focus though the session has an accessibility bus (its
    /// registry does not answer), or nil.
    var accessibilityError: String? { kho_accessibility_error(state.pointer).map { String(cString: $0) } }
    /// Whether the pointer is over the picker (a click there is the picker's own).
    var pointerInside: Bool { kho_pointer_inside(state.pointer) == 1 }
    /// The candidate clicked since the last call (0: the base character).
    func takePick() -> Int? {
        let index = kho_take_pick(state.pointer)
        return index >= 0 ? Int(index) : nil
    }

    /// When AT-SPI last said the focus moved (monotonic ms; 0: never): cheap, no D-Bus call.
    var focusMovedAt: Int64 { kho_focus_moved_at(state.pointer) }

    /// What has the focus as AT-SPI says (where applications speak it): the kind of widget, its
    /// process (0: unknown) and when the focus last moved (monotonic ms). Asks the application.
    func focusKind() -> (kind: ApplicationFocus.TextField, pid: Int32, at: Int64) {
        var pid: Int32 = 0, at: Int64 = 0
        let kind: ApplicationFocus.TextField
        switch kho_focus_kind(state.pointer, &pid, &at) {
        case 1: kind = .normal
        case 2: kind = .password
        case 3: kind = .terminal
        default: kind = .unknown   // nothing known, or a widget that takes no text
        }
        return (kind, pid, at)
    }
}
