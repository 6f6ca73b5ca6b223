import CLinuxShim
import CSystemd
import Glibc

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

    /// The logind session process `pid` belongs to (sd_pid_get_session); nil outside one or
    /// without logind.
    static func session(of pid: Int32) -> String? {
        guard pid > 0 else { return nil }
        var session: UnsafeMutablePointer<CChar>?
        guard sd_pid_get_session(pid, &session) >= 0, let session else { return nil }
        defer { free(session) }
        return String(cString: session)
    }
}
