@testable import KeyholdKit
import KeyholdTestSupport
import XCTest

/// The engine remembers which keys have callouts (`CalloutMemo`) only while nothing that answer
/// depends on changes: each test changes one thing between two holds of x, which has no callouts
/// at first, and checks that the second hold opens a callout.
final class CalloutMemoTests: XCTestCase {
    /// Holds x for 600 ms (past the long press) and says whether a callout opened.
    private func holdX(_ engine: KeyholdEngine, at ms: Int64) -> Bool {
        engine.handle(KeyEvent(.x, .down, at: .milliseconds(ms)))
        engine.advance(to: .milliseconds(ms + 600))
        let opened = engine.services.calloutContext.isOpen
        engine.handle(KeyEvent(.x, .up, at: .milliseconds(ms + 600)))
        engine.handle(KeyEvent(.esc, .down, at: .milliseconds(ms + 650)))
        engine.handle(KeyEvent(.esc, .up, at: .milliseconds(ms + 700)))
        return opened
    }

    private var standard: (KeyholdEngine) -> StandardCalloutActionProvider {
        { $0.services.calloutActionProvider as! StandardCalloutActionProvider }
    }

    func testTheProvidersOwnCandidates() {
        let engine = KeyholdEngine(output: KeyEventRecorder())
        XCTAssertFalse(holdX(engine, at: 0), "x has no callouts")
        standard(engine).customCandidates["x"] = ["ẋ"]
        XCTAssertTrue(holdX(engine, at: 1_000), "x has the candidate added since")
        standard(engine).customCandidates = [:]
        XCTAssertFalse(holdX(engine, at: 2_000), "and none once it is removed")
    }

    func testTheLocale() {
        let engine = KeyholdEngine(output: KeyEventRecorder())
        standard(engine).localizedProviders.append(TableCalloutActionProvider(localeKey: "zz", table: ["x": ["ẋ"]]))
        XCTAssertFalse(holdX(engine, at: 0), "x has no callouts in en")
        engine.services.keyboardContext.locales = ["en", "zz"]
        engine.services.keyboardContext.locale = "zz"
        XCTAssertTrue(holdX(engine, at: 1_000), "x has callouts in zz")
        engine.services.keyboardContext.locales = ["en"]
        engine.services.keyboardContext.locale = "en"
        XCTAssertFalse(holdX(engine, at: 2_000), "and none back in en")
    }

    /// The US layout, with x typing e (which has callouts).
    final class XTypesE: KeyboardLayout {
        let us = USLayout()
        var name: String { "us(x-is-e)" }
        func keystroke(for character: Character) -> Keystroke? { us.keystroke(for: character) }
        func character(for key: KeyCode, modifiers: ModifierKeys) -> Character? {
            key == .x ? "e" : us.character(for: key, modifiers: modifiers)
        }
    }

    func testTheLayout() {
        let engine = KeyholdEngine(output: KeyEventRecorder())
        XCTAssertFalse(holdX(engine, at: 0))
        engine.services.layout = XTypesE()
        XCTAssertTrue(holdX(engine, at: 1_000), "x types e, which has callouts")
        engine.services.layout = USLayout()
        XCTAssertFalse(holdX(engine, at: 2_000))
    }

    /// The US layout, with Shift+x typing e.
    final class ShiftXTypesE: KeyboardLayout {
        let us = USLayout()
        var name: String { "us(shift-x-is-e)" }
        func keystroke(for character: Character) -> Keystroke? { us.keystroke(for: character) }
        func character(for key: KeyCode, modifiers: ModifierKeys) -> Character? {
            key == .x && modifiers.contains(.shift) ? "e" : us.character(for: key, modifiers: modifiers)
        }
    }

