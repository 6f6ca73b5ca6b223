import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// The daemon plays feedback after the batch's keys are written: what the engine asks for while
/// it handles a key waits in `DeferredFeedback` until `flush()`, in order.
final class DeferredFeedbackTests: XCTestCase {
    /// One timeline of what the engine typed and what was played.
    final class Timeline: KeyEventOutput, AudioFeedbackEngine, HapticFeedbackEngine {
        var entries: [String] = []
        func send(_ key: KeyCode, _ state: KeyState) { entries.append("key \(key.rawValue) \(state)") }
        func play(_ feedback: AudioFeedback) { entries.append("audio \(feedback.configString)") }
        func play(_ feedback: HapticFeedback) { entries.append("haptic \(feedback.configString)") }
    }

    func testTheEnginesFeedbackWaitsForTheFlushAfterTheKeys() {
        let timeline = Timeline()
        let deferred = DeferredFeedback(audio: timeline, haptic: timeline)
        let engine = KeyholdEngine(output: timeline)
        engine.services.audioEngine = deferred
        engine.services.hapticEngine = deferred

        engine.handle(KeyEvent(.x, .down, at: .milliseconds(0)))
        let typed = timeline.entries
        XCTAssertFalse(typed.isEmpty, "x was typed")
        XCTAssertTrue(typed.allSatisfy { $0.hasPrefix("key ") }, "nothing played before the flush: \(typed)")
        XCTAssertTrue(deferred.hasPending, "the press asked for feedback")

        deferred.flush()
        let played = Array(timeline.entries.dropFirst(typed.count))
        XCTAssertEqual(played, ["audio input", "haptic lightImpact"], "the press's standard feedback, in order")
        XCTAssertFalse(deferred.hasPending)
        deferred.flush()
        XCTAssertEqual(timeline.entries.count, typed.count + played.count, "a second flush plays nothing again")
    }

    func testRequestsKeepTheirOrderAndNoneIsNotQueued() {
        let timeline = Timeline()
        let deferred = DeferredFeedback(audio: timeline, haptic: timeline)
        deferred.play(HapticFeedback.mediumImpact)
        deferred.play(AudioFeedback.none)
        deferred.play(AudioFeedback.delete)
        deferred.play(HapticFeedback.none)
        deferred.play(AudioFeedback.custom(path: "/tmp/a.wav"))
        XCTAssertEqual(timeline.entries, [])
        deferred.flush()
        XCTAssertEqual(timeline.entries, ["haptic mediumImpact", "audio delete", "audio /tmp/a.wav"])
    }
}
