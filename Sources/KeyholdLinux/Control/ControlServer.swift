import CLinuxShim
import Glibc
import KeyholdKit

/// The control socket (`/run/keyhold/control`): `keyhold status|reload|pause|resume|monitor`
/// and the session companions talk to the daemon through it. It runs on the daemon's event loop
/// (no thread of its own): it accepts connections, decides from each peer's credentials what it
/// may do, and frames its lines into requests; the commands go to its `handler` (the daemon), a
/// companion's requests to its `companions` endpoint (`CompanionHub`), and its `monitor` channel
/// sends the engine's trace to `keyhold monitor`.
///
///     let control = try ControlServer(path: ControlSocketPath.forDaemon(), loop: loop, handler: self)
///     engine.addObserver(control.monitor)
///
/// This file is the socket and its connections; who may do what is `PeerAuthorization` (from
/// the peer's credentials, not the file's mode 0666: the companion of whichever user is in
/// front of the seat must reach it); refused peers get a message saying so.
///
/// No client can slow another's keys (docs/SECURITY.md): each connection reads into a buffer of
/// its own and at most `linesPerTurn` of its lines are taken per turn of the loop (the rest wait,
/// unread, until the keys of the next turn are through); a line over its limit, a reply it does
/// not read (`maximumPendingBytes`), `maximumErrors` refused requests, or `idleMicroseconds`
/// without a request from a connection that waits for nothing close it; a user holds
/// `maximumConnectionsPerUser` connections at most and root always finds one free; refusals are
/// logged once a second at most.
public final class ControlServer {
    public static let maximumRequestBytes = 4096
    /// A companion's keymap is one line (a keymap of four layouts is about 80 KB as xkbcommon
    /// writes it; `CompanionHub.maximumKeymapBytes` bounds the keymap itself).
    public static let maximumCompanionLineBytes = 512 * 1024
    /// Connections one user other than root may hold at once, so nobody can fill the table.
    public static let maximumConnectionsPerUser = 8
    /// Lines of one connection taken per turn of the loop.
    static let linesPerTurn = 4
    /// Refused requests a connection may make before it is closed.
    static let maximumErrors = 4
    /// Connections kept for root and the daemon's own user: the table is never full for them.
    static let adminReserve = 16
    /// Bytes read from one connection per turn.
    static let readChunkBytes = 4096
    /// Connections accepted, and connections served, per turn of the loop.
    static let acceptsPerTurn = 4, clientsPerTurn = 2

    public let path: String
    /// The handler that runs the commands; usually the daemon, which owns the server and so
    /// outlives it (not retained; not weak either, as the daemon is on every key's path and a
    /// weakly referenced object's retains and releases take the runtime's slow path).
    public unowned var handler: ControlHandler?
    /// Shown by `keyhold status`.
    public var version: String?
    /// Bytes a client may have waiting to be sent before it is disconnected as too slow.
    public var maximumPendingBytes = 256 * 1024
    /// Connections at once; more are told so and closed.
    public var maximumClients = 256
    /// How long a connection that waits for nothing (not a monitor, not a companion) may stay
    /// without sending a whole line.
    public var idleMicroseconds = 10_000_000
    /// The group whose members may connect besides root and the daemon's own user (nil: none).
    public var group: (name: String, gid: gid_t)? { authorization.group }
    /// `keyhold monitor`'s connections.
    public private(set) lazy var monitor = MonitorChannel(server: self)
    /// Where a session companion's requests go (not retained, as `handler`); nil: this daemon
    /// takes no companion.
    unowned var companions: CompanionEndpoint?
    public var clientCount: Int { clients.count }
    /// Requests refused as malformed, unknown or too long (for tests and `status`).
    public internal(set) var rejectedRequests = 0

