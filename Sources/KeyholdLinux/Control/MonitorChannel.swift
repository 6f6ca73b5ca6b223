import KeyholdKit

/// `keyhold monitor`: the control connections that watch the engine's trace and the daemon's
/// notices. Cheap for typing: with no monitor connected an entry costs one comparison; with
/// monitors it is encoded once (with and without key content) and copied into each one's
/// bounded buffer, and the bytes go out after the loop batch, once its keys are written.
public final class MonitorChannel {
    public private(set) var count = 0 {
        // The engine builds every key's entries only while a monitor watches them.
        didSet { if (count == 0) != (oldValue == 0) { server.onRecordsKeysChanged?() } }
    }
    private unowned let server: ControlServer
    private var monitors: [ControlConnection] = []
    private var contentLine = JSONWriter(capacity: 512)
    private var plainLine = JSONWriter(capacity: 256)
    private var openCallout: OpenCallout?
    private var flushScheduled = false
    /// `flushScheduledOutput`, made once: queuing it after a batch allocates nothing.
    private lazy var flushWork: () -> Void = { [unowned self] in self.flushScheduledOutput() }

    init(server: ControlServer) { self.server = server }

    /// Makes `connection` a monitor (`content`: it sees key names and characters); returns the
    /// lines of the callout open now, for it to see that from the start.
    func add(_ connection: ControlConnection, content: Bool) -> [UInt8]? {
        if !connection.isMonitor {
            connection.isMonitor = true
            monitors.append(connection)
            count = monitors.count
        }
        connection.content = content
        return openCallout?.lines(content: content)
    }

    func remove(_ connection: ControlConnection) {
        guard connection.isMonitor, let i = monitors.firstIndex(where: { $0 === connection }) else { return }
        monitors.remove(at: i)
        count = monitors.count
    }

    /// Sends a trace entry to every monitor.
    public func publish(_ entry: TraceEntry) {
        if case .callout(let event, let time) = entry { openCallout = .following(event, at: time, from: openCallout) }
        guard count > 0 else { return }
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
            if i < monitors.count, monitors[i] === client { i += 1 }   // else it was dropped as too slow
        }
    }

    /// A notice to every monitor: "paused", "resumed", "reloaded", "sleep", "wake", ...
    public func publishNotice(_ name: String, detail: String? = nil) {
        guard count > 0 else { return }
        MonitorEvent.notice(name, detail: detail, into: &plainLine)
        for client in monitors { append(client, plainLine.bytes) }
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
