import KeyholdKit

/// One client of the control socket: its peer, the role its credentials give it, and its
/// bounded input and output buffers. The server reads and writes it on the event loop; the
/// monitor and companion channels mark what it became.
final class ControlConnection {
    let fd: Int32
    let id: Int
    let pid: Int32, uid: UInt32
    var role = PeerAuthorization.Role.other
    /// Set once the connection took the companion role (`{"cmd":"companion"}`).
    var companion: SessionCompanion?
    var lineLimit = ControlServer.maximumRequestBytes
    var token: WatchToken = 0
    var input: [UInt8] = []
    var output: [UInt8] = []
    var outputStart = 0
    /// Waits for room in the socket (the loop reports it writable).
    var waitsToWrite = false
    var isMonitor = false
    /// A monitor granted key content.
    var content = false
    var closing = false
    var pending: Int { output.count - outputStart }

    init(fd: Int32, id: Int, pid: Int32, uid: UInt32) { self.fd = fd; self.id = id; self.pid = pid; self.uid = uid }

    var who: String { "client \(id) (pid \(pid), uid \(uid))" }
}
