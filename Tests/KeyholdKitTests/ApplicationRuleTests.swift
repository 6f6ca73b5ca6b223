import KeyholdKit
import XCTest

/// Per-application rules (`[apps."GLOB"]`) and what the desktop says of the focused text field,
/// on the virtual clock: a game gets its keys as they come, a password field no picker, and a
/// focus change mid-hold or mid-callout leaves no key held and types nothing into the next window.
final class ApplicationRuleTests: XCTestCase {
    private func load(_ text: String) throws -> KeyholdConfiguration {
        try ConfigurationLoader.load(text: text, file: "test.toml")
    }

    private let game = ApplicationFocus(ids: ["supertux2"], textField: .none)
    private let editor = ApplicationFocus(ids: ["org.gnome.TextEditor"], textField: .normal)

    // MARK: The configuration

    func testRulesKeepTheFilesOrderAndEachSetting() throws {
        let c = try load("""
            [apps."xterm"]
            callouts = false
            [apps."*vim*"]
            bindings = { capslock = "escape" }
            [apps."org.*"]
            unicode_method = "compose"
            [apps."org.*".layers.nav]
            h = "key:left"
            """)
        XCTAssertEqual(c.apps.map(\.pattern), ["xterm", "*vim*", "org.*"])
        XCTAssertEqual(c.apps[0].callouts, false)
        XCTAssertNil(c.apps[0].bindings)
        XCTAssertEqual(c.apps[1].bindings?.binding(for: KeyCode(name: "capslock")!, in: .alphabetic)?.actions[.press], .escape)
        XCTAssertNil(c.apps[1].callouts)
        XCTAssertEqual(c.apps[2].unicodeMethod, .compose)
        XCTAssertEqual(c.apps[2].bindings?.binding(for: KeyCode(name: "h")!, in: KeyboardType(name: "nav"))?.actions[.press], .key(KeyCode(name: "left")!))
    }

    func testARulesErrorsNameTheFileLineAndKey() {
        let errors = ConfigurationLoader.validate(text: """
            [apps."xterm"]
            calouts = false
            [apps."foot"]
            unicode_method = "ctrl-shift-v"
            [apps."kitty"]
            callouts = "no"
            """, file: "test.toml")
        XCTAssertEqual(errors.map(\.description), [
            "test.toml:2: apps.xterm.calouts: unknown key (did you mean 'callouts'?)",
            "test.toml:4: apps.foot.unicode_method: unknown unicode method 'ctrl-shift-v' (one of auto, console, ctrl-shift-u, compose, session) (did you mean 'ctrl-shift-u'?)",
            "test.toml:6: apps.kitty.callouts: expected true or false, found a string",
        ])
    }

    // MARK: Matching

    func testTheFirstMatchingRuleWinsWithoutRegardToCaseOnAnyId() throws {
        let c = try load("""
            [apps."xterm"]
            callouts = false
            [apps."*term*"]
            unicode_method = "compose"
            """)
        let xterm = ApplicationSettings(configuration: c, focus: ApplicationFocus(ids: ["xterm", "XTerm"], textField: .terminal))
        XCTAssertEqual(xterm.rule, "apps.\"xterm\"")
        XCTAssertFalse(xterm.callouts)
        XCTAssertEqual(xterm.unicodeMethod, .auto, "the second rule does not add to the first")
        let uxterm = ApplicationSettings(configuration: c, focus: ApplicationFocus(ids: ["uxterm", "UXTerm"]))
        XCTAssertEqual(uxterm.rule, "apps.\"*term*\"")
        XCTAssertTrue(uxterm.callouts)
        XCTAssertEqual(uxterm.unicodeMethod, .compose)
        let byClass = ApplicationSettings(configuration: c, focus: ApplicationFocus(ids: ["someinstance", "XTERM"]))
        XCTAssertEqual(byClass.rule, "apps.\"xterm\"")
        let other = ApplicationSettings(configuration: c, focus: editor)
        XCTAssertNil(other.rule)
        XCTAssertEqual(other.reason, "the configuration")
        XCTAssertEqual(ApplicationSettings(configuration: c, focus: .unknown).rule, nil)
    }

    func testNoTextFieldForwardsEverythingAndAPasswordFieldHasNoCallouts() throws {
        let c = try load("""
            [apps."supertux2"]
            callouts = true
            [apps."pass*"]
            callouts = true
            """)
        let game = ApplicationSettings(configuration: c, focus: self.game)
        XCTAssertTrue(game.forwardsEverything)
        XCTAssertEqual(game.reason, "rule apps.\"supertux2\"; no text field: every key passes through")
        let password = ApplicationSettings(configuration: c, focus: ApplicationFocus(ids: ["passwords"], textField: .password))
        XCTAssertFalse(password.callouts, "no rule opens a picker in a password field")
        XCTAssertFalse(password.forwardsEverything)
        let unknown = ApplicationSettings(configuration: KeyholdConfiguration(), focus: .unknown)
        XCTAssertTrue(unknown.callouts)
        XCTAssertFalse(unknown.forwardsEverything)
        XCTAssertEqual(unknown.bindings, KeyholdConfiguration().bindings)
    }

