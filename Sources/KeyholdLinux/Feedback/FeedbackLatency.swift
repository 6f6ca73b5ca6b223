import KeyholdKit

/// Measures the delay from a key event entering the engine to the first frame of its click
/// reaching ALSA: the whole path (gesture, action handler, feedback handler, `play`, the audio
/// thread waking, snd_pcm_writei). For the benchmark and `keyhold feedback test`.
public enum FeedbackLatency {
    public struct Result: Hashable, Sendable {
        /// Nanoseconds, one per key press whose click reached the device, sorted.
        public var delays: [UInt64]
        public var presses: Int
        /// The part of it spent in `KeyholdEngine.handle` (the input thread's cost), sorted.
        public var handleNanoseconds: [UInt64]

        public func percentile(_ p: Double) -> UInt64? {
            delays.isEmpty ? nil : delays[min(delays.count - 1, Int(Double(delays.count) * p))]
        }
        public var mean: Double? { delays.isEmpty ? nil : Double(delays.reduce(0, +)) / Double(delays.count) }
    }

    /// Presses and releases `key` `presses` times through a fresh engine whose audio engine is
    /// `audio`, waiting for each click to be written before the next press. Times are real
    /// (CLOCK_MONOTONIC), so the result includes the audio thread's wake-up.
    public static func keyToFirstFrame(audio: ALSAAudioEngine, presses: Int = 200, key: KeyCode = .e,
                                       configuration: KeyholdConfiguration = KeyholdConfiguration()) -> Result {
        let engine = KeyholdEngine(configuration: configuration, output: DiscardingOutput())
        engine.services.audioEngine = audio
        var delays: [UInt64] = [], handle: [UInt64] = []
        for _ in 0..<presses {
            let before = audio.statistics.started
            let t0 = FeedbackClock.nanoseconds()
            engine.handle(KeyEvent(key, .down, at: Timestamp(microseconds: Int64(t0 / 1000))))
            handle.append(FeedbackClock.nanoseconds() - t0)
            audio.waitUntilIdle(timeout: 1)
            let stats = audio.statistics
            if stats.started > before, let playback = stats.lastPlayback, playback.firstFrameAt >= t0 {
                delays.append(playback.firstFrameAt - t0)
            }
            // (a quick second press is a double tap on release: a haptic, the press still clicks)
            let t1 = FeedbackClock.nanoseconds()
            engine.handle(KeyEvent(key, .up, at: Timestamp(microseconds: Int64(t1 / 1000))))
        }
        return Result(delays: delays.sorted(), presses: presses, handleNanoseconds: handle.sorted())
    }

    private final class DiscardingOutput: KeyEventOutput {
        func send(_ key: KeyCode, _ state: KeyState) {}
    }
}
