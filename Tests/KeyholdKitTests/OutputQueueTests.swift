import KeyholdKit
import KeyholdTestSupport
import XCTest

/// The output queue on a virtual clock: order kept, bursts bounded, pacing by deadline.
final class OutputQueueTests: XCTestCase {
    func make(_ pacing: OutputQueue.Pacing = .init(burst: 16, pauseMicroseconds: 2_000)) -> (OutputQueue, KeyEventRecorder) {
        let device = KeyEventRecorder()
        return (OutputQueue(sink: device, pacing: pacing, clock: { device.clock }), device)
    }

    /// Runs the daemon's timer: advance to each deadline and drain, until nothing waits.
    func runTimer(_ queue: OutputQueue, _ device: KeyEventRecorder) {
        while let due = queue.nextDeadline {
            XCTAssertGreaterThan(due, device.clock, "a deadline in the past would spin the loop")
            device.clock = due
            queue.drain()
        }
    }

    func testDefaultPacing() {
        XCTAssertEqual(OutputQueue.Pacing(), .init(burst: 2, pauseMicroseconds: 8_000, paceMicroseconds: 0))
    }

    func testTypingAtNormalSpeedGoesStraightThrough() {
        let (queue, device) = make()
        for i in 0..<100 {
            device.clock = Timestamp(microseconds: Int64(i) * 30_000)
            queue.send(.a, .down)
            queue.send(.a, .up)
            XCTAssertTrue(queue.isEmpty)
        }
        XCTAssertEqual(device.written.count, 200)
        XCTAssertNil(queue.nextDeadline)
    }

    /// 40 transitions at once (a long binding): 16 now, 16 after 2 ms, 8 after 4 ms, in order.
    func testABurstIsSplitAndKeepsItsOrder() {
        let (queue, device) = make()
        let keys: [KeyCode] = (0..<20).map { KeyCode(UInt16(16 + $0)) }
        for key in keys { queue.send(key, .down); queue.send(key, .up) }
        XCTAssertEqual(device.written.count, 16)
        XCTAssertEqual(queue.count, 24)
        XCTAssertEqual(queue.nextDeadline, Timestamp(microseconds: 2_000))
        runTimer(queue, device)
        let expected = keys.flatMap { ["\($0) down", "\($0) up"] }
        XCTAssertEqual(device.written.map { String($0.split(separator: " ", maxSplits: 1)[1]) }, expected)
        XCTAssertEqual(device.written.filter { $0.hasPrefix("0us") }.count, 16)
        XCTAssertEqual(device.written.filter { $0.hasPrefix("2000us") }.count, 16)
        XCTAssertEqual(device.written.filter { $0.hasPrefix("4000us") }.count, 8)
    }

    /// A key typed while a burst waits goes behind it, never ahead.
    func testNothingOvertakesWhatWaits() {
        let (queue, device) = make(.init(burst: 2, pauseMicroseconds: 1_000))
        queue.send(.a, .down); queue.send(.a, .up); queue.send(.b, .down); queue.send(.b, .up)
        device.clock = Timestamp(microseconds: 500)
        queue.send(.c, .down)
        XCTAssertEqual(device.written, ["0us a down", "0us a up"])
        runTimer(queue, device)
        XCTAssertEqual(device.written, ["0us a down", "0us a up", "1000us b down", "1000us b up", "2000us c down"])
    }

    /// `pace_us`: at least that long between any two transitions.
    func testPaceSpacesEveryTransition() {
        let (queue, device) = make(.init(burst: 100, paceMicroseconds: 300))
        queue.send(.a, .down); queue.send(.a, .up); queue.send(.b, .down)
        runTimer(queue, device)
        XCTAssertEqual(device.written, ["0us a down", "300us a up", "600us b down"])
    }

    /// At shutdown every release goes out at once, before the device is destroyed.
    func testDrainAllIgnoresPacing() {
        let (queue, device) = make(.init(burst: 1, pauseMicroseconds: 10_000))
        queue.send(.a, .down); queue.send(.leftShift, .down); queue.send(.leftShift, .up); queue.send(.a, .up)
        queue.drainAll()
        XCTAssertEqual(device.written, ["0us a down", "0us leftshift down", "0us leftshift up", "0us a up"])
        XCTAssertNil(queue.nextDeadline)
    }

    /// Through the engine: a 200-character binding never writes more than 16 transitions within
    /// 2 ms, and the text arrives whole.
    func testALongBindingNeverExceedsABurst() {
        let text = String(repeating: "Ünïcödé tëxt ", count: 16).prefix(200)
        let application = SimulatedApplication()
        var clock = Timestamp.zero
        let queue = OutputQueue(sink: application, pacing: .init(burst: 16, pauseMicroseconds: 2_000), clock: { clock })
        let engine = KeyholdEngine(configuration: configuration {
            $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: .text(String(text)))]])
        }, output: queue)
        engine.handle(KeyEvent(.f1, .down, at: clock))
        engine.handle(KeyEvent(.f1, .up, at: clock))
        var writesPerWindow: [Int64: Int] = [:]
        var written = application.events.count
        writesPerWindow[0] = written
        while let due = queue.nextDeadline {
            clock = due
            queue.drain()
            writesPerWindow[due.microseconds, default: 0] += application.events.count - written
            written = application.events.count
        }
        XCTAssertEqual(application.text, String(text))
        XCTAssertLessThanOrEqual(writesPerWindow.values.max() ?? 0, 16)
        XCTAssertGreaterThan(writesPerWindow.count, 50, "a long text is spread over many bursts")
    }
}

/// `unicode_method = "auto"`: the method follows where the keystrokes go.
final class AutoUnicodeMethodTests: XCTestCase {
    func testAutoPicksByTheActiveSession() {
        let console = OutputTarget(kind: .textConsole, session: "3", uid: 1000, vt: 2, type: "tty", source: "logind")
        let x11 = OutputTarget(kind: .graphical, session: "5", uid: 1000, vt: 7, type: "x11", source: "logind")
        XCTAssertEqual(UnicodeMethod.auto.resolved(for: console).method, .console)
        XCTAssertEqual(UnicodeMethod.auto.resolved(for: x11).method, .ctrlShiftU)
        XCTAssertEqual(UnicodeMethod.auto.resolved(for: x11).reason,
                       "auto: graphical session 5 of uid 1000 on VT 7 (x11, logind), no keyhold-session companion")
        XCTAssertEqual(UnicodeMethod.auto.resolved(for: OutputTarget(kind: .unknown, source: "no readable active VT")).method, .console)
        // A configured method is used wherever the keys go.
        XCTAssertEqual(UnicodeMethod.compose.resolved(for: console).method, .compose)
        XCTAssertEqual(UnicodeMethod.console.resolved(for: x11).method, .console)
        XCTAssertEqual(UnicodeMethod.console.resolved(for: x11).reason, "set in the configuration")
    }

    /// The services retype with the method they are given, through the planner.
    func testServicesSwitchMethod() {
        let s = Simulator()
        s.engine.services.unicodeMethod = .ctrlShiftU
        _ = try? s.run("d:e t:600 u:e d:2 u:2")
        XCTAssertEqual(s.application.text, "é")
        XCTAssertTrue(s.application.events.contains { $0.key == .u }, "typed as Ctrl+Shift+U e9")
    }
}

private extension KeyEventRecorder {
    /// What reached the device, with the virtual time it arrived: `2000us a down`.
    var written: [String] {
        transitions.map { "\($0.time.microseconds)us \($0.key) \($0.state == .down ? "down" : $0.state == .up ? "up" : "repeat")" }
    }
}
