import Glibc
import KeyholdKit

/// What has the keyboard focus, for the daemon's per-application rules (docs/ARCHITECTURE.md,
/// Applications): the window from the display server, the widget from AT-SPI where the
/// application speaks it (a password field, a terminal, an editable text). A fullscreen window
/// that says nothing of text is taken for a game: no text field. Reported only when it changes,
/// and only to the daemon (never logged: `keyhold status` shows it).
struct FocusReporter {
    private(set) var reported: ApplicationFocus?
    private var accessibilitySeenAt: Int64 = -1

    /// The focus now, when it differs from what was reported; `windowChanged`: the display
    /// server said another window is active since the last call.
    mutating func changedFocus(typist: SessionTypist, overlay: PickerOverlay?, windowChanged: Bool) -> ApplicationFocus? {
        let moved = overlay?.focusMovedAt ?? -1
        guard windowChanged || reported == nil || moved != accessibilitySeenAt else { return nil }
        accessibilitySeenAt = moved
        let accessibility = overlay?.focusKind()
        guard let window = typist.focusedWindow() else { return remember(.unknown) }
        var field = ApplicationFocus.TextField.unknown
        // AT-SPI names a widget only while it is focused, which toolkits say only while its window
        // is active; where the display server names the window's process (X11), it must match.
        if let accessibility, accessibility.kind != .unknown,
           window.pid == nil || accessibility.pid == 0 || window.pid == accessibility.pid {
            field = accessibility.kind
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
