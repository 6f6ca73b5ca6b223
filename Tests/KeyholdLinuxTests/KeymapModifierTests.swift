import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// Modifiers and locks as the XKB keymap in use says (xkbcommon, any host): options that move
/// Ctrl, Escape and Caps Lock change what the engine treats as a shortcut, what it lifts around
/// synthetic output, and what toggles Caps Lock.
final class KeymapModifierTests: XCTestCase {
    func simulator(options: String, layout: String = "us") throws -> Simulator {
        Simulator(layout: try XKBLayout(XKBNames(layout: layout, options: options)))
    }

    func testModifierMapFollowsTheOptions() throws {
        let plain = try XKBLayout(XKBNames(layout: "us")).modifierMap
        XCTAssertEqual(plain.role(of: .capsLock), .capsLock)
        XCTAssertEqual(plain.role(of: .leftCtrl), .modifier(.control))
        XCTAssertEqual(plain.role(of: .numLock), .numLock)
        XCTAssertEqual(plain.role(of: .esc), KeyRole.none)
        XCTAssertEqual(try XKBLayout(XKBNames(layout: "us", options: "ctrl:nocaps")).modifierMap.role(of: .capsLock), .modifier(.control))
        XCTAssertEqual(try XKBLayout(XKBNames(layout: "us", options: "caps:escape")).modifierMap.role(of: .capsLock), KeyRole.none)
        let swapped = try XKBLayout(XKBNames(layout: "us", options: "caps:swapescape")).modifierMap
        XCTAssertEqual(swapped.role(of: .capsLock), KeyRole.none)
        XCTAssertEqual(swapped.role(of: .esc), .capsLock)
        XCTAssertEqual(try XKBLayout(XKBNames(layout: "de")).modifierMap.role(of: .rightAlt), .modifier(.altGr))
        XCTAssertEqual(try XKBLayout(XKBNames(layout: "us", options: "lv3:caps_switch")).modifierMap.role(of: .capsLock), .modifier(.altGr))
    }

    /// `ctrl:nocaps`: Caps Lock held with a long-pressed e is Ctrl+E, not a callout.
    func testNoCapsMakesCapsLockAShortcutModifier() throws {
        let s = try simulator(options: "ctrl:nocaps")
        _ = try s.run("d:capslock d:e t:700 u:e u:capslock d:2 u:2")
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertEqual(s.lines("out"), ["0ms capslock down", "0ms e down", "700ms e up", "700ms capslock up", "700ms 2 down", "700ms 2 up"])
        XCTAssertEqual(s.application.text, "\u{05}2")
        XCTAssertFalse(s.engine.services.keyboardContext.isCapsLockOn, "a Caps Lock key that is Ctrl toggles nothing")
    }

    /// `caps:swapescape`: Escape is Caps Lock, so Escape then a long-pressed letter gives the
    /// upper-case letter and upper-case candidates; Caps Lock is Escape and toggles nothing.
    func testSwapEscapeMakesEscapeTheLock() throws {
        let s = try simulator(options: "caps:swapescape")
        _ = try s.run("d:esc u:esc d:e t:600 u:e d:2 u:2")
        XCTAssertTrue(s.engine.services.keyboardContext.isCapsLockOn)
        XCTAssertEqual(s.application.text, "É")
        let caps = try simulator(options: "caps:swapescape")
        _ = try caps.run("d:capslock u:capslock d:e t:600 u:e d:2 u:2")
        XCTAssertFalse(caps.engine.services.keyboardContext.isCapsLockOn)
        XCTAssertEqual(caps.application.text, "é")
    }

    /// The standard map without a keymap (the built-in US layout) is the evdev default.
    func testBuiltInLayoutUsesTheStandardMap() {
        let map = USLayout().modifierMap
        XCTAssertEqual(map, .standard)
        XCTAssertEqual(map.modifierKeys, [.leftCtrl, .leftShift, .rightShift, .leftAlt, .rightCtrl, .rightAlt, .leftMeta, .rightMeta])
    }
}
