import KeyholdKit

/// The `keyhold-session` of a graphical session, as the daemon sees it: a control connection
/// that took the companion role. The output queue hands it characters; it types them through
/// the desktop and answers `typed`.
public final class SessionCompanion: OutputCompanion, CustomStringConvertible {
    public let uid: UInt32
    public let pid: Int32
    /// The logind session it serves (`CompanionChannel`: its own, or the one its user's service
    /// named); nil without logind.
    public let session: String?
    /// How it types: `x11` (XTest), `wayland` (a virtual keyboard), `ibus` (IBus's focused input
    /// context), `kwin` (KWin's input method).
    public let backend: String
    /// Input methods commit whole strings: text is handed to them whole
    /// (`OutputQueue.companionCommitsText`).
    public var commitsText: Bool { backend == "ibus" || backend == "kwin" }
    /// KWin starts its input method again at once when it exits by a signal.
    public var restartedWhenGone: Bool { backend == "kwin" }
    /// What it cannot do in its session and why, in its own words (`keyhold status` shows it).
    public let note: String?
    weak var channel: CompanionChannel?

    init(uid: UInt32, pid: Int32, session: String?, backend: String, note: String? = nil, channel: CompanionChannel?) {
        self.uid = uid; self.pid = pid; self.session = session; self.backend = backend; self.note = note; self.channel = channel
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

    /// `{"event":"type","id":ID,"after":N,"written_at":US,"text":TEXT}` to the companion, sent
    /// at once.
    public func type(_ text: String, id: UInt64, after: UInt64, keysWrittenAt: Timestamp?) {
        let since = after &- countedUpTo
        countedUpTo = after
        channel?.sendType(text, id: id, after: since, writtenAt: since > 0 ? keysWrittenAt : nil, to: self)
    }

    /// `{"event":"active"}`: its session is in front now; it counts the virtual keyboard's
    /// transitions afresh from here, as its X server may not have been reading the device while
    /// another session was in front.
    public func becameActive(writtenCount: UInt64) {
        countedUpTo = writtenCount
        channel?.sendActive(to: self)
    }

    /// Closes its connection (a companion that missed a deadline); `companionDisconnected` follows.
    public func disconnect(_ why: String) {
        channel?.disconnect(self, why: why)
    }

    public var description: String { "keyhold-session pid \(pid) of uid \(uid) (\(backend))" }
}
