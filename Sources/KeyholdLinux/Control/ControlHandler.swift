import Glibc
import KeyholdKit

/// What the daemon lets the control socket do. All calls happen on the event loop's thread.
public protocol ControlHandler: AnyObject {
    /// The daemon's state; with `activity`, also what the user in front is doing (the application
    /// that has the focus): for root, not for group keyhold.
    func status(activity: Bool) -> ControlStatus
    /// Loads the configuration again and applies it only if valid.
    func reload() -> ControlReloadResult
    /// Every key passes through unchanged until `resume()`.
    func pause()
    func resume()
    /// Why `uid`'s companion of `session` may not be the session companion now; nil: it may.
    func companionRefusal(uid: UInt32, session: String?) -> String?
    func companionConnected(_ companion: SessionCompanion)
    func companionDisconnected(_ companion: SessionCompanion)
    /// Whether the companion's session is the one in front of the seat now: asked at each of its
    /// requests.
    func companionIsInFront(_ companion: SessionCompanion) -> Bool
    /// The desktop's keymap the companion reported, compiled.
    func companion(_ companion: SessionCompanion, compiledKeymap layout: XKBLayout)
    /// `delivered`: false when the companion has written the character to the desktop, true when
    /// the desktop has delivered it.
    func companion(_ companion: SessionCompanion, typed id: UInt64, delivered: Bool)
    /// The companion cannot type character `id`: the daemon types it with its own method.
    func companion(_ companion: SessionCompanion, couldNotType id: UInt64)
    /// The companion still waits for its desktop to deliver the keys before character `id`.
    func companion(_ companion: SessionCompanion, waitsToType id: UInt64)
    /// The companion's picker was clicked on candidate `index` (0: the base character).
    func companion(_ companion: SessionCompanion, picked index: Int)
    /// The companion saw a click elsewhere or a focus change.
    func companionDismissedCallout(_ companion: SessionCompanion)
    /// The companion's session says another application (or text field) has the focus.
    func companion(_ companion: SessionCompanion, focused focus: ApplicationFocus)
}

extension ControlHandler {
    public func companionRefusal(uid: UInt32, session: String?) -> String? { "this daemon takes no session companion" }
    public func companionConnected(_ companion: SessionCompanion) {}
    public func companionDisconnected(_ companion: SessionCompanion) {}
    public func companionIsInFront(_ companion: SessionCompanion) -> Bool { false }
    public func companion(_ companion: SessionCompanion, compiledKeymap layout: XKBLayout) {}
    public func companion(_ companion: SessionCompanion, typed id: UInt64, delivered: Bool) {}
    public func companion(_ companion: SessionCompanion, couldNotType id: UInt64) {}
    public func companion(_ companion: SessionCompanion, waitsToType id: UInt64) {}
    public func companion(_ companion: SessionCompanion, picked index: Int) {}
    public func companionDismissedCallout(_ companion: SessionCompanion) {}
    public func companion(_ companion: SessionCompanion, focused focus: ApplicationFocus) {}
}

public enum ControlReloadResult: Sendable, Equatable {
    /// Applied; `source` is the file it came from (or "(embedded default)").
    case reloaded(source: String)
    /// Not applied (the running configuration stays); the error names file, line and key.
    case failed(String)
}