    // MARK: The engine

    private func focus(_ simulator: Simulator, _ focus: ApplicationFocus, _ configuration: KeyholdConfiguration = KeyholdConfiguration()) {
        simulator.engine.focusChanged(to: ApplicationSettings(configuration: configuration, focus: focus))
    }

    func testAGameGetsAHeldKeyHeldForTheWholeSecond() throws {
        let simulator = Simulator()
        focus(simulator, game)
        try simulator.run("d:a t:1000 u:a")
        XCTAssertEqual(simulator.lines("out"), ["0ms a down", "1000ms a up"])
        XCTAssertEqual(simulator.calloutOpens, 0)
        XCTAssertEqual(simulator.lines("gesture"), [], "no gesture: the key is forwarded")
        // Back in a text field, the same key is Keyhold's again.
        focus(simulator, editor)
        try simulator.run("d:a t:600 u:a")
        XCTAssertEqual(simulator.calloutOpens, 1)
    }

    func testARuleWithoutCalloutsForwardsTheKeys() throws {
        let c = try load("""
            [apps."xterm"]
            callouts = false
            """)
        let simulator = Simulator(configuration: c)
        focus(simulator, ApplicationFocus(ids: ["xterm", "XTerm"], textField: .terminal), c)
        try simulator.run("d:e t:1000 u:e")
        XCTAssertEqual(simulator.lines("out"), ["0ms e down", "1000ms e up"])
        XCTAssertEqual(simulator.calloutOpens, 0)
    }

    func testARulesBindingsReplaceTheConfigurationsWhileItHasTheFocus() throws {
        let c = try load("""
            [bindings]
            capslock = "escape"
            [apps."*vim*"]
            bindings = { f1 = "text:ł" }
            """)
        let simulator = Simulator(configuration: c)
        focus(simulator, ApplicationFocus(ids: ["gvim"]), c)
        try simulator.run("d:f1 u:f1 d:capslock u:capslock")
        XCTAssertEqual(simulator.application.text, "ł")
        XCTAssertFalse(simulator.lines("out").contains { $0.hasSuffix("esc down") }, "[bindings] is not in force in vim")
        focus(simulator, editor, c)
        try simulator.run("d:capslock u:capslock")
        XCTAssertTrue(simulator.lines("out").contains { $0.hasSuffix("esc down") })
    }

    func testAPasswordFieldNeverOpensAPicker() throws {
        let simulator = Simulator()
        focus(simulator, ApplicationFocus(ids: ["seahorse"], textField: .password))
        try simulator.run("d:e t:1000 u:e")
        XCTAssertEqual(simulator.calloutOpens, 0)
        XCTAssertEqual(simulator.application.text, "e")
    }

    func testAFocusChangeMidHoldDropsTheLongPressAndLeavesNoKeyHeld() throws {
        let simulator = Simulator()
        focus(simulator, editor)
        try simulator.run("d:e t:300")
        focus(simulator, game)
        try simulator.run("t:700 u:e")
        XCTAssertEqual(simulator.calloutOpens, 0, "the long press belonged to the window that had the focus")
        XCTAssertEqual(simulator.application.text, "e", "typed once, on press")
        XCTAssertEqual(simulator.application.keyState.downKeys, [])
        // A forwarded key held into a text field goes up as it went down.
        try simulator.run("d:a t:100")
        focus(simulator, editor)
        try simulator.run("t:600 u:a")
        XCTAssertEqual(simulator.calloutOpens, 0)
        XCTAssertEqual(simulator.lines("out").suffix(2).map { String($0.split(separator: " ", maxSplits: 1)[1]) }, ["a down", "a up"])
        XCTAssertEqual(simulator.application.keyState.downKeys, [])
    }

    func testAFocusChangeClosesAnOpenCalloutKeepingWhatItShowsAndTypesNothingMore() throws {
        let simulator = Simulator()
        focus(simulator, editor)
        try simulator.run("d:e t:600 u:e t:50 d:right u:right")
        XCTAssertEqual(simulator.application.text, "è", "Right moved from the base to the first candidate")
        let outputs = simulator.lines("out").count
        focus(simulator, ApplicationFocus(ids: ["other"], textField: .normal))
        XCTAssertEqual(simulator.lines("callout").last?.hasSuffix("close è"), true)
        XCTAssertEqual(simulator.lines("out").count, outputs, "closing types nothing into the next window")
        try simulator.run("d:2 u:2")
        XCTAssertEqual(simulator.application.text, "è2", "2 is a digit again, not a pick")
        XCTAssertEqual(simulator.application.keyState.downKeys, [])
    }
}
