import KeyholdKit

/// The `keyhold-session` of a graphical session, as the daemon sees it: a control connection
/// that took the companion role. The output queue hands it characters; it types them through
/// the desktop and answers `typed`.
public final class SessionCompanion: OutputCompanion, CustomStringConvertible {
    public let uid: UInt32
    public let pid: Int32
    /// How it types: `x11` (XTest), `wayland` (a virtual keyboard).
    public let backend: String
    /// The desktop's layout, compiled from the keymap it reported; nil until it reports one.
    public var layout: KeyboardLayout?
    public var layoutName: String?
    let clientID: Int
    weak var server: ControlServer?

    init(uid: UInt32, pid: Int32, backend: String, clientID: Int, server: ControlServer) {
        self.uid = uid; self.pid = pid; self.backend = backend; self.clientID = clientID; self.server = server
    }

    /// `{"event":"type","id":ID,"text":TEXT}` to the companion, sent at once.
    public func type(_ text: String, id: UInt64) {
        server?.sendType(text, id: id, to: self)
    }

    /// Closes its connection (a companion that missed a deadline); `companionDisconnected` follows.
    public func disconnect(_ why: String) {
        server?.disconnect(self, why: why)
    }

    public var description: String { "keyhold-session pid \(pid) of uid \(uid) (\(backend))" }
}
