import KeyholdKit

/// What the daemon does with what the hub learns.
public protocol CompanionHubDelegate: AnyObject {
    /// Where the keys go, the companion that types for it, its layout or what has the focus
    /// there changed: the daemon applies the unicode method, the layout and the application's
    /// rules (it reads them from the hub).
    func companionHubChanged(_ hub: CompanionHub)
    /// The picker in front was clicked: candidate `index` (0: the base character).
    func companionHub(_ hub: CompanionHub, picked index: Int)
    /// The session in front closed the callout (a click elsewhere, another window focused).
    func companionHubDismissedCallout(_ hub: CompanionHub)
    /// The companion in front handed over its user's callout picks.
    func companionHub(_ hub: CompanionHub, picks: [String: Int])
}

/// The session companions' home in the daemon (docs/ARCHITECTURE.md, Session): the companions
/// connected and the one that types for the session in front (where the keys go, as the daemon's
/// `OutputTargetWatcher` says), the desktop's layout each session's companion reported, what has
/// the focus there and the application rules in force for it, and the callout it shows. The
/// control server frames the companions' lines; the hub decides what they mean, answers
/// (`CompanionEvent`), and tells its delegate, the daemon, what changed.
///
/// Distrust (docs/SECURITY.md): a companion serves one logind session (`LogindSessions`), and
/// what it asks is checked against the session in front at every request; its keymap is bounded
/// and compiled off the input thread, as its user's personal settings are laid over the system's
/// (`CompanionWorker`); one that keeps missing its deadlines is benched (`CompanionMisses`).
public final class CompanionHub: CompanionEndpoint, EngineObserver {
    /// A keymap of four layouts is about 80 KB as xkbcommon writes it.
    public static let maximumKeymapBytes = 256 * 1024

    public unowned var delegate: CompanionHubDelegate?
    /// Its characters' queue: the hub hands it the companion in front and the acknowledgements.
    public let output: OutputQueue
    /// Where the keys go now (the daemon sets it as it changes).
    public var target = OutputTarget(kind: .unknown, source: "not watched") {
        didSet { if target != oldValue { apply() } }
    }
    /// Connected companions, oldest first.
    public private(set) var companions: [SessionCompanion] = []
    /// The companion that types for the session in front (the newest of that session, unless it is
    /// benched).
    public private(set) var active: SessionCompanion?
    /// What has the keyboard focus in the session in front, as its companion says (unknown
    /// without one).
    public private(set) var focus = ApplicationFocus.unknown
    /// The system's configuration (the daemon sets it at start and at each reload).
    public var systemConfiguration: KeyholdConfiguration {
        didSet { if systemConfiguration != oldValue { layPersonalSettings() } }
    }
    /// The configuration in force: the system's, with the personal settings of the user in front
    /// laid over it once they are (`layPersonalSettings`; the delegate is told). Its
    /// `[apps."GLOB"]` rules follow the focus; companions are told its callout locales and order
    /// when they change.
    public private(set) var configuration: KeyholdConfiguration {
        didSet {
            guard configuration.calloutsEvent != oldValue.calloutsEvent else { return }
            for case let connection? in companions.map(\.connection) { send(configuration.calloutsEvent, to: connection) }
        }
    }
    /// The personal settings in force, or being laid (nil: the system's alone).
    private var personal: PersonalSettingsLayer?
    /// What `keyhold status` says of the settings in force.
    public private(set) var settingsLine = "the system's"

    /// What is in force for the application in front (docs/ARCHITECTURE.md, Applications).
    public var settings: ApplicationSettings { ApplicationSettings(configuration: configuration, focus: focus) }

    /// The Unicode method in force (the configured one, or the focused application's rule's)
    /// resolved for where the keys go and whether a companion types there, with why.
    public var unicodeMethod: (method: UnicodeMethod, reason: String) {
        settings.unicodeMethod.resolved(for: target, companion: active?.backend)
    }
    /// The same as `keyhold status` and the log say it: "session (auto: ..., keyhold-session connected (ibus))".
    public var unicodeMethodLine: String {
        let (method, reason) = unicodeMethod
        return "\(method.rawValue) (\(reason))"
    }

