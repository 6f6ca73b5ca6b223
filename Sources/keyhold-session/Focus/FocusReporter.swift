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
    /// When to ask again (monotonic ms): AT-SPI said the focus moved but could not yet say what
    /// has it (a call timed out, or the application had not yet marked the widget focused, as
    /// a busy one may not for a while).
    private(set) var retryAt: Int64?
    private var retries = 0
    static let retryMilliseconds: Int64 = 300, maximumRetries = 10

    /// The focus now, when it differs from what was reported; `windowChanged`: the display
    /// server said another window is active since the last call.
    mutating func changedFocus(desktop: Desktop, windowChanged: Bool) -> ApplicationFocus? {
        let overlay = desktop.overlay
        let moved = overlay?.focusMovedAt ?? -1, now = Companion.now()
        let retrying = retryAt.map { now >= $0 } ?? false
        guard windowChanged || reported == nil || moved != accessibilitySeenAt || retrying else { return nil }
        if moved != accessibilitySeenAt || windowChanged { retries = 0 }
        accessibilitySeenAt = moved
        retryAt = nil
        let accessibility = overlay?.focusKind()
        if let accessibility, accessibility.kind == .unknown, moved > 0, retries < Self.maximumRetries {
            retries += 1
            retryAt = now + Self.retryMilliseconds
        }
        guard let window = desktop.display.focusedWindow() else {
            // No window known (GNOME on Wayland): the input method may still say what has the focus.
            return remember(desktop.surface.focusedTextField().map { ApplicationFocus(textField: $0) } ?? .unknown)
        }
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
