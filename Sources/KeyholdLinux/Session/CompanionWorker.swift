import CLinuxShim
import Glibc
import KeyholdKit

/// Does the expensive work session companions' messages ask for on a thread of its own: a
/// keymap compile (xkbcommon may take seconds over a crafted one) and laying a user's personal
/// settings over the system's. On the input thread either would hold every keyboard of the
/// machine (docs/SECURITY.md). One job runs at a time; of the jobs that arrive meanwhile only the
/// newest of each owner and kind waits. The thread is an ordinary one (the daemon's real-time
/// priority is not passed on), so a key never waits for it.
final class CompanionWorker {
    /// Whose job it is and what: a newer job with the same key replaces one still waiting.
    struct Key: Hashable {
        let owner: ObjectIdentifier
        let kind: String
    }

    private final class Shared: @unchecked Sendable {
        let lock = ThreadCondition()
        var waiting: [(key: Key, work: @Sendable () -> any Sendable)] = []
        var finished: [(key: Key, outcome: any Sendable)] = []
        var stopping = false
    }

    private let shared = Shared()
    private let fd: Int32
    private var token: WatchToken?
    private var thread: WorkerThread?
    private let watcher: FileWatcher
    /// The `done` of each key's newest job, until its outcome is delivered.
    private var callbacks: [Key: (any Sendable) -> Void] = [:]

    /// Nil when no eventfd or thread can be had.
    init?(watcher: FileWatcher) {
        fd = keyhold_eventfd()
        guard fd >= 0 else { return nil }
        self.watcher = watcher
        guard let token = try? watcher.watch(fd, handler: { [unowned self] in deliver() }) else { close(fd); return nil }
        self.token = token
        let shared = self.shared, fd = self.fd
        thread = WorkerThread(name: "keyhold-companions") {
            while let job = shared.lock.withLock({ () -> (key: Key, work: @Sendable () -> any Sendable)? in
                while shared.waiting.isEmpty && !shared.stopping { shared.lock.wait() }
                guard !shared.stopping else { return nil }
                return shared.waiting.removeFirst()
            }) {
                let outcome = job.work()
                shared.lock.withLock { shared.finished.append((job.key, outcome)) }
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

    /// Queues `work` (run on the worker) for `owner`, replacing the owner's job of the same kind
    /// that still waits (whose `done` is not called); `done` runs on the loop's thread.
    func run<Output: Sendable>(owner: ObjectIdentifier, kind: String, _ work: @escaping @Sendable () -> Output,
                               done: @escaping (Output) -> Void) {
        let key = Key(owner: owner, kind: kind)
        callbacks[key] = { outcome in if let outcome = outcome as? Output { done(outcome) } }
        shared.lock.withLock {
            shared.waiting.removeAll { $0.key == key }
            shared.waiting.append((key, { work() }))
            shared.lock.broadcast()
        }
    }

    /// Forgets the owner's jobs (a companion gone): nothing of them is delivered.
    func cancel(owner: ObjectIdentifier) {
        callbacks = callbacks.filter { $0.key.owner != owner }
        shared.lock.withLock { shared.waiting.removeAll { $0.key.owner == owner } }
    }

    private func deliver() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
        let finished = shared.lock.withLock { () -> [(key: Key, outcome: any Sendable)] in
            defer { shared.finished.removeAll() }
            return shared.finished
        }
        for (key, outcome) in finished {
            // A newer job of the same key still waits: this outcome is stale.
            let newer = shared.lock.withLock { shared.waiting.contains { $0.key == key } }
            guard !newer, let done = callbacks.removeValue(forKey: key) else { continue }
            done(outcome)
        }
    }
}
