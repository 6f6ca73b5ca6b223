import Glibc
import KeyholdLinux

/// One companion per session: a lock in the user's runtime directory, per display, that holds
/// its owner's pid. KWin's input method takes over from a companion the user unit started: it can
/// do more, and KWin would start it again and again if it gave way.
enum SessionLock {
    /// Takes the lock (kept until the process ends); false when another companion of this session
    /// holds it. `takeOver`: asks that one to stop (SIGTERM) and waits for it, up to 5 s.
    static func acquire(display: String, takeOver: Bool) -> Bool {
        guard let runtime = environment("XDG_RUNTIME_DIR") else { return true }
        let path = runtime + "/keyhold-session\(String(display.map { $0 == "/" ? "_" : $0 })).lock"
        let lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { return true }
        if flock(lock, LOCK_EX | LOCK_NB) != 0 {
            guard takeOver else { return false }
            if let text = try? readWholeTextFile(path), let owner = pid_t(text.split(separator: "\n").first ?? ""), owner > 1 {
                Log.info("taking over from the companion already running in this session (pid \(owner)) as KWin's input method")
                kill(owner, SIGTERM)
            }
            var waited = 0
            while flock(lock, LOCK_EX | LOCK_NB) != 0 && waited < 5_000 {
                poll(nil, 0, 50)
                waited += 50
            }
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(lock, 0)
        _ = pwrite(lock, pid, pid.utf8.count, 0)
        return true
    }
}
