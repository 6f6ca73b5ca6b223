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
