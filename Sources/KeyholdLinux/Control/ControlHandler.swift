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
    /// `uid` asks that its callout picks be forgotten: the daemon's, if `uid` is the user in
    /// front; its companions'. Returns whether `uid` was in front.
    func forgetPicks(of uid: UInt32) -> Bool
    /// `uid` asks that its companions read its personal settings again; how many were asked.
    func reloadSettings(of uid: UInt32) -> Int
    /// What Keyhold does in `uid`'s own session: nothing of another user's.
    func session(of uid: UInt32) -> ControlSessionInfo
}

/// `{"cmd":"session"}`'s answer: what a user may know of Keyhold in their own session.
public struct ControlSessionInfo: Equatable, Sendable {
    /// Whether the seat's active session is the sender's; the rest is nil when it is not.
    public var inFront: Bool
    /// Every key passes through unchanged (for everybody).
    public var paused: Bool
    /// How characters are typed there, and why, as `keyhold status` says it ("session (auto: graphical
    /// session 2 of uid 1000 on VT 7 (wayland, logind), keyhold-session connected (ibus))").
    public var unicodeMethod: String?
    /// The application that has the focus there, as per-application rules name it.
    public var application: String?
    /// Whose settings are in force ("the system's", "/home/ana/.config/keyhold/config.toml of uid
    /// 1000, over the system's").
    public var settings: String?

    public init(inFront: Bool, paused: Bool, unicodeMethod: String? = nil, application: String? = nil, settings: String? = nil) {
        self.inFront = inFront; self.paused = paused; self.unicodeMethod = unicodeMethod
        self.application = application; self.settings = settings
    }
}

/// Where a session companion's requests go (`CompanionHub`): the control server frames them
/// and checks nothing but that the connection took the role first.
protocol CompanionEndpoint: AnyObject {
    /// `request` from `connection` (the hello included: the endpoint accepts it with
    /// `ControlServer.makeCompanion` or refuses it).
    func companion(_ request: CompanionRequest, from connection: ControlConnection)
    /// A connection that took the role closed.
    func companionConnectionClosed(_ connection: ControlConnection)
}

public enum ControlReloadResult: Sendable, Equatable {
    /// Applied; `source` is the file it came from (or "(embedded default)").
    case reloaded(source: String)
    /// Not applied (the running configuration stays); the error names file, line and key.
    case failed(String)
}
