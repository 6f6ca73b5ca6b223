import KeyholdKit

/// Audio and haptic engines that are reopened off the playing thread: the daemon's across
/// reloads (docs/ARCHITECTURE.md, Configuration: feedback devices are closed before they are reopened, off
/// the input thread), the companion's sound when it first plays. Plays go to the engines open
/// now. `reopen` makes it silent at once; a thread of its own then closes the old engines
/// (letting a sound in progress end, erasing rumble effects) and opens the new ones, which take
/// over once open. The calling thread never waits for it (a sound card can take seconds to open):
/// reopens asked for while one is under way are done after it, the newest only. The playing
/// thread only ever takes an uncontended lock.
public final class FeedbackSwitch: AudioFeedbackEngine, HapticFeedbackEngine, @unchecked Sendable {
    public typealias Engines = (audio: AudioFeedbackEngine, haptic: HapticFeedbackEngine)

    /// What the worker shares with the callers (it never holds the switch itself, whose deinit
    /// waits for it).
    private final class State: @unchecked Sendable {
        let condition = ThreadCondition()
        var engines: Engines = (SilentAudioEngine(), SilentHapticEngine())
        /// The next engines to open, waiting for the worker.
        var requested: (@Sendable () -> Engines)?
        var busy = false
        var stopping = false

        /// The engines in use, leaving silent ones in their place.
        func takeEngines() -> Engines {
            condition.withLock {
                defer { engines = (SilentAudioEngine(), SilentHapticEngine()) }
                return engines
            }
        }

        func swapIn(_ new: Engines) { condition.withLock { engines = new } }

        /// The worker: each reopen asked for, the newest only, until stopped.
        func work() {
            while let open = condition.withLock({ () -> (@Sendable () -> Engines)? in
                busy = false
                condition.broadcast()
                while requested == nil && !stopping { condition.wait() }
                guard !stopping, let open = requested else { return nil }
                requested = nil
                busy = true
                return open
            }) {
                FeedbackSwitch.close(takeEngines())
                swapIn(open())
            }
        }
    }

    private let state = State()
    private var worker: WorkerThread?

    public init() {}

    deinit { close() }

    public func play(_ feedback: AudioFeedback) { state.condition.withLock { state.engines.audio }.play(feedback) }
    public func play(_ feedback: HapticFeedback) { state.condition.withLock { state.engines.haptic }.play(feedback) }

    /// Closes the engines in use, then opens `open()`'s, off the calling thread.
    public func reopen(_ open: @escaping @Sendable () -> Engines) {
        state.condition.withLock { state.requested = open; state.condition.broadcast() }
        guard worker == nil else { return }
        let shared = state
        worker = WorkerThread(name: "keyhold-reopen") { shared.work() }
        if worker == nil {   // no thread to be had: here, as before
            shared.condition.withLock { shared.requested = nil }
            Self.close(shared.takeEngines())
            shared.swapIn(open())
        }
    }

    /// Waits for a reopen under way and closes the engines (at exit).
    public func close() {
        state.condition.withLock { state.stopping = true; state.condition.broadcast() }
        worker?.join()
        worker = nil
        Self.close(state.takeEngines())
    }

    /// Waits until no reopen is asked for or under way (tests).
    public func waitUntilOpen() {
        state.condition.withLock { while state.requested != nil || state.busy { state.condition.wait() } }
    }

    fileprivate static func close(_ engines: Engines) {
        (engines.audio as? ClosableFeedbackEngine)?.close()
        (engines.haptic as? ClosableFeedbackEngine)?.close()
    }
}

/// An engine holding a device until it is closed (the sound card, a rumble device).
public protocol ClosableFeedbackEngine: AnyObject {
    func close()
}

extension ALSAAudioEngine: ClosableFeedbackEngine {}
extension EvdevHapticEngine: ClosableFeedbackEngine {}
