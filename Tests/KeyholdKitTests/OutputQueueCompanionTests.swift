import KeyholdKit
import XCTest

/// The queue with a fake companion on a virtual clock: characters handed off keep their place
/// among key events, acknowledgements release what waits, a silent or vanished companion costs
/// no character.
final class OutputQueueCompanionTests: XCTestCase {
    /// The device and the companion write into one timeline, as the desktop would see them.
    final class Desktop: KeyEventOutput, OutputCompanion {
        var clock = Timestamp.zero
        var timeline: [String] = []
        var requests: [(text: String, id: UInt64, after: UInt64, keysWrittenAt: Timestamp?)] = []
        /// As KWin's input method, which KWin restarts.
        var restartedWhenGone = false
        /// Answers at once from within `type` (a companion on the same thread).
        weak var answerAtOnce: OutputQueue?
        func send(_ key: KeyCode, _ state: KeyState) {
            timeline.append("\(key)\(state == .down ? "↓" : "↑")")
        }
        func type(_ text: String, id: UInt64, after: UInt64, keysWrittenAt: Timestamp?) {
            timeline.append("companion:\(text)")
            requests.append((text, id, after, keysWrittenAt))
            answerAtOnce?.acknowledge(id)
        }
    }

    let fallbackE9 = [KeyTransition(.leftCtrl, .down), KeyTransition(.leftShift, .down), KeyTransition(.u, .down),
                      KeyTransition(.u, .up), KeyTransition(.leftShift, .up), KeyTransition(.leftCtrl, .up),
                      KeyTransition(.e, .down), KeyTransition(.e, .up), KeyTransition(KeyCode(10), .down), KeyTransition(KeyCode(10), .up),
                      KeyTransition(.space, .down), KeyTransition(.space, .up)]

    func make() -> (OutputQueue, Desktop) {
        let desktop = Desktop()
        let queue = OutputQueue(sink: desktop, pacing: .init(burst: 100, pauseMicroseconds: 1_000), clock: { desktop.clock })
        queue.companion = desktop
        return (queue, desktop)
    }

    func tap(_ queue: OutputQueue, _ key: KeyCode) { queue.send(key, .down); queue.send(key, .up) }

    /// One batch that types `text` and ends, as the daemon ends a batch: with a drain.
    func batch(_ queue: OutputQueue, _ text: String, fallback: [KeyTransition]) {
        queue.handOff(text, fallback: fallback)
        queue.drain()
    }

    /// The companion is told when the last key that changes text was written, to wait for the
    /// program's word about it; keys that change nothing (AltGr alone, Ctrl+S, F4) get no word,
    /// and a character after them alone is told nothing.
    func testKeysWrittenAtCountsOnlyKeysThatChangeText() {
        let (queue, desktop) = make()
        desktop.answerAtOnce = queue
        func type(_ text: String, handedOffAt microseconds: Int64) {
            batch(queue, text, fallback: [])
            desktop.clock = Timestamp(microseconds: microseconds)
            queue.drain()
        }
        tap(queue, .rightAlt)
        type("€", handedOffAt: 10_000)
        queue.send(.leftCtrl, .down); tap(queue, .s); queue.send(.leftCtrl, .up)
        type("a", handedOffAt: 20_000)
        tap(queue, KeyCode(62))   // F4
        type("b", handedOffAt: 30_000)
        tap(queue, .e)
        type("c", handedOffAt: 40_000)
        tap(queue, .backspace)
        type("d", handedOffAt: 50_000)
        XCTAssertEqual(desktop.requests.map { $0.text }, ["€", "a", "b", "c", "d"])
        XCTAssertEqual(desktop.requests.map { $0.keysWrittenAt }, [nil, nil, nil, Timestamp(microseconds: 30_000), Timestamp(microseconds: 40_000)])
    }

