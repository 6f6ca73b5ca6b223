import KeyholdKit
import XCTest

/// Random event sequences, in any order and including ups of keys never pressed, never leave a
/// key held on the output once every physical key is up.
final class PropertyTests: XCTestCase {
    static let keys: [KeyCode] = [.e, .a, .s, .o, .x, .q, .two, .nine, .kp2, .leftShift, .rightShift, .leftCtrl,
                                  .leftAlt, .rightAlt, .leftMeta, .capsLock, .esc, .enter, .tab, .left, .right,
                                  .backspace, .space, .f1, .up]

    func testNoKeyIsLeftHeld() {
        let bound = configuration {
            $0.bindings = KeyBindings([
                .alphabetic: [
                    .f1: KeyBinding([.press: .control, .longPress: .key(.esc), .doubleTap: .text("!")]),
                    .up: KeyBinding(press: .backspace),
                    .q: KeyBinding([.press: .key(.z), .repeatPress: .text("r")]),
                ],
            ])
        }
        for seed in UInt64(1)...400 {
            var rng = SeededGenerator(state: seed)
            for config in [KeyholdConfiguration(), bound] {
                let s = Simulator(configuration: config, recordsTrace: false)
                var t: Int64 = 0
                var physical = Set<KeyCode>()
                for _ in 0..<Int.random(in: 5...120, using: &rng) {
                    t += Int64.random(in: 0...700, using: &rng)
                    let key = Self.keys.randomElement(using: &rng)!
                    let roll = Int.random(in: 0..<10, using: &rng)
                    let state: KeyState = roll < 5 ? .down : roll < 9 ? .up : .autoRepeat
                    if state == .down { physical.insert(key) } else if state == .up { physical.remove(key) }
                    s.engine.handle(KeyEvent(key, state, at: .milliseconds(t)))
                }
                for key in physical.sorted() {
                    t += Int64.random(in: 0...300, using: &rng)
                    s.engine.handle(KeyEvent(key, .up, at: .milliseconds(t)))
                }
                // Every gesture is due within 2 s; an open callout closes 10 s after its last key.
                s.engine.advance(to: .milliseconds(t + 12_000))
                XCTAssertEqual(s.application.keyState.downKeys, [], "seed \(seed)")
                let controller = s.engine.services.keyboardController as! StandardKeyboardController
                XCTAssertTrue(controller.keyState.isEmpty, "seed \(seed)")
                XCTAssertNil(s.engine.nextDeadline, "seed \(seed): a deadline outlived every key")
            }
        }
    }
}
