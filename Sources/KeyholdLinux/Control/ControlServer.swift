import CLinuxShim
import Glibc
import KeyholdKit

/// The control socket (`/run/keyhold/control`): `keyhold status|reload|pause|resume|monitor`
/// talk to the daemon through it. It runs on the daemon's event loop (no thread of its own):
///
///     let control = try ControlServer(path: ControlSocketPath.forDaemon(), loop: loop, handler: self)
///     engine.observer = control          // monitor clients see the engine's trace
///
/// Who may do what (DESIGN.md, Privileges) is decided from the peer's credentials (SO_PEERCRED,
/// SO_PEERGROUPS), not the file's mode (0666: the session companion of whichever user is in
/// front of the seat must reach it): root and the daemon's own user may do everything; members
/// of the group `keyhold` get status, reload, pause, resume and monitor without key content; the
/// owner of the seat's active session may connect its companion (`ControlHandler` decides);
/// anyone else is refused with a message saying so.
///
/// Typing is never slowed down by a client: requests are read at most 4 KiB per wake-up, a line
/// over 4 KiB is refused and the connection closed, and `publish` only copies the encoded event
/// into each monitor's bounded buffer (nothing at all when no monitor is connected). The bytes
/// are sent after the current loop batch (the virtual keyboard is written first); a client whose
/// buffer exceeds `maximumPendingBytes` is disconnected with a log line.
public final class ControlServer: EngineObserver {
    public static let maximumRequestBytes = 4096
    /// A companion's keymap is one line.
    public static let maximumCompanionLineBytes = 1 << 20
    /// Connections one user other than root may hold at once, so nobody can fill the table.
    public static let maximumConnectionsPerUser = 8

    public let path: String
    /// The handler that runs the commands; usually the daemon (not retained).
    public weak var handler: ControlHandler?
    /// Shown by `keyhold status`.
    public var version: String?
    /// Bytes a client may have waiting to be sent before it is disconnected as too slow.
    public var maximumPendingBytes = 256 * 1024
    /// Connections at once; more are told so and closed.
    public var maximumClients = 256
    /// The group whose members may connect besides root and the daemon's own user (nil: none).
    public let group: (name: String, gid: gid_t)?
    public private(set) var monitorCount = 0
    public var clientCount: Int { clients.count }
    /// Requests refused as malformed, unknown or too long (for tests and `status`).
    public private(set) var rejectedRequests = 0

    private let loop: EventLoop
    private var listenFD: Int32 = -1
    private var tokens: [EventLoop.Token] = []
    private var flushScheduled = false
    /// `flushScheduledOutput`, made once: queuing it after a batch allocates nothing.
    private lazy var flushWork: () -> Void = { [unowned self] in self.flushScheduledOutput() }
    private var clients: [Int32: Client] = [:]
    private var monitors: [Client] = []
    private var contentLine = JSONWriter(capacity: 512)
    private var plainLine = JSONWriter(capacity: 256)
    private var reply = JSONWriter(capacity: 1024)
    private var readBuffer = [UInt8](repeating: 0, count: ControlServer.maximumRequestBytes + 1)
    private let started = MonotonicClock.now()
    private var socketInode: (dev: UInt64, ino: UInt64)?
    private var nextClientID = 1
    /// The callout open now, so a monitor that connects while it is open sees it.
    private var openCallout: (base: String, candidates: [String], index: Int, shown: String, time: Timestamp)?
    /// The companion of the session in front: it shows the picker, so it gets every callout
    /// event with its content (its own user's typing). Set by the daemon as the session changes:
    /// the one leaving is told the callout closed, the one arriving sees the one open.
    public weak var calloutCompanion: SessionCompanion? {
        didSet {
            guard oldValue !== calloutCompanion, let open = openCallout else { return }
            if let oldValue { sendCallout(.closed(text: open.shown), open.time, to: oldValue) }
            if let calloutCompanion { sendOpenCallout(open, to: calloutCompanion) }
        }
    }
    private var calloutLine = JSONWriter(capacity: 256)

