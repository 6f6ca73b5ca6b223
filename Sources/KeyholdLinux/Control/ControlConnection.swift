import KeyholdKit

/// One client of the control socket: its peer, the role its credentials give it, and its own
/// bounded input and output buffers (nothing one client sent can be read as another's). The
/// server reads and writes it on the event loop; the monitor channel and the companion hub mark
/// what it became.
final class ControlConnection {
    let fd: Int32
    let id: Int
    let pid: Int32, uid: UInt32
    /// The logind session the peer runs in (sd_pid_get_session when it connected); nil outside
    /// one (a user service, a system service, a system without logind).
    let session: String?
    var role = PeerAuthorization.Role.other
    /// Set once the connection took the companion role (`{"cmd":"companion"}`).
    var isCompanion = false
    var lineLimit = ControlServer.maximumRequestBytes
    var token: WatchToken = 0
    /// Bytes read and not yet taken as lines, from `inputStart` on.
    var input: [UInt8] = []
    var inputStart = 0
    /// Whole lines wait in `input` past this turn's share: the socket is not read until they are
    /// taken (`ControlServer.linesPerTurn`).
    var backlogged = false
    /// In the server's list of connections to serve after the batch.
    var queued = false
    /// Requests refused so far (malformed, unknown, not allowed): past
    /// `ControlServer.maximumErrors` the connection is closed.
    var errors = 0
    /// When it connected or last sent a whole line: a connection that waits for nothing (not a
    /// monitor, not a companion) and says nothing for `ControlServer.idleMicroseconds` is closed.
    var lastLine: Timestamp
    var output: [UInt8] = []
    var outputStart = 0
    /// Waits for room in the socket (the loop reports it writable).
    var waitsToWrite = false
    var isMonitor = false
    /// A monitor granted key content.
    var content = false
    var closing = false
    var pending: Int { output.count - outputStart }
    /// Whether it may stay connected without sending anything.
    var waitsForEvents: Bool { isMonitor || isCompanion }

    init(fd: Int32, id: Int, pid: Int32, uid: UInt32, session: String?, at now: Timestamp) {
        self.fd = fd; self.id = id; self.pid = pid; self.uid = uid; self.session = session; lastLine = now
    }

    var who: String { "client \(id) (pid \(pid), uid \(uid))" }
}
