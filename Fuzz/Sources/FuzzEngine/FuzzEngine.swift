import FuzzSupport
import KeyholdKit

/// The engine under libFuzzer: each input is a sequence of key events (two bytes each: which key
/// of a set that covers modifiers, locks, callout keys, bindings and dual-role keys, and what
/// happens to it, with time passing), on a configuration with bindings, a layer and a
/// dual-role Caps Lock. Afterwards every physical key is released and time passes: no key may
/// then be held on the output, whatever came before.
@main
struct FuzzEngine {
    static func main() { runFuzzer(fuzzOne) }

    static let keys: [KeyCode] = [.e, .a, .s, .o, .x, .c, .two, .nine, .kp2, .leftShift, .rightShift, .leftCtrl,
                                  .leftAlt, .rightAlt, .leftMeta, .capsLock, .esc, .enter, .tab, .left, .right,
                                  .backspace, .space, .f1, KeyCode(60), .up, .numLock, .j]

    static let configuration: KeyholdConfiguration = {
        var c = KeyholdConfiguration()
        let nav = KeyboardType(name: "nav")
        c.bindings = KeyBindings([
            .alphabetic: [
                .capsLock: KeyBinding(tap: .escape, hold: .control),
                .space: KeyBinding(tap: .space, hold: .keyboardType(nav)),
                .f1: KeyBinding([.press: .control, .longPress: .key(.esc), .doubleTap: .text("!")]),
                KeyCode(60): KeyBinding([.press: .text("ł€"), .repeatPress: .text("r")]),   // F2
                .up: KeyBinding(press: .backspace),
                .rightAlt: KeyBinding(press: .keyboardType(.symbolic)),
            ],
            nav: [.j: KeyBinding(press: .key(.left)), .e: KeyBinding(press: .shift)],
            .symbolic: [.j: KeyBinding(press: .text("("))],
        ])
        return c
    }()

    static let fuzzOne: FuzzInput = { data, size in
        guard let data else { return 0 }
        let simulator = Simulator(configuration: configuration, recordsTrace: false)
        let engine = simulator.engine
        var t: Int64 = 0
        var physical = Set<KeyCode>()
        var i = 0
        while i + 1 < size {
            let key = keys[Int(data[i]) % keys.count], op = data[i + 1]
            i += 2
            t += Int64(op >> 2) * 12   // up to ~750 ms between events: long presses and repeats happen
            let state: KeyState
            switch op & 3 {
            case 0, 1: state = .down
            case 2: state = .up
            default: state = .autoRepeat
            }
            if state == .down { physical.insert(key) } else if state == .up { physical.remove(key) }
            engine.handle(KeyEvent(key, state, at: .milliseconds(t)))
        }
        for key in physical.sorted() {
            t += 10
            engine.handle(KeyEvent(key, .up, at: .milliseconds(t)))
        }
        engine.advance(to: .milliseconds(t + 2000))
        if !simulator.application.keyState.downKeys.isEmpty {
            fatalError("stuck keys on the output: \(simulator.application.keyState.downKeys)")
        }
        return 0
    }
}