    /// x, é, y z: é waits for x to settle, y and z wait for é's acknowledgement.
    func testHandOffKeepsItsPlace() {
        let (queue, desktop) = make()
        tap(queue, .x)
        batch(queue, "é", fallback: fallbackE9)
        tap(queue, .y); tap(queue, .z)
        XCTAssertEqual(desktop.timeline, ["x↓", "x↑"], "é waits until x has reached the desktop")
        XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 5_000))
        desktop.clock = Timestamp(microseconds: 5_000)
        queue.drain()
        XCTAssertEqual(desktop.timeline, ["x↓", "x↑", "companion:é"])
        XCTAssertEqual(desktop.requests[0].after, 2, "the companion waits until the desktop has delivered x's two transitions")
        XCTAssertEqual(desktop.requests[0].keysWrittenAt, .zero, "and is told when x was written (not when é went)")
        XCTAssertTrue(queue.isAwaitingCompanion)
        XCTAssertEqual(queue.count, 4, "y and z wait behind é")
        desktop.clock = Timestamp(microseconds: 7_000)
        queue.drain()
        XCTAssertEqual(desktop.timeline.count, 3, "nothing overtakes an unacknowledged character")
        queue.acknowledge(desktop.requests[0].id + 1)
        XCTAssertTrue(queue.isAwaitingCompanion, "another id acknowledges nothing")
        XCTAssertNil(queue.companionRoundTrip)
        queue.acknowledge(desktop.requests[0].id)
        XCTAssertEqual(desktop.timeline, ["x↓", "x↑", "companion:é", "y↓", "y↑", "z↓", "z↑"])
        XCTAssertEqual(queue.companionRoundTrip?.p50, 2_000, "handed off at 5 ms, acknowledged at 7 ms")
        XCTAssertNil(queue.nextDeadline)
    }

    /// `after` counts only what the desktop can deliver (the daemon leaves out keys an X server
    /// cannot represent), or the companion would wait for events that never come.
    func testAfterCountsOnlyCountableKeys() {
        let (queue, desktop) = make()
        queue.uncountedKeys.set(.delete, down: true)
        tap(queue, .x); tap(queue, .delete)
        desktop.clock = Timestamp(microseconds: 5_000)
        batch(queue, "é", fallback: [])
        XCTAssertEqual(desktop.requests.first?.after, 2)
        XCTAssertEqual(queue.writtenCount, 2)
    }

    /// A hand-off right after another needs no settle time: nothing was written between them.
    func testConsecutiveHandOffsGoOneAtATime() {
        let (queue, desktop) = make()
        batch(queue, "ł", fallback: [])
        batch(queue, "€", fallback: [])
        XCTAssertEqual(desktop.timeline, ["companion:ł"])
        queue.acknowledge(desktop.requests[0].id)
        XCTAssertEqual(desktop.timeline, ["companion:ł", "companion:€"])
        queue.acknowledge(desktop.requests[1].id)
        XCTAssertFalse(queue.isAwaitingCompanion)
        XCTAssertTrue(queue.isEmpty)
    }

    func testACompanionThatAnswersAtOnce() {
        let (queue, desktop) = make()
        desktop.answerAtOnce = queue
        for c in ["à", "é", "î"] { batch(queue, c, fallback: []) }
        tap(queue, .a)
        XCTAssertEqual(desktop.timeline, ["companion:à", "companion:é", "companion:î", "a↓", "a↑"])
        XCTAssertTrue(queue.isEmpty)
    }

    /// What one batch hands off with nothing between goes as one text (one round trip, one commit
    /// for an input method), with the fallbacks in order; a key between keeps them apart.
    func testOneBatchsCharactersGoAsOneText() {
        let (queue, desktop) = make()
        queue.handOff("ł", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
        queue.handOff("€", fallback: [KeyTransition(.delete, .down), KeyTransition(.delete, .up)])
        XCTAssertEqual(desktop.timeline, [], "a hand-off waits for the batch's drain")
        queue.drain()
        XCTAssertEqual(desktop.timeline, ["companion:ł€"])
        queue.handOff("é", fallback: [KeyTransition(.tab, .down), KeyTransition(.tab, .up)])
        tap(queue, .x)
        queue.handOff("è", fallback: [])
        queue.companionGone(desktop)
        XCTAssertEqual(desktop.timeline, ["companion:ł€", "f1↓", "f1↑", "delete↓", "delete↑", "tab↓", "tab↑", "x↓", "x↑"],
                       "both fallbacks in order; é and è stay apart around x (è has no fallback here)")
    }

    /// No answer within the deadline: one timeout report, the character typed with its fallback,
    /// then what waited; later characters use the fallback (the companion is dropped).
    func testTimeoutTypesTheFallbackInPlace() {
        let (queue, desktop) = make()
        var timeouts = 0
        queue.onCompanionTimeout = { _ in timeouts += 1 }
        batch(queue, "é", fallback: fallbackE9)
        tap(queue, .y)
        XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 3_000_000))
        desktop.clock = Timestamp(microseconds: 2_999_999)
        queue.drain()
        XCTAssertEqual(timeouts, 0)
        desktop.clock = Timestamp(microseconds: 3_000_000)
        queue.drain()
        XCTAssertEqual(timeouts, 1)
        XCTAssertNil(queue.companion)
        XCTAssertEqual(desktop.timeline, ["companion:é"] + fallbackE9.map { "\($0.key)\($0.state == .down ? "↓" : "↑")" } + ["y↓", "y↑"])
        queue.acknowledge(desktop.requests[0].id)   // too late: nothing happens twice
        batch(queue, "é", fallback: fallbackE9)
        XCTAssertEqual(desktop.requests.count, 1)
        XCTAssertEqual(desktop.timeline.count, 1 + 12 + 2 + 12)
    }

    /// A companion that says it still waits (its desktop is busy) keeps its character for another
    /// acknowledgement timeout each time, up to the limit after the hand-off; a word about another
    /// character changes nothing.
    func testWaitingMovesTheDeadlineUpToTheLimit() {
        let (queue, desktop) = make()
        var timeouts = 0
        queue.onCompanionTimeout = { _ in timeouts += 1 }
        batch(queue, "é", fallback: fallbackE9)
        tap(queue, .y)
        let id = desktop.requests[0].id
        desktop.clock = Timestamp(microseconds: 1_000_000)
        queue.companionWaits(id + 1)
        XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 3_000_000))
        queue.companionWaits(id)
        XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 4_000_000))
        desktop.clock = Timestamp(microseconds: 3_999_999)
        queue.drain()
        XCTAssertEqual(timeouts, 0)
        desktop.clock = Timestamp(microseconds: 9_000_000)
        queue.companionWaits(id)
        XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 10_000_000), "no later than the limit")
        desktop.clock = Timestamp(microseconds: 9_999_999)
        queue.drain()
        XCTAssertEqual(desktop.timeline, ["companion:é"], "y waits behind é")
        queue.acknowledge(id)
        XCTAssertEqual(timeouts, 0)
        XCTAssertEqual(desktop.timeline, ["companion:é", "y↓", "y↑"])
        desktop.clock = Timestamp(microseconds: 20_000_000)   // y has settled
        batch(queue, "è", fallback: [])
        XCTAssertEqual(desktop.requests.count, 2)
        desktop.clock = Timestamp(microseconds: 21_000_000)
        queue.companionWaits(desktop.requests[1].id)
        desktop.clock = Timestamp(microseconds: 24_000_000)
        queue.drain()
        XCTAssertEqual(timeouts, 1, "a companion that stops saying so times out")
    }

    /// The companion's connection closes mid-sequence: its unacknowledged character and the rest
    /// are typed with key events, in order.
    func testCompanionGoneLosesNothing() {
        let (queue, desktop) = make()
        batch(queue, "é", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
        batch(queue, "è", fallback: [KeyTransition(.delete, .down), KeyTransition(.delete, .up)])
        tap(queue, .z)
        queue.companionGone(desktop)
        XCTAssertEqual(desktop.timeline, ["companion:é", "f1↓", "f1↑", "delete↓", "delete↑", "z↓", "z↑"])
        XCTAssertTrue(queue.isEmpty)
        XCTAssertFalse(queue.isAwaitingCompanion)
    }

    /// A companion the desktop restarts (KWin's input method) goes mid-text: the text and what
    /// follows wait for it, without a timer that fires before the wait is over, and go to the
    /// one that comes back; one that does not come back in time gets the fallbacks, in order.
    func testRestartedCompanionGetsTheTextBack() {
        for returns in [true, false] {
            let desktop = Desktop()
            desktop.restartedWhenGone = true
            let queue = OutputQueue(sink: desktop, pacing: .init(burst: 100, pauseMicroseconds: 1_000), clock: { desktop.clock })
            queue.companion = desktop
            batch(queue, "ł€", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
            tap(queue, .z)
            queue.companionGone(desktop)
            XCTAssertEqual(desktop.timeline, ["companion:ł€"], "nothing typed while it may come back")
            XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 2_000_000))
            desktop.clock = Timestamp(microseconds: 300_000)
            if returns {
                let again = Desktop()
                queue.companion = again
                queue.drain()
                XCTAssertEqual(again.timeline, ["companion:ł€"], "the text again, to the new companion")
                queue.acknowledge(again.requests[0].id)
                XCTAssertEqual(desktop.timeline, ["companion:ł€", "z↓", "z↑"], "then what waited behind it")
            } else {
                queue.drain()
                XCTAssertEqual(desktop.timeline, ["companion:ł€"])
                desktop.clock = Timestamp(microseconds: 2_000_000)
                queue.drain()
                XCTAssertEqual(desktop.timeline, ["companion:ł€", "f1↓", "f1↑", "z↓", "z↑"])
            }
        }
    }

    /// Gone after saying it wrote the character to the desktop: it is not typed twice.
    func testCompanionGoneAfterWritingIsNotTypedAgain() {
        let (queue, desktop) = make()
        batch(queue, "é", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
        batch(queue, "è", fallback: [KeyTransition(.delete, .down), KeyTransition(.delete, .up)])
        queue.companionWrote(desktop.requests[0].id)
        queue.companionGone(desktop)
        XCTAssertEqual(desktop.timeline, ["companion:é", "delete↓", "delete↑"])
    }

    /// The companion cannot type a character (IBus: no program's text input has the focus): its
    /// fallback goes in its place, before what waited behind it; the companion stays, and the
    /// next character goes to it again.
    func testCompanionThatCannotTypeGetsTheFallbackInPlace() {
        let (queue, desktop) = make()
        batch(queue, "é", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
        tap(queue, .z)
        queue.companionCouldNotType(desktop.requests[0].id + 1)
        XCTAssertEqual(desktop.timeline, ["companion:é"], "another id changes nothing")
        queue.companionCouldNotType(desktop.requests[0].id)
        XCTAssertEqual(desktop.timeline, ["companion:é", "f1↓", "f1↑", "z↓", "z↑"])
        XCTAssertFalse(queue.isAwaitingCompanion)
        XCTAssertTrue(queue.companion === desktop, "the companion is kept")
        batch(queue, "è", fallback: [])
        desktop.clock = Timestamp(microseconds: 5_000)   // z has had its time to reach the desktop
        queue.drain()
        XCTAssertEqual(desktop.timeline.last, "companion:è")
        queue.companionCouldNotType(desktop.requests[0].id)
        XCTAssertTrue(queue.isAwaitingCompanion, "a late answer for an earlier character changes nothing")
    }

    func testWithoutCompanionTheFallbackGoesAtOnce() {
        let (queue, desktop) = make()
        queue.companion = nil
        tap(queue, .x)
        batch(queue, "é", fallback: fallbackE9)
        XCTAssertEqual(desktop.timeline.count, 2 + 12)
    }

    /// Shutdown: whatever is in flight or waiting is typed now with key events.
    func testDrainAllTypesFallbacks() {
        let (queue, desktop) = make()
        batch(queue, "é", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
        tap(queue, .z)
        queue.drainAll()
        XCTAssertEqual(desktop.timeline, ["companion:é", "f1↓", "f1↑", "z↓", "z↑"])
        XCTAssertFalse(queue.isAwaitingCompanion)
        XCTAssertNil(queue.nextDeadline)
    }

    /// Sleep or stop while the companion has written a character to the desktop but not yet seen
    /// it delivered: the character is on its way, and its fallback would type it a second time.
    func testDrainAllDoesNotTypeAgainWhatTheCompanionWrote() {
        let (queue, desktop) = make()
        batch(queue, "é", fallback: [KeyTransition(.f1, .down), KeyTransition(.f1, .up)])
        queue.companionWrote(desktop.requests[0].id)
        tap(queue, .z)
        queue.drainAll()
        XCTAssertEqual(desktop.timeline, ["companion:é", "z↓", "z↑"])
    }
}