    let loop: EventLoop
    private let authorization: PeerAuthorization
    private var listenFD: Int32 = -1
    private var tokens: [WatchToken] = []
    private var clients: [Int32: ControlConnection] = [:]
    private var reply = JSONWriter(capacity: 1024)
    /// What a read brings in, before it is appended to its connection's own buffer.
    private var readBuffer = [UInt8](repeating: 0, count: ControlServer.readChunkBytes)
    private let started = MonotonicClock.now()
    private var socketInode: (dev: UInt64, ino: UInt64)?
    private var nextClientID = 1
    /// Connections to read or to take lines of after the current batch (`serveAfterBatch`), and
    /// whether new connections wait to be accepted.
    private var ready: [ControlConnection] = []
    private var readyHead = 0
    private var acceptPending = false
    private var serveScheduled = false
    /// (Weak: a server shut down and gone before the loop's next turn leaves it queued.)
    private lazy var serveWork: () -> Void = { [weak self] in self?.serveAfterBatch() }
    /// Closes connections that wait for nothing and say nothing (`idleMicroseconds`).
    private let idleTimer: DeadlineTimer
    private var idleDeadline: Timestamp?
    private var refusalLog = LogRateLimit()
    private var requestLog = LogRateLimit()

    /// Creates the socket at `path` (its directory too, mode 0750, when missing), replacing a
    /// stale socket but never a live one or a file that is not a socket, and starts accepting.
    /// `group`: the group whose members may connect (default "keyhold"), for a daemon running as
    /// root; ignored when it does not exist, and for a daemon running as a user (its socket is in
    /// the user's private $XDG_RUNTIME_DIR: only that user and root may connect).
    public init(path: String = ControlSocketPath.forDaemon(), group: String? = "keyhold", mode: mode_t = 0o666,
                loop: EventLoop, handler: ControlHandler?) throws(SystemError) {
        self.path = path
        self.loop = loop
        self.handler = handler
        authorization = PeerAuthorization(group: group)
        idleTimer = try DeadlineTimer()
        do throws(SystemError) {
            try createSocket(mode: mode)
            tokens.append(try loop.watch(listenFD) { [unowned self] in self.acceptPending = true; self.scheduleServing() })
            tokens.append(try loop.watch(idleTimer.fd) { [unowned self] in self.closeIdleClients() })
        } catch {
            shutdown()
            throw error
        }
        Log.info("control: listening on \(path)" + (authorization.group.map { " (group \($0.name))" } ?? ""))
    }

    deinit { shutdown() }

    /// Closes every connection and removes the socket file (if it is still ours).
    public func shutdown() {
        idleTimer.arm(at: nil)
        for token in tokens { loop.unwatch(token) }
        tokens.removeAll()
        // The loop no longer runs: send what is queued (a last "stopping" notice) now, without waiting.
        for client in Array(clients.values) where client.pending > 0 { flush(client) }
        for client in Array(clients.values) { drop(client, why: nil) }
        if listenFD >= 0 { Glibc.close(listenFD); listenFD = -1 }
        if let inode = socketInode {
            var st = stat()
            if lstat(path, &st) == 0, UInt64(st.st_dev) == inode.dev, UInt64(st.st_ino) == inode.ino { unlink(path) }
            socketInode = nil
        }
    }

    // MARK: - Socket

