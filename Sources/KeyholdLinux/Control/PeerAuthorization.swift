import Glibc

/// Who may do what on the control socket (docs/ARCHITECTURE.md, Privileges), decided from the peer's
/// credentials (SO_PEERCRED, SO_PEERGROUPS), never from the socket file's mode: root and the
/// daemon's own user may do everything; members of `group` get status, reload, pause, resume
/// and monitor without key content; anyone else only what the companion role allows (the
/// daemon decides that per user: `ControlHandler.companionRefusal`).
struct PeerAuthorization {
    /// What a peer's credentials allow.
    enum Role { case admin, member, other }

    /// The group whose members may connect besides root and the daemon's own user (nil: none).
    let group: (name: String, gid: gid_t)?

    /// `group` counts only for a daemon running as root or as a member of it (the system
    /// service); a daemon a user runs for themselves hands out control to no group.
    init(group name: String?) {
        if let name, let entry = getgrnam(name), geteuid() == 0 || Self.processIsInGroup(entry.pointee.gr_gid) {
            group = (name, entry.pointee.gr_gid)
        } else {
            if let name, geteuid() == 0 { Log.info("control: group \(name) does not exist; the socket is for root only") }
            group = nil
        }
    }

    func role(of peer: PeerCredentials, fd: Int32) -> Role {
        if peer.uid == 0 || peer.uid == geteuid() { return .admin }
        guard let group else { return .other }
        if peer.gid == group.gid || PeerCredentials.groups(fd: fd).contains(group.gid) { return .member }
        return .other
    }

    /// Key content (key names, characters) is shown to root and to the daemon's own user only.
    func mayReceiveContent(uid: UInt32) -> Bool { uid == 0 || uid == geteuid() }

    var deniedMessage: String {
        "permission denied: keyhold's control socket is for root" + (group.map { " and members of group \($0.name)" } ?? "")
            + " (status, reload, pause, resume, monitor), and for the companion (keyhold-session) of the seat's active session"
    }

    private static func processIsInGroup(_ gid: gid_t) -> Bool {
        if getegid() == gid { return true }
        var groups = [gid_t](repeating: 0, count: Int(max(0, getgroups(0, nil))))
        let n = getgroups(Int32(groups.count), &groups)
        return n > 0 && groups.prefix(Int(n)).contains(gid)
    }
}