    private let loop: EventLoop
    /// Where its companions connect; nil without a control socket.
    private weak var server: ControlServer?
    /// The layout each session's companion last reported (by `sessionKey`): still the best
    /// knowledge of that desktop's keymap once the companion has gone (killed, restarting).
    private var layouts: [String: (layout: KeyboardLayout, name: String)] = [:]
    private var misses = CompanionMisses()
    private var benchTimer: DeadlineTimer?
    /// Made for the first keymap.
    private var workerThread: CompanionWorker?
    private var worker: CompanionWorker? {
        if workerThread == nil { workerThread = CompanionWorker(watcher: loop) }
        return workerThread
    }
    private var openCallout: OpenCallout?
    private var pendingCallouts: [(event: CalloutEvent, time: Timestamp)] = []
    private var calloutsScheduled = false
    /// The session in front when last applied (`frontKey`).
    private var front = ""
    private var companionOf: [ObjectIdentifier: SessionCompanion] = [:]
    private var line = JSONWriter(capacity: 256)

    /// Hands `output` the companion in front and takes its acknowledgements; `configuration`'s
    /// application rules are in force. Companions come once it serves a control socket (`serve`).
    public init(output: OutputQueue, loop: EventLoop, configuration: KeyholdConfiguration) {
        self.output = output
        self.loop = loop
        self.systemConfiguration = configuration
        self.configuration = configuration
        output.onCompanionTimeout = { [unowned self] companion in
            guard let companion = companion as? SessionCompanion else { return }
            self.missed(companion)
        }
    }

    /// Takes the companions among `server`'s connections.
    public func serve(_ server: ControlServer) {
        self.server = server
        server.companions = self
    }

    /// The desktop's layout for the session in front, as its companion reported it.
    public var layout: (layout: KeyboardLayout, name: String)? {
        guard target.kind == .graphical, let key = Self.sessionKey(session: target.session, uid: target.uid) else { return nil }
        return layouts[key]
    }

    // MARK: - Requests

    func companion(_ request: CompanionRequest, from connection: ControlConnection) {
        guard let server else { return }
        if case .hello(let hello) = request { greet(hello, on: connection, server: server); return }
        guard let companion = companionOf[ObjectIdentifier(connection)] else { return }
        switch request {
        case .typed(let id, let delivered):
            guard output.companion === companion else { return }
            misses.answered(Self.sessionKey(of: companion))
            if delivered { output.acknowledge(id) } else { output.companionWrote(id) }
            return
        case .untyped(let id):
            if output.companion === companion { output.companionCouldNotType(id) }
            return
        case .waiting(let id):
            if output.companion === companion { output.companionWaits(id) }
            return
        case .note(let note):
            companion.note = note
            return
        default: break
        }
        // The rest only from the session in front, asked now.
        guard companion.serves(target) else {
            if case .keymap = request { send(.error("this session is not in front of the seat now"), to: connection) }
            return
        }
        switch request {
        case .keymap(let keymap, let temporary):
            compile(keymap, temporaryKeycodes: temporary, of: companion, on: connection, server: server)
        case .pick(let index):
            if companion === active { delegate?.companionHub(self, picked: index) }
        case .dismiss:
            if companion === active { delegate?.companionHubDismissedCallout(self) }
        case .focus(let focus):
            guard companion === active, focus != self.focus else { return }
            self.focus = focus
            delegate?.companionHubChanged(self)
        case .picks(let picks):
            if companion === active { delegate?.companionHub(self, picks: picks) }
        case .settings(let file, let text):
            companion.personalSettings = PersonalSettings(file: file, text: text)
            layPersonalSettings()
        default:
            break
        }
    }

