import CLinuxShim
import CSystemd
import Glibc
import KeyholdLinux

/// The logind session this companion serves, for the daemon, which trusts a companion for one
/// session only: its own process's (started by the session, or by KWin); else, for a user
/// service, the session of the display server it talks to (the compositor or the X server runs in
/// it), else the one its environment names. The daemon checks that the session is this user's.
enum SessionIdentity {
    static func find(displayFD: Int32) -> String? {
        if let own = session(of: getpid()) { return own }
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        if displayFD >= 0, keyhold_peer_credentials(displayFD, &pid, &uid, &gid) == 0, let display = session(of: pid) {
            return display
        }
        return environment("XDG_SESSION_ID")
    }

    private static func session(of pid: Int32) -> String? {
        var session: UnsafeMutablePointer<CChar>?
        guard pid > 0, sd_pid_get_session(pid, &session) >= 0, let session else { return nil }
        defer { free(session) }
        return String(cString: session)
    }
}
