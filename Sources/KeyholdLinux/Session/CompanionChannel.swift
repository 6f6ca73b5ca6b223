import KeyholdKit

/// The session companions' side of the control socket: a connection that asks for the
/// companion role (`{"cmd":"companion"}`, allowed by `ControlHandler.companionRefusal`) becomes
/// a `SessionCompanion` of one logind session; it reports the desktop's keymap, acknowledges what
/// it typed, and picks or dismisses callouts; the daemon sends it text to type, sounds to play
/// and, for the companion in front (`calloutCompanion`), every callout event with its content
/// (its own user's typing) for the picker.
///
/// Distrust (docs/SECURITY.md): the session is the peer's own (its process's, from logind), or
/// for a companion outside any (a user service) the one it names, which must be its user's; what
/// it asks is checked against the session in front at every request, so a companion whose session
/// went to the background is refused; a keymap is bounded (`maximumKeymapBytes`, no `include`:
/// a companion sends what xkbcommon wrote, which includes nothing) and compiled off the input
/// thread (`KeymapCompiler`).
public final class CompanionChannel {
    /// A keymap of four layouts is about 80 KB as xkbcommon writes it.
    public static let maximumKeymapBytes = 256 * 1024
    private unowned let server: ControlServer
    private var typeLine = JSONWriter(capacity: 128)
    private var soundLine = JSONWriter(capacity: 96)
    private var calloutLine = JSONWriter(capacity: 256)
    private var openCallout: OpenCallout?
    private lazy var keymaps = KeymapCompiler(watcher: server.loop)

    init(server: ControlServer) { self.server = server }

    /// The companion of the session in front: it shows the picker. Set by the daemon as the
    /// session changes: the one leaving is told the callout closed, the one arriving sees the
    /// one open.
    public weak var calloutCompanion: SessionCompanion? {
        didSet {
            guard oldValue !== calloutCompanion, let open = openCallout else { return }
            if let oldValue { sendCallout(.closed(text: open.shown), open.time, to: oldValue) }
            if let calloutCompanion, let connection = server.connection(of: calloutCompanion) {
                server.enqueue(connection, open.lines(), now: true)
            }
        }
    }

    /// The engine's callout events go to the companion in front.
    func publish(_ entry: TraceEntry) {
        guard case .callout(let event, let time) = entry else { return }
        openCallout = .following(event, at: time, from: openCallout)
        if let calloutCompanion { sendCallout(event, time, to: calloutCompanion) }
    }

    /// The companion's requests: `companion` takes the role (when the handler allows this session),
    /// the others come only from a connection that has it, and only while its session is in front
    /// (but the acknowledgements of what it was handed, which the queue checks itself).
    func handle(_ request: ControlRequest, from client: ControlConnection, handler: ControlHandler) {
        if case .companion(let backend, let note, let claimed) = request {
            if client.companion != nil { server.refused(client, "already the companion"); return }
            // Its process's own session; else (a user service) the one it names, if its user's;
            // else its user's display session.
            let session = LogindSessions.ownedSession(client.session, by: client.uid)
                ?? LogindSessions.ownedSession(claimed, by: client.uid) ?? LogindSessions.display(of: client.uid)
            if let refusal = handler.companionRefusal(uid: client.uid, session: session) {
                server.logRefusal("control: \(client.who) refused as companion: \(refusal)")
                server.respondAndClose(client, error: "refused: \(refusal)")
                return
            }
            let companion = SessionCompanion(uid: client.uid, pid: client.pid, session: session, backend: backend, note: note, channel: self)
            client.companion = companion
            client.lineLimit = ControlServer.maximumCompanionLineBytes
            server.respond(client) { $0.key("companion"); $0.bool(true) }
            handler.companionConnected(companion)
            return
        }
        guard let companion = client.companion else { notCompanion(client); return }
        switch request {
        case .typed(let id, let delivered):
            handler.companion(companion, typed: id, delivered: delivered)
            return
        case .untyped(let id):
            handler.companion(companion, couldNotType: id)
            return
        case .waiting(let id):
            handler.companion(companion, waitsToType: id)
            return
        default: break
        }
        guard handler.companionIsInFront(companion) else {
            if case .keymap = request { server.respond(client, error: "this session is not in front of the seat now") }
            return
        }
        switch request {
        case .keymap(let keymap, let temporary):
            compile(keymap, temporaryKeycodes: temporary, of: companion, client: client, handler: handler)
        case .pick(let index):
            handler.companion(companion, picked: index)
        case .dismiss:
            handler.companionDismissedCallout(companion)
        case .focus(let focus):
            handler.companion(companion, focused: focus)
        default:
            break
        }
    }

    /// The desktop's keymap, checked here and compiled off the input thread; the reply (the
    /// layout's name, or why not) once it is.
    private func compile(_ keymap: String, temporaryKeycodes: [Int], of companion: SessionCompanion, client: ControlConnection,
                         handler: ControlHandler) {
        guard keymap.utf8.count <= Self.maximumKeymapBytes else {
            server.refused(client, "keymap too large (over \(Self.maximumKeymapBytes / 1024) KiB)")
            return
        }
        guard !Self.includesFiles(keymap) else {
            server.refused(client, "keymap names files to include: send the keymap as xkbcommon writes it")
            return
        }
        guard let keymaps else {
            server.respond(client, error: "keymaps cannot be compiled now")
            return
        }
        let excluded = Set(temporaryKeycodes.map { KeyCode(UInt16($0 - 8)) })
        keymaps.compile(.init(owner: ObjectIdentifier(companion), text: keymap, source: "keyhold-session pid \(companion.pid)",
                              excluded: excluded) { [weak self, weak companion] outcome in
            guard let self, let companion, let client = self.server.connection(of: companion) else { return }
            switch outcome {
            case .success(let layout):
                // In front when it was sent, perhaps not now: kept for its session either way.
                handler.companion(companion, compiledKeymap: layout)
                self.server.respond(client) { $0.key("layout"); $0.string(layout.name) }
            case .failure(let error):
                self.server.refused(client, error.description)
            }
        })
    }

    /// Whether keymap text includes other files: an `include` statement, or one of the merge
    /// modes that begin one (`augment`, `override`, `replace`), in any case, outside comments and
    /// strings (read as xkbcommon's scanner reads them: a backslash escapes the next character of
    /// a string). xkbcommon writes none of these words.
    static func includesFiles(_ keymap: String) -> Bool {
        var inString = false, escaped = false, inComment = false, word = ""
        var previous: Character = " "
        for c in keymap {
            defer { previous = c }
            if inComment { if c.isNewline { inComment = false }; continue }
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            if c.isLetter || c == "_" { word.append(c); continue }
            if Self.inclusions.contains(word.lowercased()) { return true }
            word = ""
            if c == "\"" { inString = true } else if (c == "/" && previous == "/") || c == "#" { inComment = true }
        }
        return Self.inclusions.contains(word.lowercased())
    }
    private static let inclusions: Set<String> = ["include", "augment", "override", "replace"]

    /// A companion's connection closed: its keymap is not compiled any more.
    func forget(_ companion: SessionCompanion) { keymaps?.cancel(owner: ObjectIdentifier(companion)) }

    private func notCompanion(_ client: ControlConnection) {
        let message = "not the session companion: send {\"cmd\":\"companion\"} first"
        if client.role == .other {
            server.rejectedRequests += 1
            server.respondAndClose(client, error: message)
        } else {
            server.refused(client, message)
        }
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
        MonitorEvent.encode(.callout(event, time), into: &calloutLine)
        server.enqueue(client, calloutLine.bytes, now: true)
    }
}