    /// `{"cmd":"companion"}`: the role, for the session it serves, when that one is in front.
    private func greet(_ hello: CompanionHello, on connection: ControlConnection, server: ControlServer) {
        guard companionOf[ObjectIdentifier(connection)] == nil else { server.refused(connection, "already the companion"); return }
        // Its process's own session; else (a user service) the one it names, if its user's; else
        // its user's display session.
        let session = LogindSessions.ownedSession(connection.session, by: connection.uid)
            ?? LogindSessions.ownedSession(hello.session, by: connection.uid) ?? LogindSessions.display(of: connection.uid)
        if let refusal = refusal(uid: connection.uid, session: session) {
            server.logRefusal("control: \(connection.who) refused as companion: \(refusal)")
            server.respondAndClose(connection, error: "refused: \(refusal)")
            return
        }
        let companion = SessionCompanion(uid: connection.uid, pid: connection.pid, session: session, hello: hello, hub: self)
        companionOf[ObjectIdentifier(connection)] = companion
        companion.connection = connection
        server.makeCompanion(connection)
        send(.accepted, to: connection)
        send(configuration.calloutsEvent, to: connection)
        companions.append(companion)
        Log.info("\(companion) connected" + (session.map { " for session \($0)" } ?? ""))
        apply()
    }

    /// Why `uid`'s companion of `session` may not be the session companion now; nil: it may.
    func refusal(uid: UInt32, session: String?) -> String? {
        let target = self.target
        guard let owner = target.uid else { return "cannot tell whose session is active on the seat (\(target))" }
        guard owner == uid else { return "uid \(uid) does not own the seat's active session (\(target))" }
        guard target.kind == .graphical else { return "the seat's active session is not graphical (\(target))" }
        if let active = target.session {
            guard let session else { return "cannot tell which session uid \(uid)'s companion serves" }
            guard session == active else { return "session \(session) of uid \(uid) is not the seat's active session (\(target))" }
        }
        return nil
    }

    func companionConnectionClosed(_ connection: ControlConnection) {
        guard let companion = companionOf.removeValue(forKey: ObjectIdentifier(connection)) else { return }
        companion.connection = nil
        companions.removeAll { $0 === companion }
        workerThread?.cancel(owner: ObjectIdentifier(companion))
        output.companionGone(companion)
        Log.info("\(companion) disconnected")
        apply()
    }

    /// The desktop's keymap, checked here and compiled off the input thread; the answer (the
    /// layout's name, or why not) once it is.
    private func compile(_ keymap: String, temporaryKeycodes: [Int], of companion: SessionCompanion, on connection: ControlConnection,
                         server: ControlServer) {
        guard keymap.utf8.count <= Self.maximumKeymapBytes else {
            server.refused(connection, "keymap too large (over \(Self.maximumKeymapBytes / 1024) KiB)")
            return
        }
        guard !Self.includesFiles(keymap) else {
            server.refused(connection, "keymap names files to include: send the keymap as xkbcommon writes it")
            return
        }
        guard let worker else { send(.error("keymaps cannot be compiled now"), to: connection); return }
        let excluded = Set(temporaryKeycodes.map { KeyCode(UInt16($0 - 8)) }), source = "keyhold-session pid \(companion.pid)"
        worker.run(owner: ObjectIdentifier(companion), kind: "keymap", { () -> CompiledKeymap in
            do throws(XKBLayout.Error) {
                return CompiledKeymap(outcome: .success(try XKBLayout(keymapText: keymap, source: source, excluding: excluded)))
            } catch {
                return CompiledKeymap(outcome: .failure(error))
            }
        }) { [weak self, weak companion] compiled in
            guard let self, let companion, let connection = companion.connection else { return }
            switch compiled.outcome {
            case .success(let layout):
                // In front when it was sent, perhaps not now: kept for its session either way.
                self.layouts[Self.sessionKey(of: companion)] = (layout, "\(layout.names)")
                Log.info("\(companion): the desktop's keymap is \(layout.name)")
                self.send(.layout(layout.name), to: connection)
                self.delegate?.companionHubChanged(self)
            case .failure(let error):
                self.server?.refused(connection, error.description)
            }
        }
    }

    // MARK: - Personal settings

