import CLinuxShim
import Glibc
import KeyholdKit

/// Compiles the keymaps session companions report, on a thread of its own: a keymap is text a
/// client sends, and xkbcommon may take seconds over a crafted one, which on the input thread
/// would hold every keyboard of the machine (docs/SECURITY.md). One compile runs at a time; of
/// the keymaps that arrive meanwhile only each owner's newest waits. The thread is an ordinary
/// one (the daemon's real-time priority is not passed on), so a key never waits for it.
final class KeymapCompiler {
    struct Job {
        /// Whose keymap it is: a newer job of the same owner replaces one still waiting.
        let owner: ObjectIdentifier
        let text: String
        let source: String
        let excluded: Set<KeyCode>
        /// Runs on the loop's thread with the outcome.
        let done: (Result<XKBLayout, XKBLayout.Error>) -> Void
    }

    private final class Shared: @unchecked Sendable {
        let lock = ThreadCondition()
        var waiting: [(owner: ObjectIdentifier, text: String, source: String, excluded: Set<KeyCode>)] = []
        var finished: [(owner: ObjectIdentifier, outcome: Result<XKBLayout, XKBLayout.Error>)] = []
        var stopping = false
    }

    private let shared = Shared()
    private let fd: Int32
    private var token: WatchToken?
    private var thread: WorkerThread?
    private let watcher: FileWatcher
    /// The `done` of each owner's job, newest only, until its outcome is delivered.
    private var callbacks: [ObjectIdentifier: (Result<XKBLayout, XKBLayout.Error>) -> Void] = [:]

    /// Nil when no eventfd or thread can be had.
    init?(watcher: FileWatcher) {
        fd = keyhold_eventfd()
        guard fd >= 0 else { return nil }
        self.watcher = watcher
        guard let token = try? watcher.watch(fd, handler: { [unowned self] in deliver() }) else { close(fd); return nil }
        self.token = token
        let shared = self.shared, fd = self.fd
        thread = WorkerThread(name: "keyhold-keymaps") {
            while let job = shared.lock.withLock({ () -> (ObjectIdentifier, String, String, Set<KeyCode>)? in
                while shared.waiting.isEmpty && !shared.stopping { shared.lock.wait() }
                guard !shared.stopping else { return nil }
                let job = shared.waiting.removeFirst()
                return (job.owner, job.text, job.source, job.excluded)
            }) {
                let outcome: Result<XKBLayout, XKBLayout.Error>
                do throws(XKBLayout.Error) {
                    outcome = .success(try XKBLayout(keymapText: job.1, source: job.2, excluding: job.3))
                } catch {
                    outcome = .failure(error)
                }
                shared.lock.withLock { shared.finished.append((job.0, outcome)) }
                var one: UInt64 = 1
                _ = write(fd, &one, 8)
                // Its memory, freed into this thread's own malloc arena, would stay resident.
                keyhold_malloc_trim()
            }
        }
        if thread == nil { return nil }
    }

    deinit {
        shared.lock.withLock { shared.stopping = true; shared.lock.broadcast() }
        thread?.join()
        if let token { watcher.unwatch(token) }
        close(fd)
    }

    /// Queues `job`, replacing the owner's job that still waits (whose `done` is not called).
    func compile(_ job: Job) {
        callbacks[job.owner] = job.done
        shared.lock.withLock {
            shared.waiting.removeAll { $0.owner == job.owner }
            shared.waiting.append((job.owner, job.text, job.source, job.excluded))
            shared.lock.broadcast()
        }
    }

    /// Forgets the owner's jobs (a companion gone): nothing of them is delivered.
    func cancel(owner: ObjectIdentifier) {
        callbacks[owner] = nil
        shared.lock.withLock { shared.waiting.removeAll { $0.owner == owner } }
    }

    private func deliver() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
        let finished = shared.lock.withLock { () -> [(owner: ObjectIdentifier, outcome: Result<XKBLayout, XKBLayout.Error>)] in
            defer { shared.finished.removeAll() }
            return shared.finished
        }
        for (owner, outcome) in finished {
            // A newer job of the same owner still waits: this outcome is stale.
            let newer = shared.lock.withLock { shared.waiting.contains { $0.owner == owner } }
            guard !newer, let done = callbacks.removeValue(forKey: owner) else { continue }
            done(outcome)
        }
    }
}