    private func createSocket(mode: mode_t) throws(SystemError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if !directory.isEmpty, access(directory, F_OK) != 0 {
            guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw SystemError("mkdir \(directory)", errno) }
            if let group = authorization.group { _ = chown(directory, uid_t.max, group.gid) }
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw SystemError("\(path) exists and is not a socket", EEXIST)
            }
            if ControlServer.isListening(path) {
                throw SystemError("\(path): another keyhold daemon is listening there", EADDRINUSE)
            }
            unlink(path)   // stale: left by a daemon that did not exit cleanly
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", errno) }
        listenFD = fd
        let rc = ControlServer.withAddress(path) { bind(fd, $0, $1) }
        guard rc == 0 else { throw SystemError("bind \(path)", rc == -2 ? ENAMETOOLONG : errno) }
        // bind made the file with the process umask (0077 under systemd): loosen it to `mode`.
        guard chmod(path, mode) == 0 else { throw SystemError("chmod \(path)", errno) }
        if lstat(path, &st) == 0 {
            socketInode = (UInt64(st.st_dev), UInt64(st.st_ino))
            if let group = authorization.group, st.st_gid != group.gid, chown(path, uid_t.max, group.gid) != 0 {
                Log.warning("control: cannot give \(path) to group \(group.name): \(errorString(errno)); only root can use it")
            }
        }
        guard listen(fd, 64) == 0 else { throw SystemError("listen", errno) }
    }

    /// Calls `body` with a sockaddr_un for `path`; returns -2 when the path is too long.
    public static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { return -2 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Whether a process accepts connections on the socket at `path`.
    static func isListening(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        return withAddress(path) { connect(fd, $0, $1) } == 0
    }

    // MARK: - Connections

    /// Accepts up to `limit` connections; true when none waits any more.
    private func acceptClients(atMost limit: Int) -> Bool {
        let now = MonotonicClock.now()
        for _ in 0..<limit {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED {
                    Log.warning("control: accept: \(errorString(errno))")
                }
                return true
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let credentials = PeerCredentials(fd: fd)
            let client = ControlConnection(fd: fd, id: nextClientID, pid: credentials.pid, uid: credentials.uid,
                                           session: PeerCredentials.session(of: credentials.pid), at: now)
            nextClientID += 1
            client.role = authorization.role(of: credentials, fd: fd)
            let limit = client.role == .admin ? maximumClients : maximumClients - Self.adminReserve
            guard clients.count < limit else {
                refusalLog.log(.warning, at: now, "control: \(client.who) refused: already \(self.clients.count) connections")
                refuse(client, "too many connections")
                continue
            }
            if client.role != .admin,
               clients.values.filter({ $0.uid == client.uid }).count >= ControlServer.maximumConnectionsPerUser {
                refusalLog.log(.notice, at: now, "control: \(client.who) refused: uid \(client.uid) already has \(ControlServer.maximumConnectionsPerUser) connections")
                refuse(client, "too many connections from uid \(client.uid)")
                continue
            }
            do {
                client.token = try loop.watch(fd, for: .readable) { [unowned self, unowned client] events in
                    self.clientReady(client, events)
                }
            } catch {
                Log.warning("control: \(error)")
                Glibc.close(fd)
                continue
            }
            clients[fd] = client
            armIdleTimer(client.lastLine.adding(microseconds: idleMicroseconds))
            Log.debug("control: \(client.who) connected")
        }
        return false
    }

    private func refuse(_ client: ControlConnection, _ message: String) {
        reply.reset()
        errorReply(message)
        _ = reply.bytes.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        _ = readBuffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        Glibc.close(client.fd)
    }

    func drop(_ client: ControlConnection, why: String?) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        if client.token != 0 { loop.unwatch(client.token) }
        monitor.remove(client)
        if client.isCompanion {
            client.isCompanion = false
            companions?.companionConnectionClosed(client)
        }
        // Unread input would make the peer's read fail with ECONNRESET before it sees our last
        // reply: read away what a client that waits for it has sent (one chunk: a client that
        // floods gets the reset). Into a buffer of its own: the server's may hold what another
        // connection is being read from.
        var scratch = [UInt8](repeating: 0, count: Self.readChunkBytes)
        _ = scratch.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, $0.count) }
        Glibc.close(client.fd)
        client.input = []
        if let why { Log.warning("control: \(client.who) disconnected: \(why)") }
    }

    // MARK: - Serving, after the keys

    /// Work for the control socket waits until the loop's batch is done: keys that came with it
    /// are handled and written first (the daemon writes them at the batch's end), and a turn takes
    /// at most one chunk and `linesPerTurn` lines of each connection.
    private func scheduleServing() {
        guard !serveScheduled else { return }
        serveScheduled = true
        loop.afterBatch(serveWork)
    }

    private func markReady(_ client: ControlConnection) {
        guard !client.queued else { return }
        client.queued = true
        ready.append(client)
        scheduleServing()
    }

    /// A share of the waiting work: `acceptsPerTurn` new connections, `clientsPerTurn` connections
    /// served (a chunk read, `linesPerTurn` lines taken); the rest in the next turn, after the keys
    /// that came meanwhile. A key waits for one share at most, however many clients flood.
    private func serveAfterBatch() {
        serveScheduled = false
        if acceptPending { acceptPending = !acceptClients(atMost: Self.acceptsPerTurn) }
        var served = 0
        while served < Self.clientsPerTurn, readyHead < ready.count {
            let client = ready[readyHead]
            readyHead += 1
            client.queued = false
            guard clients[client.fd] === client, !client.closing else { continue }
            served += 1
            if client.backlogged {
                client.backlogged = false
                takeLines(client)
            } else {
                readClient(client)
            }
            // Read the socket again, unless lines still wait (the client is queued again then).
            if clients[client.fd] === client { updateInterest(client) }
        }
        if readyHead == ready.count { ready.removeAll(keepingCapacity: true); readyHead = 0 }
        if acceptPending || readyHead < ready.count { scheduleServing() }
    }

    /// Reads one chunk of the client's bytes into its own buffer, then takes its share of lines.
    private func readClient(_ client: ControlConnection) {
        let n = readBuffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, $0.count) }
        if n == 0 { drop(client, why: nil); return }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            drop(client, why: nil)
            return
        }
        client.input.append(contentsOf: readBuffer[0..<n])
        takeLines(client)
    }

    /// Handles up to `linesPerTurn` whole lines of the client's buffer; whole lines left over
    /// wait for the next turn, the socket unread meanwhile.
    private func takeLines(_ client: ControlConnection) {
        var taken = 0
        while true {
            guard let newline = client.input[client.inputStart...].firstIndex(of: 0x0A) else { break }
            if newline - client.inputStart > client.lineLimit { tooLong(client); return }
            if taken == Self.linesPerTurn {
                client.backlogged = true
                markReady(client)
                return
            }
            let line = client.input[client.inputStart..<newline]
            client.inputStart = newline + 1
            taken += 1
            client.lastLine = MonotonicClock.now()
            handleLine(client, line)
            if client.closing || clients[client.fd] !== client { return }
        }
        if client.input.count - client.inputStart > client.lineLimit { tooLong(client); return }
        // What is left is the start of the next line.
        if client.inputStart > 0 {
            client.input.removeFirst(client.inputStart)
            client.inputStart = 0
        }
    }

    private func tooLong(_ client: ControlConnection) {
        rejectedRequests += 1
        client.input = []
        client.inputStart = 0
        errorReply("request too long (over \(client.lineLimit) bytes); closing the connection")
        closeAfterReply(client)
    }

    /// Logs that a client was refused, once a second at most (`LogRateLimit`).
    func logRefusal(_ message: @autoclosure () -> String) {
        refusalLog.log(.notice, at: MonotonicClock.now(), message())
    }

    /// A request was refused: the reply in `reply` goes out, and past `maximumErrors` the
    /// connection closes after it.
    func refused(_ client: ControlConnection, _ message: String) {
        rejectedRequests += 1
        client.errors += 1
        if client.errors >= Self.maximumErrors {
            requestLog.log(.notice, at: MonotonicClock.now(), "control: \(client.who) closed after \(client.errors) refused requests")
            errorReply(message + "; closing the connection after \(client.errors) refused requests")
            closeAfterReply(client)
        } else {
            errorReply(message)
            enqueue(client, reply.bytes, now: true)
        }
    }

    // MARK: - Idle connections

    private func armIdleTimer(_ deadline: Timestamp) {
        guard idleDeadline.map({ deadline < $0 }) ?? true else { return }
        idleDeadline = deadline
        idleTimer.arm(at: deadline)
    }

    /// Closes the connections that wait for nothing and have said nothing for `idleMicroseconds`;
    /// the timer then waits for the next one to come due.
    private func closeIdleClients() {
        idleTimer.acknowledge()
        idleDeadline = nil
        let now = MonotonicClock.now()
        var next: Timestamp?
        for client in Array(clients.values) where !client.waitsForEvents && !client.closing {
            let due = client.lastLine.adding(microseconds: idleMicroseconds)
            if due <= now {
                requestLog.log(.notice, at: now, "control: \(client.who) closed: no request for \(idleMicroseconds / 1_000_000) s")
                errorReply("no request for \(idleMicroseconds / 1_000_000) s; closing the connection")
                closeAfterReply(client)
            } else if next.map({ due < $0 }) ?? true {
                next = due
            }
        }
        if let next { armIdleTimer(next) }
    }

    // MARK: - Requests

    private func handleLine(_ client: ControlConnection, _ line: ArraySlice<UInt8>) {
        var line = line
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
        while let first = line.first, first == 0x20 || first == 0x09 { line.removeFirst() }
        guard !line.isEmpty else { return }
        reply.reset()
        let request: ControlRequest
        do {
            request = try ControlRequest(line: line)
        } catch {
            // Somebody who may do nothing here gets one answer, not a conversation.
            if client.role == .other && !client.isCompanion {
                rejectedRequests += 1
                respondAndClose(client, error: error.description)
            } else {
                refused(client, error.description)
            }
            return
        }
        guard let handler else {
            errorReply("the daemon is shutting down")
            enqueue(client, reply.bytes, now: true)
            return
        }
        switch request {
        case .companion(let companionRequest):
            guard let companions else { refused(client, "this daemon takes no session companion"); return }
            if case .hello = companionRequest {} else if !client.isCompanion {
                let message = "not the session companion: send {\"cmd\":\"companion\"} first"
                if client.role == .other { rejectedRequests += 1; respondAndClose(client, error: message) } else { refused(client, message) }
                return
            }
            companions.companion(companionRequest, from: client)
            return
        case .forgetPicks, .reloadSettings, .session:
            break   // any user, for their own picks, settings and session only
        default:
            guard client.role != .other else {
                rejectedRequests += 1
                refusalLog.log(.notice, at: MonotonicClock.now(), "control: \(client.who) refused: not root, not in group \(group?.name ?? "-")")
                respondAndClose(client, error: authorization.deniedMessage)
                return
            }
        }
        switch request {
        case .status:
            let status = handler.status(activity: authorization.mayReceiveContent(uid: client.uid))
            reply.beginObject()
            reply.key("ok"); reply.bool(true)
            reply.key("pid"); reply.int(Int(getpid()))
            if let version { reply.key("version"); reply.string(version) }
            reply.key("uptime_ms"); reply.milliseconds(MonotonicClock.now().microseconds - started.microseconds)
            reply.key("monitors"); reply.int(monitor.count)
            status.write(to: &reply)
            reply.endObject()
            reply.newline()
        case .reload:
            switch handler.reload() {
            case .reloaded(let source):
                okReply { $0.key("configuration"); $0.string(source) }
                monitor.publishNotice("reloaded", detail: source)
            case .failed(let message):
                errorReply(message)
                monitor.publishNotice("reload failed", detail: message)
            }
        case .pause, .resume:
            let pause = request == .pause
            if pause { handler.pause() } else { handler.resume() }
            okReply { $0.key("paused"); $0.bool(pause) }
            monitor.publishNotice(pause ? "paused" : "resumed", detail: "by uid \(client.uid)")
        case .forgetPicks:
            let inFront = handler.forgetPicks(of: client.uid)
            okReply { $0.key("in_front"); $0.bool(inFront) }
        case .reloadSettings:
            let asked = handler.reloadSettings(of: client.uid)
            okReply { $0.key("companions"); $0.int(asked) }
        case .session:
            let info = handler.session(of: client.uid)
            okReply {
                $0.key("in_front"); $0.bool(info.inFront)
                $0.key("paused"); $0.bool(info.paused)
                for (key, value) in [("unicode_method", info.unicodeMethod), ("application", info.application), ("settings", info.settings)] {
                    if let value { $0.key(key); $0.string(value) }
                }
            }
        case .monitor(let wantsContent):
            let content = wantsContent && authorization.mayReceiveContent(uid: client.uid)
            okReply {
                $0.key("monitor"); $0.bool(true)
                $0.key("content"); $0.bool(content)
                if !content {
                    $0.key("note"); $0.string("keys, gestures and callouts are shown to root only; showing the daemon's notices")
                }
            }
            let open = monitor.add(client, content: content)
            enqueue(client, reply.bytes, now: true)
            if let open, clients[client.fd] === client { enqueue(client, open, now: true) }
            return
        case .companion:
            return
        }
        enqueue(client, reply.bytes, now: true)
    }

    /// Sends the reply in `reply`, then closes the connection.
    private func closeAfterReply(_ client: ControlConnection) {
        client.closing = true
        updateInterest(client)   // read no more
        enqueue(client, reply.bytes, now: true)
        if clients[client.fd] === client, client.pending == 0 { drop(client, why: nil) }
    }

    /// The connection took the companion role: a keymap is one of its lines, and it waits for
    /// events.
    func makeCompanion(_ client: ControlConnection) {
        client.isCompanion = true
        client.lineLimit = Self.maximumCompanionLineBytes
    }

    /// `{"ok":true,...}` with `members` to `client`, now.
    func respond(_ client: ControlConnection, _ members: (inout JSONWriter) -> Void = { _ in }) {
        okReply(members)
        enqueue(client, reply.bytes, now: true)
    }

    /// `{"ok":false,"error":...}` to `client`, now.
    func respond(_ client: ControlConnection, error message: String) {
        errorReply(message)
        enqueue(client, reply.bytes, now: true)
    }

    /// The error, then the connection closes.
    func respondAndClose(_ client: ControlConnection, error message: String) {
        errorReply(message)
        closeAfterReply(client)
    }

    private func okReply(_ members: (inout JSONWriter) -> Void) {
        reply.reset()
        reply.beginObject()
        reply.key("ok"); reply.bool(true)
        members(&reply)
        reply.endObject()
        reply.newline()
    }

    private func errorReply(_ message: String) {
        reply.reset()
        reply.beginObject()
        reply.key("ok"); reply.bool(false)
        reply.key("error"); reply.string(message)
        reply.endObject()
        reply.newline()
    }

    // MARK: - Output

    /// Queues `bytes` for `client`; with `now`, tries to send at once. Drops a client whose
    /// queue would exceed the limit.
    func enqueue(_ client: ControlConnection, _ bytes: [UInt8], now: Bool) {
        guard clients[client.fd] === client else { return }
        var offset = 0
        if now && client.pending == 0 {
            let n = bytes.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { drop(client, why: nil); return }
            offset = max(n, 0)
        }
        if client.pending + bytes.count - offset > maximumPendingBytes {
            drop(client, why: "too slow: \(client.pending) bytes not read" + (client.isMonitor ? " (monitor)" : ""))
            return
        }
        if offset < bytes.count {
            client.output.append(contentsOf: bytes[offset...])
            if now { waitToWrite(client, true) }
        } else if client.closing {
            drop(client, why: nil)
        }
    }

    /// Sends what `client` has queued; true when nothing is left.
    @discardableResult
    func flush(_ client: ControlConnection) -> Bool {
        while client.pending > 0 {
            let n = client.output.withUnsafeBytes { raw in
                send(client.fd, raw.baseAddress! + client.outputStart, client.pending, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                drop(client, why: nil)
                return true
            }
            client.outputStart += n
        }
        if client.pending == 0 {
            client.output.removeAll(keepingCapacity: true)
            client.outputStart = 0
            waitToWrite(client, false)
            if client.closing { drop(client, why: nil) }
            return true
        }
        if client.outputStart > 65536 {
            client.output.removeFirst(client.outputStart)
            client.outputStart = 0
        }
        waitToWrite(client, true)
        return false
    }

    /// Waits (or stops waiting) for room in the client's socket.
    private func waitToWrite(_ client: ControlConnection, _ wait: Bool) {
        guard client.waitsToWrite != wait else { return }
        client.waitsToWrite = wait
        updateInterest(client)
    }

    /// What the loop watches the client's socket for: its input, unless it is closing, lines
    /// already wait in its buffer or it waits to be served; room to write while output waits.
    private func updateInterest(_ client: ControlConnection) {
        var events: EventLoop.Events = client.closing || client.backlogged || client.queued ? [] : .readable
        if client.waitsToWrite { events.formUnion(.writable) }
        loop.change(client.token, to: events)
    }

    /// The loop found the client's socket readable, writable, or broken: output goes at once, input
    /// is read after the batch.
    private func clientReady(_ client: ControlConnection, _ events: EventLoop.Events) {
        if events.contains(.writable) || (client.closing && !events.isDisjoint(with: [.error, .hangUp])) {
            flush(client)
        }
        guard clients[client.fd] === client, !client.closing, !client.backlogged,
              !events.isDisjoint(with: [.readable, .error, .hangUp]) else { return }
        markReady(client)
        // Until it is read the socket stays readable: the loop is not to report it again.
        updateInterest(client)
    }

    /// Whether the socket still accepts (not shut down): monitor output is then flushed after batches.
    var isListening: Bool { listenFD >= 0 }

    // MARK: - The engine's trace

}