    /// Lays the personal settings of the companion in front over the system's, off the input
    /// thread; until they are laid (and when there are none, or they have an error) the system's
    /// are in force. The companion is told the outcome, with the error (file, line, key), which
    /// is not logged: it is the user's own text.
    func layPersonalSettings() {
        let wanted = active.flatMap { companion in
            companion.personalSettings.map { PersonalSettingsLayer(companion: ObjectIdentifier(companion), settings: $0, system: systemConfiguration) }
        }
        guard wanted != personal else {
            if wanted == nil && configuration != systemConfiguration { configuration = systemConfiguration }
            return
        }
        personal = wanted
        if configuration != systemConfiguration { configuration = systemConfiguration }
        settingsLine = "the system's"
        guard let wanted, let active, let text = wanted.settings.text, let worker else { return }
        let system = systemConfiguration, file = wanted.settings.file
        worker.run(owner: ObjectIdentifier(active), kind: "settings", { () -> Result<KeyholdConfiguration, ConfigurationError> in
            do throws(ConfigurationError) {
                return .success(try ConfigurationLoader.load(personal: text, file: file, over: system))
            } catch {
                return .failure(error)
            }
        }) { [weak self, weak active] outcome in
            guard let self, let active, self.personal == wanted else { return }   // another user, or newer settings, since
            switch outcome {
            case .success(let layered):
                self.configuration = layered
                self.settingsLine = "\(file) of uid \(active.uid), over the system's"
                Log.info("\(active): its user's personal settings are in force")
                if let connection = active.connection { self.send(.settings(file: file, error: nil), to: connection) }
            case .failure(let error):
                Log.notice("\(active): its user's personal settings have an error; the system's are in force")
                self.settingsLine = "the system's (\(file) of uid \(active.uid) has an error)"
                if let connection = active.connection { self.send(.settings(file: file, error: error.description), to: connection) }
            }
            self.delegate?.companionHubChanged(self)
        }
    }

