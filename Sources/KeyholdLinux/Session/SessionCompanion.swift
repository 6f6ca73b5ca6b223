import KeyholdKit

/// The `keyhold-session` of a graphical session, as the daemon sees it: a control connection that
/// took the companion role for one logind session. The output queue hands it characters; it types
/// them through the desktop and answers `typed`.
public final class SessionCompanion: OutputCompanion, CustomStringConvertible {
    public let uid: UInt32
    public let pid: Int32
    /// The logind session it serves (`CompanionHub`: its own, or the one its user's service
    /// named); nil without logind.
    public let session: String?
    /// What it said of itself: how it types, what it can do, what it cannot.
    public let hello: CompanionHello
    public var backend: String { hello.backend }
    /// What it cannot do in its session and why, in its own words (`keyhold status` shows it): its
    /// hello's, or the last `note` it sent.
    public internal(set) var note: String?
    public var commitsText: Bool { hello.capabilities.contains(.commitsText) }
    public var restartedWhenGone: Bool { hello.capabilities.contains(.restartedWhenGone) }
    /// Its connection, while open.
    weak var connection: ControlConnection?
    /// Its user's personal settings, as it last handed them over.
    var personalSettings: PersonalSettings?
    private weak var hub: CompanionHub?

    init(uid: UInt32, pid: Int32, session: String?, hello: CompanionHello, hub: CompanionHub?) {
        self.uid = uid; self.pid = pid; self.session = session; self.hello = hello; self.hub = hub
        note = hello.note
    }

    /// Whether it serves the session `target` says the keystrokes go to: the same logind session;
    /// without logind, the same user's (the active VT's owner).
    public func serves(_ target: OutputTarget) -> Bool {
        guard target.kind == .graphical else { return false }
        if let session = target.session { return session == self.session }
        return target.uid == uid
    }

    /// The output queue's `writtenCount` at the last hand-off (or when the session came in
    /// front): `after` is sent as the transitions written since. The queue writes nothing while
    /// a hand-off is unacknowledged, and the companion counts afresh after each character, so
    /// each count stands alone: a late or lost event never shifts the next.
    private var countedUpTo: UInt64 = 0

    /// `CompanionEvent.type` to the companion, sent at once.
    public func type(_ text: String, id: UInt64, after: UInt64, keysWrittenAt: Timestamp?) {
        let since = after &- countedUpTo
        countedUpTo = after
        guard let connection else { return }
        hub?.sendCallouts()   // a pick's close before its character
        hub?.send(.type(id: id, after: since, writtenAt: since > 0 ? keysWrittenAt?.microseconds : nil, text: text), to: connection)
    }

    /// `CompanionEvent.active`: its session is in front now; it counts the virtual keyboard's
    /// transitions afresh from here, as its X server may not have been reading the device while
    /// another session was in front.
    func becameActive(writtenCount: UInt64) {
        countedUpTo = writtenCount
        if let connection { hub?.send(.active, to: connection) }
    }

    public var description: String { "keyhold-session pid \(pid) of uid \(uid) (\(backend))" }
}