    /// Each Shift and Caps Lock state has its own answer.
    func testShiftAndCapsLock() {
        let engine = KeyholdEngine(output: KeyEventRecorder(), layout: ShiftXTypesE())
        XCTAssertFalse(holdX(engine, at: 0), "x")
        engine.handle(KeyEvent(.leftShift, .down, at: .milliseconds(1_000)))
        XCTAssertTrue(holdX(engine, at: 1_000), "Shift+x types e")
        engine.handle(KeyEvent(.leftShift, .up, at: .milliseconds(2_000)))
        XCTAssertFalse(holdX(engine, at: 2_000), "x again")
        engine.services.keyboardContext.isCapsLockOn = true
        XCTAssertTrue(holdX(engine, at: 3_000), "Caps Lock inverts Shift on a letter key: e")
        engine.services.keyboardContext.isCapsLockOn = false
        XCTAssertFalse(holdX(engine, at: 4_000))
    }

    /// A provider of another type may answer differently each time: it is asked on every press.
    final class Switchable: StandardCalloutActionProvider {
        var offers = false
        var asked = 0
        override func calloutActions(for action: KeyboardAction) -> [KeyboardAction] {
            asked += 1
            return offers && action == .character("x") ? [.character("ẋ")] : []
        }
    }

    func testAnotherProviderIsAskedEveryTime() {
        let engine = KeyholdEngine(output: KeyEventRecorder())
        let provider = Switchable()
        engine.services.calloutActionProvider = provider
        XCTAssertFalse(holdX(engine, at: 0))
        XCTAssertFalse(holdX(engine, at: 1_000))
        XCTAssertEqual(provider.asked, 2, "asked on each press of x")
        provider.offers = true
        XCTAssertTrue(holdX(engine, at: 2_000), "its new answer counts at once")
    }

    /// A standard provider put in place of another after keys were answered starts the memo
    /// over: x, which had no callouts, has them with the new provider's own candidates.
    func testAReplacedStandardProviderStartsOver() {
        let engine = KeyholdEngine(output: KeyEventRecorder())
        XCTAssertFalse(holdX(engine, at: 0))
        engine.services.calloutActionProvider = StandardCalloutActionProvider(
            keyboardContext: engine.services.keyboardContext, customCandidates: ["x": ["ẋ"]])
        XCTAssertTrue(holdX(engine, at: 1_000_000))
    }

    /// The standard provider's own memo answers again after each change it depends on.
    func testTheProvidersMemo() {
        let context = KeyboardContext(locales: ["en"])
        let provider = StandardCalloutActionProvider(keyboardContext: context)
        let x = KeyboardAction.character("x")
        XCTAssertEqual(provider.calloutActions(for: x), [])
        XCTAssertEqual(provider.calloutActions(for: x), [], "remembered")
        provider.customCandidates["x"] = ["ẋ"]
        XCTAssertEqual(provider.calloutActions(for: x), [.character("ẋ")])
        provider.customCandidates = [:]
        provider.localizedProviders.append(TableCalloutActionProvider(localeKey: "zz", table: ["x": ["x̂"]]))
        XCTAssertEqual(provider.calloutActions(for: x), [], "zz is not among the locales")
        context.locales = ["en", "zz"]
        XCTAssertEqual(provider.calloutActions(for: x), [.character("x̂")], "zz is")
        context.locales = ["en"]
        XCTAssertEqual(provider.calloutActions(for: .character("X")), [], "and is not again")
        provider.keyboardContext = KeyboardContext(locales: ["zz"])
        XCTAssertEqual(provider.calloutActions(for: .character("X")), [.character("X̂")], "another context")
    }

    /// A key whose character is whitespace is no letter (no callouts, no character feedback):
    /// the ASCII shortcut answers as `isWhitespace` does, for every ASCII character and CR LF.
    func testTheASCIIWhitespaceShortcutAgreesWithUnicode() {
        for value in UInt8(0)...0x7f {
            let character = Character(Unicode.Scalar(value))
            XCTAssertEqual(character.isWhitespaceFastASCII, character.isWhitespace, "U+\(String(value, radix: 16))")
        }
        for character: Character in ["\r\n", "\u{a0}", "\u{2003}", "é", "\u{85}"] {
            XCTAssertEqual(character.isWhitespaceFastASCII, character.isWhitespace, "\(character.unicodeScalars.map(\.value))")
        }
    }
}
