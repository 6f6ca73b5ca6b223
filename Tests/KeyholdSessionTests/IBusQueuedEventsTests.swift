import CSessionIBus
import XCTest

/// How many key events may still wait in mutter's queue ahead of a commit: those IBus answered
/// lately, repeats included (each is put back into the queue), counted so the wait makes a
/// compositor round trip for each (IBusOrdering.roundTrips says what those round trips prove).
final class IBusQueuedEventsTests: XCTestCase {
    /// The backend's state, as the companion owns it (zeroed: nothing answered).
    private var state = khi_state()

    func testNothingAnsweredNothingQueued() {
        XCTAssertEqual(khi_recent_answers(&state, 0), 0)
    }

    func testOnlyAnswersSinceTheWindowCount() {
        for at: Int64 in [1_000, 2_000, 3_000] { khi_note_answer(&state, at) }
        XCTAssertEqual(khi_recent_answers(&state, 2_000), 2, "the answers at 2 000 and 3 000 µs")
        XCTAssertEqual(khi_recent_answers(&state, 3_001), 0)
    }

    func testAHeldKeysRepeatsCountLikeItsTransitions() {
        // e down, four repeats, e up, BackSpace down and up: eight events, all in the queue.
        for at in stride(from: Int64(10_000), to: 18_000, by: 1_000) { khi_note_answer(&state, at) }
        XCTAssertEqual(khi_recent_answers(&state, 0), 8)
    }

    func testTheCountIsBoundedByTheRing() {
        for at in 1...Int64(KHI_ANSWERS) + 8 { khi_note_answer(&state, at) }
        XCTAssertEqual(khi_recent_answers(&state, 0), Int32(KHI_ANSWERS))
        XCTAssertEqual(khi_recent_answers(&state, Int64(KHI_ANSWERS) + 8), 1, "the newest is kept")
    }
}
