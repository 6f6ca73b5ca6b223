import CSystemd
import Glibc

/// Which logind session a session companion serves, as logind says (docs/SECURITY.md): a
/// companion is trusted for one session, never for whatever its user has in front.
enum LogindSessions {
    /// `session` when it exists and is `uid`'s; nil otherwise.
    static func ownedSession(_ session: String?, by uid: UInt32) -> String? {
        guard let session else { return nil }
        var owner: uid_t = 0
        guard sd_session_get_uid(session, &owner) >= 0, owner == uid else { return nil }
        return session
    }

    /// The session logind calls `uid`'s display: its graphical one (a user service of that user
    /// serves it).
    static func display(of uid: UInt32) -> String? {
        var session: UnsafeMutablePointer<CChar>?
        guard sd_uid_get_display(uid, &session) >= 0, let session else { return nil }
        defer { free(session) }
        return String(cString: session)
    }
}