    /// What a peer's credentials allow.
    enum Role { case admin, member, other }

    private final class Client {
        let fd: Int32
        let id: Int
        let pid: Int32, uid: UInt32
        var role = Role.other
        var companion: SessionCompanion?
        var lineLimit = ControlServer.maximumRequestBytes
        var token: EventLoop.Token = 0
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputStart = 0
        /// Waits for room in the socket (the loop reports it writable).
        var waitsToWrite = false
        var isMonitor = false
        var content = false
        var closing = false
        var pending: Int { output.count - outputStart }
        init(fd: Int32, id: Int, pid: Int32, uid: UInt32) { self.fd = fd; self.id = id; self.pid = pid; self.uid = uid }
        var who: String { "client \(id) (pid \(pid), uid \(uid))" }
    }

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
        // The system service runs as root or as its own user in that group; a daemon a user runs
        // for themselves does not hand out control to a group.
        if let group, let entry = getgrnam(group), geteuid() == 0 || Self.processIsInGroup(entry.pointee.gr_gid) {
            self.group = (group, entry.pointee.gr_gid)
        } else {
            if let group, geteuid() == 0 { Log.info("control: group \(group) does not exist; the socket is for root only") }
            self.group = nil
        }
        do throws(SystemError) {
            try createSocket(mode: mode)
            tokens.append(try loop.watch(listenFD) { [unowned self] in self.acceptClients() })
        } catch {
            shutdown()
            throw error
        }
        Log.info("control: listening on \(path)" + (self.group.map { " (group \($0.name))" } ?? ""))
    }

    deinit { shutdown() }

    /// Closes every connection and removes the socket file (if it is still ours).
    public func shutdown() {
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
            if let group { _ = chown(directory, uid_t.max, group.gid) }
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
            if let group, st.st_gid != group.gid, chown(path, uid_t.max, group.gid) != 0 {
                Log.warning("control: cannot give \(path) to group \(group.name): \(errorString(errno)); only root can use it")
            }
        }
        guard listen(fd, 64) == 0 else { throw SystemError("listen", errno) }
    }

    /// Calls `body` with a sockaddr_un for `path`; returns -2 when the path is too long.
    static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
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

    private func acceptClients() {
        for _ in 0..<64 {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED {
                    Log.warning("control: accept: \(errorString(errno))")
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let credentials = PeerCredentials(fd: fd)
            let client = Client(fd: fd, id: nextClientID, pid: credentials.pid, uid: credentials.uid)
            nextClientID += 1
            guard clients.count < maximumClients else {
                Log.warning("control: \(client.who) refused: already \(clients.count) connections")
                refuse(client, "too many connections")
                continue
            }
            client.role = role(credentials, fd: fd)
            if client.role != .admin,
               clients.values.filter({ $0.uid == client.uid }).count >= ControlServer.maximumConnectionsPerUser {
                Log.notice("control: \(client.who) refused: uid \(client.uid) already has \(ControlServer.maximumConnectionsPerUser) connections")
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
            Log.debug("control: \(client.who) connected")
        }
    }

    private static func processIsInGroup(_ gid: gid_t) -> Bool {
        if getegid() == gid { return true }
        var groups = [gid_t](repeating: 0, count: Int(max(0, getgroups(0, nil))))
        let n = getgroups(Int32(groups.count), &groups)
        return n > 0 && groups.prefix(Int(n)).contains(gid)
    }

    private func role(_ c: PeerCredentials, fd: Int32) -> Role {
        if c.uid == 0 || c.uid == geteuid() { return .admin }
        guard let group else { return .other }
        if c.gid == group.gid || PeerCredentials.groups(fd: fd).contains(group.gid) { return .member }
        return .other
    }

    private var deniedMessage: String {
        "permission denied: keyhold's control socket is for root" + (group.map { " and members of group \($0.name)" } ?? "")
            + " (status, reload, pause, resume, monitor), and for the companion (keyhold-session) of the seat's active session"
    }

    /// Key content (key names, characters) is shown to root and to the daemon's own user only.
    private func mayReceiveContent(_ client: Client) -> Bool { client.uid == 0 || client.uid == geteuid() }

    private func refuse(_ client: Client, _ message: String) {
        reply.reset()
        errorReply(message)
        _ = reply.bytes.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        _ = readBuffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        Glibc.close(client.fd)
    }

    private func drop(_ client: Client, why: String?) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        if client.token != 0 { loop.unwatch(client.token) }
        if client.isMonitor, let i = monitors.firstIndex(where: { $0 === client }) {
            monitors.remove(at: i)
            monitorCount = monitors.count
        }
        if let companion = client.companion {
            client.companion = nil
            handler?.companionDisconnected(companion)
        }
        // Unread input would make the peer's read fail with ECONNRESET before it sees our last
        // reply: read it away first (bounded).
        for _ in 0..<16 {
            let n = readBuffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
        }
        Glibc.close(client.fd)
        if let why { Log.warning("control: \(client.who) disconnected: \(why)") }
    }

    private func readClient(_ client: Client) {
        guard !client.closing else { return }
        let n = readBuffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, ControlServer.maximumRequestBytes) }
        if n == 0 { drop(client, why: nil); return }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            drop(client, why: nil)
            return
        }
        var start = 0
        for i in 0..<n where readBuffer[i] == 0x0A {
            let total = client.input.count + (i - start)
            if total > client.lineLimit { tooLong(client); return }
            if client.input.isEmpty {
                handleLine(client, readBuffer[start..<i])
            } else {
                client.input.append(contentsOf: readBuffer[start..<i])
                let line = client.input
                client.input.removeAll(keepingCapacity: true)
                handleLine(client, line[...])
            }
            if client.closing || clients[client.fd] !== client { return }
            start = i + 1
        }
        if start < n {
            if client.input.count + (n - start) > client.lineLimit { tooLong(client); return }
            client.input.append(contentsOf: readBuffer[start..<n])
        }
    }

    private func tooLong(_ client: Client) {
        rejectedRequests += 1
        client.input = []
        errorReply("request too long (over \(client.lineLimit) bytes); closing the connection")
        closeAfterReply(client)
    }

    // MARK: - Requests

    private func handleLine(_ client: Client, _ line: ArraySlice<UInt8>) {
        var line = line
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
        while let first = line.first, first == 0x20 || first == 0x09 { line.removeFirst() }
        guard !line.isEmpty else { return }
        reply.reset()
        let request: ControlRequest
        do {
            request = try ControlRequest(line: line)
        } catch {
            rejectedRequests += 1
            errorReply(error.description)
            enqueue(client, reply.bytes, now: true)
            return
        }
        guard let handler else {
            errorReply("the daemon is shutting down")
            enqueue(client, reply.bytes, now: true)
            return
        }
        switch request {
        case .companion, .keymap, .typed, .pick, .dismiss:
            handleCompanion(client, request, handler)
            return
        default:
            guard client.role != .other else {
                rejectedRequests += 1
                Log.notice("control: \(client.who) refused: not root, not in group \(group?.name ?? "-")")
                errorReply(deniedMessage)
                closeAfterReply(client)
                return
            }
        }
        switch request {
        case .status:
            let status = handler.status()
            reply.beginObject()
            reply.key("ok"); reply.bool(true)
            reply.key("pid"); reply.int(Int(getpid()))
            if let version { reply.key("version"); reply.string(version) }
            reply.key("uptime_ms"); reply.milliseconds(MonotonicClock.now().microseconds - started.microseconds)
            reply.key("monitors"); reply.int(monitorCount)
            status.write(to: &reply)
            reply.endObject()
            reply.newline()
        case .reload:
            switch handler.reload() {
            case .reloaded(let source):
                okReply { $0.key("configuration"); $0.string(source) }
                publishNotice("reloaded", detail: source)
            case .failed(let message):
                errorReply(message)
                publishNotice("reload failed", detail: message)
            }
        case .pause, .resume:
            let pause = request == .pause
            if pause { handler.pause() } else { handler.resume() }
            okReply { $0.key("paused"); $0.bool(pause) }
            publishNotice(pause ? "paused" : "resumed", detail: "by uid \(client.uid)")
        case .monitor(let wantsContent):
            let content = wantsContent && mayReceiveContent(client)
            okReply {
                $0.key("monitor"); $0.bool(true)
                $0.key("content"); $0.bool(content)
                if wantsContent && !content {
                    $0.key("note"); $0.string("key content is shown to root only; showing gestures and callout positions")
                }
            }
            if !client.isMonitor {
                client.isMonitor = true
                monitors.append(client)
                monitorCount = monitors.count
            }
            client.content = content
            enqueue(client, reply.bytes, now: true)
            if let open = openCallout, clients[client.fd] === client { enqueue(client, Self.openCalloutLines(open, content: content), now: true) }
            return
        case .companion, .keymap, .typed, .pick, .dismiss:
            return
        }
        enqueue(client, reply.bytes, now: true)
    }

    /// The companion's requests: `companion` takes the role (when the handler allows this user),
    /// `keymap` and `typed` come only from a connection that has it.
    private func handleCompanion(_ client: Client, _ request: ControlRequest, _ handler: ControlHandler) {
        switch request {
        case .companion(let backend):
            if client.companion != nil { errorReply("already the companion"); enqueue(client, reply.bytes, now: true); return }
            if let refusal = handler.companionRefusal(uid: client.uid) {
                Log.notice("control: \(client.who) refused as companion: \(refusal)")
                errorReply("refused: \(refusal)")
                closeAfterReply(client)
                return
            }
            let companion = SessionCompanion(uid: client.uid, pid: client.pid, backend: backend, server: self)
            client.companion = companion
            client.lineLimit = ControlServer.maximumCompanionLineBytes
            okReply { $0.key("companion"); $0.bool(true) }
            enqueue(client, reply.bytes, now: true)
            handler.companionConnected(companion)
        case .keymap(let keymap, let temporary):
            guard let companion = client.companion else { notCompanion(client); return }
            do throws(ControlProtocolError) {
                let name = try handler.companion(companion, reportedKeymap: keymap, temporaryKeycodes: temporary)
                okReply { $0.key("layout"); $0.string(name) }
            } catch {
                errorReply(error.description)
            }
            enqueue(client, reply.bytes, now: true)
        case .typed(let id, let delivered):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, typed: id, delivered: delivered)
        case .pick(let index):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, picked: index)
        case .dismiss:
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companionDismissedCallout(companion)
        default:
            break
        }
    }

    private func notCompanion(_ client: Client) {
        rejectedRequests += 1
        errorReply("not the session companion: send {\"cmd\":\"companion\"} first")
        if client.role == .other { closeAfterReply(client) } else { enqueue(client, reply.bytes, now: true) }
    }

    /// Sends the reply in `reply`, then closes the connection.
    private func closeAfterReply(_ client: Client) {
        client.closing = true
        loop.change(client.token, to: client.waitsToWrite ? .writable : [])   // read no more
        enqueue(client, reply.bytes, now: true)
        if clients[client.fd] === client, client.pending == 0 { drop(client, why: nil) }
    }

    // MARK: - Companions

    private var typeLine = JSONWriter(capacity: 128)

    /// `{"event":"type","id":ID,"after":N,"text":TEXT}` to `companion`'s connection, now.
    func sendType(_ text: String, id: UInt64, after: UInt64, to companion: SessionCompanion) {
        guard let client = connection(of: companion) else { return }
        typeLine.reset()
        typeLine.beginObject()
        typeLine.key("event"); typeLine.rawString("type")
        typeLine.key("id"); typeLine.int(Int(id))
        typeLine.key("after"); typeLine.int(Int(truncatingIfNeeded: after))
        typeLine.key("text"); typeLine.string(text)
        typeLine.endObject()
        typeLine.newline()
        enqueue(client, typeLine.bytes, now: true)
    }

    private var soundLine = JSONWriter(capacity: 96)

    /// `{"event":"sound","sound":NAME,"volume":V,"at":NS}` to `companion`'s connection, now: the
    /// companion plays it through the session's sound server. `at` (CLOCK_MONOTONIC ns) lets it
    /// measure the whole delay. False when the companion has no open connection.
    func sendSound(_ sound: AudioFeedback, volume: Double, to companion: SessionCompanion) -> Bool {
        guard let client = connection(of: companion) else { return false }
        soundLine.reset()
        soundLine.beginObject()
        soundLine.key("event"); soundLine.rawString("sound")
        soundLine.key("sound"); soundLine.string(sound.configString)
        soundLine.key("volume"); soundLine.double(volume)
        soundLine.key("at"); soundLine.int(Int(truncatingIfNeeded: FeedbackClock.nanoseconds()))
        soundLine.endObject()
        soundLine.newline()
        enqueue(client, soundLine.bytes, now: true)
        return true
    }

    /// A callout event to `companion` (`{"event":"callout",...}` as a monitor with content sees it).
    private func sendCallout(_ event: CalloutEvent, _ time: Timestamp, to companion: SessionCompanion) {
        guard let client = connection(of: companion) else { return }
        _ = MonitorEvent.encode(.callout(event, time), content: true, into: &calloutLine)
        enqueue(client, calloutLine.bytes, now: true)
    }

    private func sendOpenCallout(_ open: (base: String, candidates: [String], index: Int, shown: String, time: Timestamp),
                                 to companion: SessionCompanion) {
        guard let client = connection(of: companion) else { return }
        enqueue(client, Self.openCalloutLines(open, content: true), now: true)
    }

    /// The open callout as the events that opened it and moved it to where it is.
    private static func openCalloutLines(_ open: (base: String, candidates: [String], index: Int, shown: String, time: Timestamp),
                                         content: Bool) -> [UInt8] {
        var w = JSONWriter()
        _ = MonitorEvent.encode(.callout(.opened(base: open.base, candidates: open.candidates), open.time), content: content, into: &w)
        guard open.index != 0 else { return w.bytes }
        let opened = w.bytes
        _ = MonitorEvent.encode(.callout(.moved(index: open.index, shown: open.shown), open.time), content: content, into: &w)
        return opened + w.bytes
    }

    /// The connection `companion` came on, while it is open.
    private func connection(of companion: SessionCompanion) -> Client? {
        clients.values.first { $0.companion === companion }
    }

    func sendActive(to companion: SessionCompanion) {
        guard let client = connection(of: companion) else { return }
        enqueue(client, Array("{\"event\":\"active\"}\n".utf8), now: true)
    }

    func disconnect(_ companion: SessionCompanion, why: String) {
        guard let client = connection(of: companion) else { return }
        drop(client, why: why)
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
    private func enqueue(_ client: Client, _ bytes: [UInt8], now: Bool) {
        guard clients[client.fd] === client else { return }
        if client.pending + bytes.count > maximumPendingBytes {
            drop(client, why: "too slow: \(client.pending) bytes not read" + (client.isMonitor ? " (monitor)" : ""))
            return
        }
        var offset = 0
        if now && client.pending == 0 {
            let n = bytes.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { drop(client, why: nil); return }
            offset = max(n, 0)
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
    private func flush(_ client: Client) -> Bool {
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

    /// Waits (or stops waiting) for room in the client's socket, besides its input unless it is closing.
    private func waitToWrite(_ client: Client, _ wait: Bool) {
        guard client.waitsToWrite != wait else { return }
        client.waitsToWrite = wait
        let reading: EventLoop.Events = client.closing ? [] : .readable
        loop.change(client.token, to: wait ? reading.union(.writable) : reading)
    }

    /// The loop found the client's socket readable, writable, or broken.
    private func clientReady(_ client: Client, _ events: EventLoop.Events) {
        if events.contains(.writable) || (client.closing && !events.isDisjoint(with: [.error, .hangUp])) {
            flush(client)
        }
        guard clients[client.fd] === client, !client.closing,
              !events.isDisjoint(with: [.readable, .error, .hangUp]) else { return }
        readClient(client)
    }

    /// Monitor output is sent after the loop batch, once the keys of the batch are written.
    private func scheduleFlush() {
        guard !flushScheduled, listenFD >= 0 else { return }
        flushScheduled = true
        loop.afterBatch(flushWork)
    }

    private func flushScheduledOutput() {
        flushScheduled = false
        for client in monitors where client.pending > 0 && !client.waitsToWrite { flush(client) }
    }

    // MARK: - Publishing

    /// `EngineObserver`: the engine's trace goes to the monitors.
    public func record(_ entry: TraceEntry) { publish(entry) }

    /// Sends a trace entry to every monitor client. Cheap: returns at once without monitors;
    /// with monitors it encodes the entry once (with and without content) and copies it into
    /// each client's buffer; the bytes are written after the current loop batch.
    public func publish(_ entry: TraceEntry) {
        if case .callout(let event, let time) = entry {
            track(event, time)
            if let calloutCompanion { sendCallout(event, time, to: calloutCompanion) }
        }
        guard monitorCount > 0 else { return }
        var encodedContent: Bool?, encodedPlain: Bool?
        var i = 0
        while i < monitors.count {
            let client = monitors[i]
            let shown: Bool
            if client.content {
                if encodedContent == nil { encodedContent = MonitorEvent.encode(entry, content: true, into: &contentLine) }
                shown = encodedContent!
            } else {
                if encodedPlain == nil { encodedPlain = MonitorEvent.encode(entry, content: false, into: &plainLine) }
                shown = encodedPlain!
            }
            if shown { append(client, client.content ? contentLine.bytes : plainLine.bytes) }
            if i < monitors.count, monitors[i] === client { i += 1 }
        }
    }

    /// A notice to every monitor: "paused", "resumed", "reloaded", "sleep", "wake", ...
    public func publishNotice(_ name: String, detail: String? = nil) {
        guard monitorCount > 0 else { return }
        MonitorEvent.notice(name, detail: detail, into: &plainLine)
        for client in monitors { append(client, plainLine.bytes) }
    }

    private func append(_ client: Client, _ bytes: [UInt8]) {
        if client.pending + bytes.count > maximumPendingBytes {
            drop(client, why: "too slow: \(client.pending) bytes not read (monitor)")
            return
        }
        client.output.append(contentsOf: bytes)
        scheduleFlush()
    }

    private func track(_ event: CalloutEvent, _ time: Timestamp) {
        switch event {
        case .opened(let base, let candidates): openCallout = (base, candidates, 0, base, time)
        case .moved(let index, let shown):
            openCallout?.index = index
            openCallout?.shown = shown
        case .closed: openCallout = nil
        }
    }
}

/// SO_PEERCRED and SO_PEERGROUPS of a connected unix socket (through CLinuxShim: Glibc's own
/// constants and `struct ucred`).
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = UInt32.max
    var gid: UInt32 = UInt32.max

    init(fd: Int32) {
        var pid: Int32 = 0, uid: UInt32 = .max, gid: UInt32 = .max
        if keyhold_peer_credentials(fd, &pid, &uid, &gid) == 0 { (self.pid, self.uid, self.gid) = (pid, uid, gid) }
    }

    /// The peer's supplementary groups (Linux 4.13+); empty when unavailable.
    static func groups(fd: Int32) -> [gid_t] {
        var capacity: Int32 = 64
        while capacity <= 65536 {
            var groups = [gid_t](repeating: 0, count: Int(capacity))
            var count = capacity
            if keyhold_peer_groups(fd, &groups, &count) == 0 { return Array(groups.prefix(Int(count))) }
            guard errno == ERANGE else { return [] }
            capacity = max(capacity * 4, count)
        }
        return []
    }
}
