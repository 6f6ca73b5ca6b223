import KeyholdKit

/// `keyhold monitor`: the control connections that watch the engine's trace and the daemon's
/// notices. A monitor granted key content (root) sees every key, gesture and callout; the others
/// (group keyhold) see the daemon's notices only (paused, reloaded, sleep, ...): a gesture or a
/// callout without its key still says when a key was pressed and held, which is a typed
/// password's rhythm. Cheap for typing: with no monitor granted content an entry costs one
/// comparison; with one it is encoded once and copied into each one's bounded buffer, and the
/// bytes go out after the loop batch, once its keys are written.
public final class MonitorChannel: EngineObserver {
    public private(set) var count = 0
    /// Monitors granted key content: the engine builds every key's entries only while there are.
    public private(set) var contentCount = 0 {
        didSet { if (contentCount == 0) != (oldValue == 0) { onRecordsKeysChanged?() } }
    }
    /// `EngineObserver`: every key's entries only while a monitor granted content watches.
    public var recordsKeys: Bool { contentCount > 0 }
    /// Called when `recordsKeys` changes: the daemon tells its engine (`observersChanged()`).
    public var onRecordsKeysChanged: (() -> Void)?
    private unowned let server: ControlServer
    private var monitors: [ControlConnection] = []
    private var contentLine = JSONWriter(capacity: 512)
    private var noticeLine = JSONWriter(capacity: 256)
    private var openCallout: OpenCallout?
    private var flushScheduled = false
    /// `flushScheduledOutput`, made once: queuing it after a batch allocates nothing.
    private lazy var flushWork: () -> Void = { [unowned self] in self.flushScheduledOutput() }

    init(server: ControlServer) { self.server = server }

    /// Makes `connection` a monitor (`content`: it sees keys, gestures and callouts); returns the
    /// lines of the callout open now, for it to see that from the start.
    func add(_ connection: ControlConnection, content: Bool) -> [UInt8]? {
        if !connection.isMonitor {
            connection.isMonitor = true
            monitors.append(connection)
        }
        connection.content = content
        recount()
        return content ? openCallout?.lines() : nil
    }

    func remove(_ connection: ControlConnection) {
        guard connection.isMonitor, let i = monitors.firstIndex(where: { $0 === connection }) else { return }
        monitors.remove(at: i)
        recount()
    }

    private func recount() {
        count = monitors.count
        contentCount = monitors.filter(\.content).count
    }

    public func record(_ entry: TraceEntry) { publish(entry) }

    /// Sends a trace entry to every monitor granted content.
    public func publish(_ entry: TraceEntry) {
        if case .callout(let event, let time) = entry { openCallout = .following(event, at: time, from: openCallout) }
        guard contentCount > 0 else { return }
        MonitorEvent.encode(entry, into: &contentLine)
        var i = 0
        while i < monitors.count {
            let client = monitors[i]
            if client.content { append(client, contentLine.bytes) }
            if i < monitors.count, monitors[i] === client { i += 1 }   // else it was dropped as too slow
        }
    }

    /// A notice: "paused", "resumed", "reloaded", "sleep", "wake", ... to every monitor; one that
    /// says what the user in front is doing (`activity`: the application that has the focus) to
    /// those granted content only.
    public func publishNotice(_ name: String, detail: String? = nil, activity: Bool = false) {
        guard count > 0, !activity || contentCount > 0 else { return }
        MonitorEvent.notice(name, detail: detail, into: &noticeLine)
        for client in monitors where client.content || !activity { append(client, noticeLine.bytes) }
    }

    private func append(_ client: ControlConnection, _ bytes: [UInt8]) {
        if client.pending + bytes.count > server.maximumPendingBytes {
            server.drop(client, why: "too slow: \(client.pending) bytes not read (monitor)")
            return
        }
        client.output.append(contentsOf: bytes)
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard !flushScheduled, server.isListening else { return }
        flushScheduled = true
        server.loop.afterBatch(flushWork)
    }

    private func flushScheduledOutput() {
        flushScheduled = false
        for client in monitors where client.pending > 0 && !client.waitsToWrite { server.flush(client) }
    }
}
