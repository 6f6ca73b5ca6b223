import KeyholdKit

/// The session companions' side of the control socket: a connection that asks for the
/// companion role (`{"cmd":"companion"}`, allowed by `ControlHandler.companionRefusal`) becomes
/// a `SessionCompanion`; it reports the desktop's keymap, acknowledges what it typed, and picks
/// or dismisses callouts; the daemon sends it text to type, sounds to play and, for the
/// companion in front (`calloutCompanion`), every callout event with its content (its own
/// user's typing) for the picker.
public final class CompanionChannel {
    private unowned let server: ControlServer
    private var typeLine = JSONWriter(capacity: 128)
    private var soundLine = JSONWriter(capacity: 96)
    private var calloutLine = JSONWriter(capacity: 256)
    private var openCallout: OpenCallout?

    init(server: ControlServer) { self.server = server }

    /// The companion of the session in front: it shows the picker. Set by the daemon as the
    /// session changes: the one leaving is told the callout closed, the one arriving sees the
    /// one open.
    public weak var calloutCompanion: SessionCompanion? {
        didSet {
            guard oldValue !== calloutCompanion, let open = openCallout else { return }
            if let oldValue { sendCallout(.closed(text: open.shown), open.time, to: oldValue) }
            if let calloutCompanion, let connection = server.connection(of: calloutCompanion) {
                server.enqueue(connection, open.lines(content: true), now: true)
            }
        }
    }

    /// The engine's callout events go to the companion in front.
    func publish(_ entry: TraceEntry) {
        guard case .callout(let event, let time) = entry else { return }
        openCallout = .following(event, at: time, from: openCallout)
        if let calloutCompanion { sendCallout(event, time, to: calloutCompanion) }
    }

    /// The companion's requests: `companion` takes the role (when the handler allows this user),
    /// the others come only from a connection that has it.
    func handle(_ request: ControlRequest, from client: ControlConnection, handler: ControlHandler) {
        switch request {
        case .companion(let backend, let note):
            if client.companion != nil { server.respond(client, error: "already the companion"); return }
            if let refusal = handler.companionRefusal(uid: client.uid) {
                Log.notice("control: \(client.who) refused as companion: \(refusal)")
                server.respondAndClose(client, error: "refused: \(refusal)")
                return
            }
            let companion = SessionCompanion(uid: client.uid, pid: client.pid, backend: backend, note: note, channel: self)
            client.companion = companion
            client.lineLimit = ControlServer.maximumCompanionLineBytes
            server.respond(client) { $0.key("companion"); $0.bool(true) }
            handler.companionConnected(companion)
        case .keymap(let keymap, let temporary):
            guard let companion = client.companion else { notCompanion(client); return }
            do throws(ControlProtocolError) {
                let name = try handler.companion(companion, reportedKeymap: keymap, temporaryKeycodes: temporary)
                server.respond(client) { $0.key("layout"); $0.string(name) }
            } catch {
                server.respond(client, error: error.description)
            }
        case .typed(let id, let delivered):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, typed: id, delivered: delivered)
        case .untyped(let id):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, couldNotType: id)
        case .waiting(let id):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, waitsToType: id)
        case .pick(let index):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, picked: index)
        case .dismiss:
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companionDismissedCallout(companion)
        case .focus(let focus):
            guard let companion = client.companion else { notCompanion(client); return }
            handler.companion(companion, focused: focus)
        default:
            break
        }
    }

    private func notCompanion(_ client: ControlConnection) {
        server.rejectedRequests += 1
        let message = "not the session companion: send {\"cmd\":\"companion\"} first"
        if client.role == .other { server.respondAndClose(client, error: message) } else { server.respond(client, error: message) }
    }

    /// `{"event":"type","id":ID,"after":N,"written_at":US,"text":TEXT}` to `companion`'s
    /// connection, now ("written_at" only after keys).
    func sendType(_ text: String, id: UInt64, after: UInt64, writtenAt: Timestamp?, to companion: SessionCompanion) {
        guard let client = server.connection(of: companion) else { return }
        typeLine.reset()
        typeLine.beginObject()
        typeLine.key("event"); typeLine.rawString("type")
        typeLine.key("id"); typeLine.int(Int(id))
        typeLine.key("after"); typeLine.int(Int(truncatingIfNeeded: after))
        if let writtenAt { typeLine.key("written_at"); typeLine.int(Int(writtenAt.microseconds)) }
        typeLine.key("text"); typeLine.string(text)
        typeLine.endObject()
        typeLine.newline()
        server.enqueue(client, typeLine.bytes, now: true)
    }

    /// `{"event":"sound","sound":NAME,"volume":V,"at":NS}` to `companion`'s connection, now: the
    /// companion plays it through the session's sound server. `at` (CLOCK_MONOTONIC ns) lets it
    /// measure the whole delay. False when the companion has no open connection.
    public func sendSound(_ sound: AudioFeedback, volume: Double, to companion: SessionCompanion) -> Bool {
        guard let client = server.connection(of: companion) else { return false }
        soundLine.reset()
        soundLine.beginObject()
        soundLine.key("event"); soundLine.rawString("sound")
        soundLine.key("sound"); soundLine.string(sound.configString)
        soundLine.key("volume"); soundLine.double(volume)
        soundLine.key("at"); soundLine.int(Int(truncatingIfNeeded: FeedbackClock.nanoseconds()))
        soundLine.endObject()
        soundLine.newline()
        server.enqueue(client, soundLine.bytes, now: true)
        return true
    }

    /// `{"event":"active"}`: the companion's session came in front.
    func sendActive(to companion: SessionCompanion) {
        guard let client = server.connection(of: companion) else { return }
        server.enqueue(client, Array("{\"event\":\"active\"}\n".utf8), now: true)
    }

    func disconnect(_ companion: SessionCompanion, why: String) {
        guard let client = server.connection(of: companion) else { return }
        server.drop(client, why: why)
    }

    /// A callout event to `companion` (`{"event":"callout",...}` as a monitor with content sees it).
    private func sendCallout(_ event: CalloutEvent, _ time: Timestamp, to companion: SessionCompanion) {
        guard let client = server.connection(of: companion) else { return }
        _ = MonitorEvent.encode(.callout(event, time), content: true, into: &calloutLine)
        server.enqueue(client, calloutLine.bytes, now: true)
    }
}
