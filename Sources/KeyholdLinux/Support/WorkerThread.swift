import CLinuxShim
import Glibc
import KeyholdKit

/// A joinable pthread running one closure: feedback's sound, reopening feedback devices, the
/// keymap check, the search's tables.
public final class WorkerThread {
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let name: String
        let idle: Bool
        let run: () -> Void
        init(name: String, idle: Bool, _ run: @escaping () -> Void) { self.name = name; self.idle = idle; self.run = run }
    }

    /// Starts `body` on a new thread named `name` (at most 15 characters show); nil if the
    /// system refuses a thread. A thread starts as an ordinary one (the daemon's real-time
    /// priority is reset for the threads it makes); an `idle` one asks for SCHED_IDLE, to run
    /// only when nothing else wants the CPU (keyhold.service's system call filter refuses it).
    public init?(name: String, idle: Bool = false, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, idle: idle, body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = keyhold_name_thread(body.name)
            if body.idle { _ = keyhold_make_thread_idle() }
            body.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
    }

    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}

extension WorkerThread {
    /// Makes the search's table for the callout locales' languages (`CharacterSearchIndex.localized`,
    /// 15-30 ms of parsing natively) on a thread of its own, once `previous` is done: the daemon's
    /// first search and the companion's first picker name find it made. At the ordinary priority:
    /// whoever asks for the table before it is made waits for it, and an idle thread could be
    /// starved meanwhile.
    public static func makingSearchTable(for locales: [String], name: String, after previous: WorkerThread?) -> WorkerThread? {
        previous?.join()
        return WorkerThread(name: name) { _ = CharacterSearchIndex.localized(locales) }
    }
}
