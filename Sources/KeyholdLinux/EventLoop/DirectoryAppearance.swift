import CLinuxShim
import Glibc

/// Tells the loop once when a directory that was missing exists: logind's `/run/systemd/seats/`
/// appears after a daemon that started beside it on a boot. An inotify watch on the nearest
/// ancestor that exists, moved down as the levels between appear; no polling. The directory is
/// looked for again after each watch is placed, so one made in between is not missed.
public final class DirectoryAppearance {
    public let path: String
    private let loop: EventLoop
    private let appeared: () -> Void
    private var fd: Int32 = -1
    private var token: EventLoop.Token?
    private var watchDescriptor: Int32 = -1
    /// The ancestor watched now.
    public private(set) var watched: String?

    /// Calls `appeared` on the loop's thread once `path` exists, at once (before returning) if it
    /// does already. Watches nothing when no ancestor can be watched.
    public init(_ path: String, loop: EventLoop, appeared: @escaping () -> Void) {
        self.path = path
        self.loop = loop
        self.appeared = appeared
        look()
    }

    deinit { stop() }

    public func stop() {
        if let token { loop.unwatch(token) }
        token = nil
        if fd >= 0 { close(fd); fd = -1 }
        watchDescriptor = -1
        watched = nil
    }

    private func look() {
        while true {
            if Self.isDirectory(path) { stop(); appeared(); return }
            guard let ancestor = Self.nearestExistingAncestor(of: path) else { stop(); return }
            if ancestor == watched { return }
            guard watch(ancestor) else { stop(); return }
            // Made between the look and the watch: look again, now that nothing can be missed.
        }
    }

    private func watch(_ directory: String) -> Bool {
        if fd < 0 {
            fd = inotify_init1(keyhold_in_flags)
            guard fd >= 0 else { return false }
            guard let token = try? loop.watch(fd, handler: { [unowned self] in self.changed() }) else {
                close(fd); fd = -1
                return false
            }
            self.token = token
        }
        // One watch at a time: the level above is let go once a level below it exists.
        let mask = keyhold_in_create | keyhold_in_moved_to | keyhold_in_onlydir
        let descriptor = inotify_add_watch(fd, directory, mask)
        guard descriptor >= 0 else { return false }
        if watchDescriptor >= 0 && watchDescriptor != descriptor { inotify_rm_watch(fd, watchDescriptor) }
        watchDescriptor = descriptor
        watched = directory
        return true
    }

    private func changed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        look()
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The longest proper prefix of `path` (at a slash) that is a directory; nil for none.
    static func nearestExistingAncestor(of path: String) -> String? {
        var candidate = path
        while candidate.count > 1, let slash = candidate.dropLast().lastIndex(of: "/") {
            candidate = slash == candidate.startIndex ? "/" : String(candidate[..<slash])
            if isDirectory(candidate) { return candidate }
        }
        return nil
    }
}
