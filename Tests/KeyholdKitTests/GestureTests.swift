import KeyholdKit
import XCTest

/// Cases that are only a script and what it types or traces are fixtures in Tests/Fixtures/simulate.
final class GestureTests: XCTestCase {
    /// A paragraph typed at 150 words per minute (80 ms a character) with every key held 130 ms,
    /// so each key goes down before the previous one is up; one key with callouts (the `u` of
    /// "quick") is even held 700 ms while others roll over it. No callout may ever open and the
    /// text must arrive exactly.
    func testRolloverAt150WpmNeverOpensCallout() {
        let paragraph = "the quick brown fox jumps over the lazy dog while eager users see accents appear only when they ask"
        var steps: [String] = []
        var events: [(Int, String)] = []
        let characters = Array(paragraph)
        for (i, c) in characters.enumerated() {
            let key = c == " " ? "space" : String(c)
            // A key cannot go down again before it is up: a double letter releases first.
            let doubled = i + 1 < characters.count && characters[i + 1] == c
            let hold = doubled ? 60 : i == 5 ? 700 : 130
            events.append((i * 80, "d:\(key)"))
            events.append((i * 80 + hold, "u:\(key)"))
        }
        events.sort { $0.0 < $1.0 }
        var t = 0
        for (time, step) in events {
            if time > t { steps.append("t:\(time - t)"); t = time }
            steps.append(step)
        }
        let s = simulate(steps.joined(separator: " "))
        XCTAssertEqual(s.application.text, paragraph)
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertFalse(s.lines("gesture").contains { $0.contains("longPress") })
        XCTAssertTrue(s.application.keyState.isEmpty)
        // The long-held u, exactly: typed on press at 400 ms, released at 1100 ms, nothing between
        // although its long press was due at 900 ms; i (with callouts too) went down 80 ms after.
        XCTAssertEqual(Array(characters[5...6]), ["u", "i"])
        XCTAssertEqual(Array(s.lines("gesture").filter { $0.contains(" u ") }.prefix(2)), [
            "400ms u press character:u", "1100ms u release character:u",
        ])
        XCTAssertEqual(Array(s.trace.map(\.description).filter { $0.hasPrefix("4") }.prefix(9)), [
            "400ms in u down", "400ms gesture u press character:u", "400ms out u down", "400ms out u up",
            "450ms in q up", "450ms forward q up", "450ms out q up",
            "480ms in i down", "480ms gesture i press character:i",
        ])
    }

    func testPanicEscapeCallsOut() {
        let s = Simulator()
        var panicked = 0
        s.engine.onPanic = { panicked += 1 }
        s.run(try! SimulationScript("d:backspace d:esc d:enter u:enter u:esc u:backspace"))
        XCTAssertEqual(panicked, 1)
        let s2 = Simulator()
        s2.engine.onPanic = { panicked += 1 }
        s2.run(try! SimulationScript("d:backspace d:esc u:esc d:enter u:enter u:backspace"))
        XCTAssertEqual(panicked, 1, "all three must be held together")
    }

    func testNextDeadlineFollowsHeldKey() {
        let s = Simulator()
        s.engine.handle(KeyEvent(.e, .down, at: .milliseconds(10)))
        XCTAssertEqual(s.engine.nextDeadline, .milliseconds(510))
        s.engine.handle(KeyEvent(.e, .up, at: .milliseconds(100)))
        XCTAssertNil(s.engine.nextDeadline, "an idle engine needs no timer")
    }

    func testEarliestOfTwoDeadlinesIgnoresAnAbsentOne() {
        let early = Timestamp.milliseconds(5), late = Timestamp.milliseconds(9)
        XCTAssertNil(Timestamp.earliest(nil, nil))
        XCTAssertEqual(Timestamp.earliest(nil, late), late)
        XCTAssertEqual(Timestamp.earliest(late, nil), late)
        XCTAssertEqual(Timestamp.earliest(early, late), early)
        XCTAssertEqual(Timestamp.earliest(late, early), early)
    }

    func testPausedEngineForwardsEverything() {
        let s = Simulator()
        s.engine.isPaused = true
        s.run(try! SimulationScript("d:e t:600 u:e d:2 u:2"))
        XCTAssertEqual(s.application.text, "e2")
        XCTAssertEqual(s.calloutOpens, 0)
    }

    func testReleaseAllLetsGoOfEverything() {
        let s = Simulator()
        s.run(try! SimulationScript("d:leftshift d:x d:e t:600"))
        XCTAssertFalse(s.application.keyState.isEmpty)
        s.engine.releaseAll()
        XCTAssertTrue(s.application.keyState.isEmpty)
        XCTAssertNil(s.engine.nextDeadline)
        XCTAssertFalse(s.engine.services.calloutContext.isOpen)
        // The keys' physical releases afterwards change nothing.
        s.run(try! SimulationScript("u:x u:e u:leftshift d:a u:a"))
        XCTAssertEqual(s.application.text, "XEa")
    }
}
