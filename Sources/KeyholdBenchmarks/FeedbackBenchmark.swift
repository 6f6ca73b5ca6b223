// Audio feedback latency, printed not asserted (part of `swift run -c release KeyholdBenchmarks`).
#if canImport(Glibc)
import Glibc
#endif
import KeyholdKit
import KeyholdLinux

/// Key event -> first audio frame handed to ALSA, through the whole engine (gesture, action
/// handler, feedback handler, audio thread). Plays on ALSA's "null" PCM (defined by alsa-lib
/// itself: no sound card needed) unless KEYHOLD_BENCH_AUDIO_DEVICE names another.
func runFeedbackBenchmark() {
    let device = getenv("KEYHOLD_BENCH_AUDIO_DEVICE").map { String(cString: $0) } ?? "null"
    let audio = ALSAAudioEngine(options: .init(device: device), log: { _, _ in })
    defer { audio.close() }
    guard case .open(let format) = audio.status else {
        print("feedback: ALSA device \"\(device)\" unavailable (\(audio.status)); skipped")
        return
    }
    print("feedback: ALSA \"\(device)\": \(format)")
    // play() as the input thread sees it: a burst of 10,000 calls
    let kinds: [AudioFeedback] = [.input, .delete, .system]
    let b0 = FeedbackClock.nanoseconds()
    for i in 0..<10_000 { audio.play(kinds[i % 3]) }
    let burst = FeedbackClock.nanoseconds() - b0
    audio.waitUntilIdle(timeout: 5)
    print("  play(): \(burst / 10_000) ns per call in a burst of 10000 (the newest sound wins)")
    _ = FeedbackLatency.keyToFirstFrame(audio: audio, presses: 50)   // warm-up
    let r = FeedbackLatency.keyToFirstFrame(audio: audio, presses: 2_000)
    func us(_ ns: UInt64?) -> String { String(Double(ns ?? 0) / 1000) }
    print("  key event -> first frame written, \(r.delays.count) of \(r.presses) presses: "
          + "p50 \(us(r.percentile(0.5))) µs  p99 \(us(r.percentile(0.99))) µs  max \(us(r.delays.last)) µs")
    let h = r.handleNanoseconds
    print("  of which engine.handle (input thread): p50 \(us(h[h.count / 2])) µs  p99 \(us(h[min(h.count - 1, h.count * 99 / 100)])) µs")
}
