import CLinuxShim
import Glibc
import KeyholdKit

/// Compiles this system's keymap on a thread of its own while keys already flow on the built-in
/// tables, then tells the event loop whether it types as they do. The daemon starts on `us`
/// without waiting for xkbcommon and still types with the system's own keymap if its xkb-data
/// differs. The thread touches nothing of the daemon's: it fills its own box, then the eventfd
/// wakes the loop, which joins the thread before reading the box.
final class KeymapCheck {
    enum Outcome {
        /// The compiled keymap types as the built-in tables.
        case same
        /// It types differently: this is the system's.
        case differs(XKBLayout)
        case failed(XKBLayout.Error)
    }

    private final class Box: @unchecked Sendable { var outcome: Outcome? }
    private let box = Box()
    private let fd: Int32
    private var thread: WorkerThread?
    private var token: WatchToken?
    private weak var watcher: FileWatcher?
    private let done: (Outcome) -> Void

    /// Starts compiling `names` to compare with `builtIn`; `done` runs on the loop's thread.
    /// Nil when no thread or eventfd can be had (the caller keeps the built-in tables). Once
    /// every property is set, a nil return still runs `deinit`, which lets go of the eventfd and
    /// its watch: the failures below leave that to it rather than closing the fd twice.
    init?(names: XKBNames, builtIn: XKBLayout.Tables, watcher: FileWatcher, done: @escaping (Outcome) -> Void) {
        fd = keyhold_eventfd()
        guard fd >= 0 else { return nil }
        self.done = done
        self.watcher = watcher
        guard let token = try? watcher.watch(fd, handler: { [unowned self] in finish() }) else { return nil }
        self.token = token
        let box = self.box, fd = self.fd
        thread = WorkerThread(name: "keyhold-keymap", idle: true) {
            do throws(XKBLayout.Error) {
                let compiled = try XKBLayout(names)
                box.outcome = compiled.tables == builtIn ? .same : .differs(compiled)
            } catch {
                box.outcome = .failed(error)
            }
            var one: UInt64 = 1
            _ = write(fd, &one, 8)
        }
        if thread == nil { return nil }
    }

    /// Waits for the thread (at exit, or when the check is dropped).
    deinit {
        thread?.join()
        if let token { watcher?.unwatch(token) }
        close(fd)
    }

    private func finish() {
        thread?.join()
        thread = nil
        if let token { watcher?.unwatch(token) }
        token = nil
        deliver()
        // The compile's memory, freed into the thread's own malloc arena, would stay resident
        // (2.3 MB in the guest's soak): give it back to the system.
        keyhold_malloc_trim()
    }

    /// Hands the outcome on; a compiled layout nobody kept is freed on return.
    private func deliver() {
        guard let outcome = box.outcome else { return }
        box.outcome = nil
        done(outcome)
    }
}
