import Glibc
import KeyholdKit

/// What has the keyboard focus, for the daemon's per-application rules (docs/ARCHITECTURE.md,
/// Applications): the window from the display server, the widget from AT-SPI where the
/// application speaks it (a password field, a terminal, an editable text). A fullscreen window
/// that says nothing of text is taken for a game: no text field. Reported only when it changes,
/// and only to the daemon (never logged: `keyhold status` shows it).
struct FocusReporter {
    private(set) var reported: ApplicationFocus?
    private var window: FocusedWindow?
    private var windowSince: Int64 = 0
    private var accessibilitySeenAt: Int64 = -1

    /// AT-SPI's focus event for a window's widget can come just before the display server's
    /// word that the window is active: an answer this much older still counts (Wayland, where
    /// no process id ties the two together).
    static let accessibilityLeadMilliseconds: Int64 = 500

    /// The focus now, when it differs from what was reported; `windowChanged`: the display
    /// server said another window is active since the last call.
    mutating func changedFocus(typist: SessionTypist, overlay: PickerOverlay?, windowChanged: Bool) -> ApplicationFocus? {
        let moved = overlay?.focusMovedAt ?? -1
        guard windowChanged || reported == nil || moved != accessibilitySeenAt else { return nil }
        accessibilitySeenAt = moved
        let accessibility = overlay?.focusKind()
        let now = Companion.now()
        let current = typist.focusedWindow()
        if current != window {
            window = current
            windowSince = now
        }
        guard let window else { return remember(.unknown) }
        var field = ApplicationFocus.TextField.unknown
        if let accessibility, accessibility.kind != .unknown {
            let belongs = if let pid = window.pid, accessibility.pid != 0 { pid == accessibility.pid }
                else { accessibility.at >= windowSince - Self.accessibilityLeadMilliseconds }
            if belongs { field = accessibility.kind }
        }
        if field == .unknown && window.fullscreen { field = .none }
        return remember(ApplicationFocus(ids: window.ids, textField: field))
    }

    private mutating func remember(_ focus: ApplicationFocus) -> ApplicationFocus? {
        guard focus != reported else { return nil }
        reported = focus
        return focus
    }

    /// After a reconnection the daemon knows nothing: report again.
    mutating func forget() { reported = nil }
}
