import KeyholdKit

/// Audio and haptic engines that are reopened off the playing thread: the daemon's across
/// reloads (docs/ARCHITECTURE.md, Configuration: feedback devices are closed before they are reopened, off
/// the input thread), the companion's sound when it first plays. Plays go to the engines open
/// now. `reopen` makes it silent at once; a thread of its own then closes the old engines
/// (letting a sound in progress end, erasing rumble effects) and opens the new ones, which take
/// over once open. The playing thread only ever takes an uncontended lock.
public final class FeedbackSwitch: AudioFeedbackEngine, HapticFeedbackEngine, @unchecked Sendable {
    public typealias Engines = (audio: AudioFeedbackEngine, haptic: HapticFeedbackEngine)

    private let condition = FeedbackCondition()
    private var engines: Engines = (SilentAudioEngine(), SilentHapticEngine())
    private var worker: WorkerThread?

    public init() {}

    deinit { close() }

    public func play(_ feedback: AudioFeedback) { condition.withLock { engines.audio }.play(feedback) }
    public func play(_ feedback: HapticFeedback) { condition.withLock { engines.haptic }.play(feedback) }

    /// Closes the engines in use, then opens `open()`'s, off the calling thread. A reopen still
    /// under way finishes first.
    public func reopen(_ open: @escaping @Sendable () -> Engines) {
        worker?.join()
        let old = takeEngines()
        let body = { [self] in
            Self.close(old)
            let new = open()
            condition.withLock { engines = new }
        }
        worker = WorkerThread(name: "keyhold-reopen", body)
        if worker == nil { body() }   // no thread to be had: here, as before
    }

    /// Waits for a reopen under way and closes the engines (at exit).
    public func close() {
        worker?.join()
        worker = nil
        Self.close(takeEngines())
    }

    /// Waits for a reopen under way (tests).
    public func waitUntilOpen() { worker?.join() }

    /// The engines in use, leaving silent ones in their place.
    private func takeEngines() -> Engines {
        condition.withLock {
            defer { engines = (SilentAudioEngine(), SilentHapticEngine()) }
            return engines
        }
    }

    private static func close(_ engines: Engines) {
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