    /// `uid`'s companions read its personal settings again (`keyhold reload` as that user); how
    /// many were asked.
    public func reloadSettings(of uid: UInt32) -> Int {
        var asked = 0
        for companion in companions where companion.uid == uid {
            guard let connection = companion.connection else { continue }
            send(.reloadSettings, to: connection)
            asked += 1
        }
        return asked
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

    // MARK: - The session in front

    /// Where the keys go or the companions changed: the newest companion of the session in front
    /// types (unless benched). A callout open when another session comes in front closes,
    /// keeping what it shows (a switch not made from the keyboard, which would have closed it):
    /// it is never handed to the next session. Within one session, a companion that takes over
    /// (restarted) shows the callout open now, and the one it replaces hides it.
    func apply() {
        let target = self.target
        let front = Self.frontKey(target)
        if front != self.front {
            self.front = front
            if openCallout != nil { delegate?.companionHubDismissedCallout(self) }
        }
        let now = MonotonicClock.now()
        let newest = companions.last { $0.serves(target) && misses.benchedUntil(Self.sessionKey(of: $0), at: now) == nil }
        if newest !== active {
            sendCallouts()   // what the one in front was to be told, before it goes
            if let open = openCallout, let connection = active?.connection {
                send(.callout(.closed(text: open.shown), at: now), to: connection)
            }
            active = newest
            if focus != .unknown { focus = .unknown }   // what the last companion said of its session
            output.companion = newest
            newest?.becameActive(writtenCount: output.writtenCount)
            if let newest, let open = openCallout, let connection = newest.connection { server?.enqueue(connection, open.lines(), now: true) }
            Log.info("session companion: " + (newest.map { "\($0)" } ?? "none for \(target)"))
        }
        layPersonalSettings()
        delegate?.companionHubChanged(self)
    }

    /// Which session is in front, as far as a callout is concerned.
    private static func frontKey(_ target: OutputTarget) -> String {
        "\(target.kind) " + (sessionKey(session: target.session, uid: target.uid) ?? "")
    }

    /// The companion missed its deadline: it is dropped (the character is typed with the
    /// fallback), and a second miss in a row benches its session's companions.
    private func missed(_ companion: SessionCompanion) {
        let key = Self.sessionKey(of: companion)
        let ms = output.acknowledgementTimeoutMicroseconds / 1000
        var why = "did not answer within \(ms) ms; the daemon types its character itself"
        if let until = misses.missed(key, at: MonotonicClock.now()) {
            why += "; \(key) types without a companion for \((until.microseconds - MonotonicClock.now().microseconds + 500_000) / 1_000_000) s"
                + " (\(misses.count(key)) missed in a row)"
            armBenchTimer(at: until)
        }
        Log.warning("\(companion): \(why)")
        guard let connection = companion.connection else { return }
        send(.error(why), to: connection)   // (it logs why it was let go)
        server?.drop(connection, why: nil)
    }

    private func armBenchTimer(at deadline: Timestamp) {
        if benchTimer == nil, let timer = try? DeadlineTimer(),
           (try? loop.watch(timer.fd, handler: { [unowned self] in self.benchEnded() })) != nil {
            benchTimer = timer
        }
        benchTimer?.arm(at: deadline)
    }

    /// A session's time without a companion is over: its companion, if connected, types again.
    private func benchEnded() {
        benchTimer?.acknowledge()
        if let next = misses.expire(at: MonotonicClock.now()) { benchTimer?.arm(at: next) }
        apply()
    }

    /// What `keyhold status` says of the companions.
    public var statusLine: String {
        if let active { return "\(active)" + (active.note.map { ": \($0)" } ?? "") }
        if let key = Self.sessionKey(session: target.session, uid: target.uid), let until = misses.benchedUntil(key, at: MonotonicClock.now()) {
            return "none for \(target): its companions missed their deadlines; typing without one for "
                + "\((until.microseconds - MonotonicClock.now().microseconds) / 1_000_000) s more"
        }
        return companions.isEmpty ? "none" : "\(companions.count) connected, none for \(target)"
    }

    /// What the hub keeps per session: the logind session, or without logind the user.
    static func sessionKey(session: String?, uid: UInt32?) -> String? {
        if let session { return "session \(session)" }
        return uid.map { "uid \($0)" }
    }
    static func sessionKey(of companion: SessionCompanion) -> String { sessionKey(session: companion.session, uid: companion.uid)! }

    // MARK: - To the companions

    /// An event to `connection`, now.
    func send(_ event: CompanionEvent, to connection: ControlConnection) {
        event.encode(into: &line)
        server?.enqueue(connection, line.bytes, now: true)
    }

    /// `uid`'s companions forget its callout picks (`keyhold picks --clear`).
    public func forgetPicks(of uid: UInt32) {
        for companion in companions where companion.uid == uid {
            if let connection = companion.connection { send(.forgetPicks, to: connection) }
        }
    }

    /// A sound for the session in front, played through its sound server; false without a companion.
    public func play(_ sound: AudioFeedback, volume: Double) -> Bool {
        guard let connection = active?.connection else { return false }
        send(.sound(sound, volume: volume, at: FeedbackClock.nanoseconds()), to: connection)
        return true
    }

    // MARK: - EngineObserver: the callouts go to the companion in front

    public var recordsKeys: Bool { false }

    /// A batch's callout events go at its end, the moves before a close left out and a move
    /// before another replaced (a pick moves to the candidate and closes at once: one event, not
    /// two); before a character goes to the companion, so it sees the callout close first.
    public func record(_ entry: TraceEntry) {
        guard case .callout(let event, let time) = entry else { return }
        openCallout = .following(event, at: time, from: openCallout)
        guard active != nil else { return }
        switch event {
        case .moved: if case .moved = pendingCallouts.last?.event { pendingCallouts.removeLast() }
        case .search: if case .search = pendingCallouts.last?.event { pendingCallouts.removeLast() }
        case .closed: while case .moved = pendingCallouts.last?.event { pendingCallouts.removeLast() }
        case .opened: break
        }
        pendingCallouts.append((event, time))
        if !calloutsScheduled {
            calloutsScheduled = true
            loop.afterBatch { [weak self] in
                self?.calloutsScheduled = false
                self?.sendCallouts()
            }
        }
    }

    /// Sends the callout events held for the batch's end to the companion in front.
    func sendCallouts() {
        guard !pendingCallouts.isEmpty else { return }
        defer { pendingCallouts.removeAll(keepingCapacity: true) }
        guard let connection = active?.connection else { return }
        for (event, time) in pendingCallouts { send(.callout(event, at: time), to: connection) }
    }
}

/// A layout made on the companions' worker, used on the loop's thread only once handed over
/// (it keeps a cache of keystrokes, so it is not `Sendable` itself).
private struct CompiledKeymap: @unchecked Sendable {
    let outcome: Result<XKBLayout, XKBLayout.Error>
}

private extension KeyholdConfiguration {
    /// What a companion is told of the callouts.
    var calloutsEvent: CompanionEvent { .locales(callouts.locales, order: callouts.order) }
}
