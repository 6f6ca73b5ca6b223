import Foundation
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import KeyholdTestSupport
import XCTest

/// The companions' hub with a real control server on its own `EventLoop` thread and the
/// companions as clients on a real socket; its output queue writes to a recorder on a virtual
/// clock.
final class CompanionHubTests: XCTestCase {
    private var directory = ""
    private var path: String { directory + "/control" }

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-hub-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw XCTSkip("mkdtemp failed") }
        directory = String(cString: dir)
    }

    override func tearDown() {
        if !directory.isEmpty { _ = try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A hello is answered and its companion types for its session: the desktop's keymap
    /// reported, a character handed over after the keys before it and acknowledged, one it could
    /// not type typed with its keys, a sound, a click on the picker; once it goes, nobody.
    func testACompanionTypesForTheSessionInFront() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }

        // Its requests are a companion's only (three refusals: a fourth would close it).
        let stranger = try ControlClient(path: path)
        for request: CompanionRequest in [.typed(id: 1, delivered: true), .pick(index: 1), .untyped(id: 1)] {
            XCTAssertEqual(try stranger.request(.companion(request))["error"]?.stringValue,
                           "not the session companion: send {\"cmd\":\"companion\"} first")
        }

        let client = try ControlClient(path: path)
        let hello = CompanionHello(backend: "x11", capabilities: [], note: "no picker")
        XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.hello(hello)))), .accepted)
        XCTAssertEqual(try rig.event(client), .locales(["en"]), "the callout locales, which name the picker's candidates")
        XCTAssertEqual(try rig.event(client), .active, "its session is in front: it counts the keys from here")
        XCTAssertEqual(rig.loop.sync { rig.hub.active?.hello }, hello)
        XCTAssertTrue(rig.loop.sync { rig.output.companion === rig.hub.active })
        XCTAssertEqual(rig.loop.sync { rig.hub.statusLine }, "keyhold-session pid \(getpid()) of uid \(getuid()) (x11): no picker")
        XCTAssertEqual(try client.request(.companion(.hello(hello)))["error"]?.stringValue, "already the companion")
        // What it cannot do changes (fcitx5's addon answers once fcitx5 has started): status says
        // so. (A status request, answered, orders the checks after the note.)
        try client.send(.companion(.note(nil)))
        XCTAssertNotNil(try client.request(.status)["ok"])
        XCTAssertEqual(rig.loop.sync { rig.hub.statusLine }, "keyhold-session pid \(getpid()) of uid \(getuid()) (x11)")
        try client.send(.companion(.note("fcitx5 does not answer")))
        XCTAssertNotNil(try client.request(.status)["ok"])
        XCTAssertEqual(rig.loop.sync { rig.hub.statusLine }, "keyhold-session pid \(getpid()) of uid \(getuid()) (x11): fcitx5 does not answer")

        // The desktop's keymap (a whole German one: a line far over 4 KiB) is the layout now.
        let keymap = try XCTUnwrap(XKBLayout.keymapText(for: XKBNames(layout: "de")))
        XCTAssertGreaterThan(keymap.utf8.count, ControlServer.maximumRequestBytes)
        let changes = rig.loop.sync { rig.changes }
        XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.keymap(keymap, temporaryKeycodes: [255, 254])))), .layout("German"))
        XCTAssertEqual(rig.loop.sync { rig.hub.layout?.layout.keystroke(for: "ä")?.key }, KeyCode(40), "ä is a key of the German keymap")
        XCTAssertGreaterThan(rig.loop.sync { rig.changes }, changes, "the daemon is told")
        guard case .error = try CompanionEvent(json: client.request(.companion(.keymap("xkb_keymap { nonsense", temporaryKeycodes: [])))) else {
            return XCTFail("a keymap that does not compile is refused")
        }

        // A character after two transitions: handed over once they have had time to arrive.
        let a = KeyCode(name: "a")!
        let writtenAt = rig.loop.sync { () -> Timestamp in
            rig.output.send(a, .down); rig.output.send(a, .up)
            rig.time = rig.time.adding(microseconds: 10_000)
            rig.output.handOff("é", fallback: [KeyTransition(a, .down)])
            rig.output.drain()
            return rig.time.adding(microseconds: -10_000)
        }
        XCTAssertEqual(try rig.event(client), .type(id: 1, after: 2, writtenAt: writtenAt.microseconds, text: "é"))
        try client.sendRaw(Array((CompanionRequest.waiting(id: 1).line + CompanionRequest.typed(id: 1, delivered: false).line
                                  + CompanionRequest.typed(id: 1, delivered: true).line).utf8))
        XCTAssertTrue(waitUntil(5) { rig.loop.sync { !rig.output.isAwaitingCompanion } }, "acknowledged")
        XCTAssertEqual(rig.loop.sync { rig.output.companionRoundTrip?.count }, 1)

        // One it cannot type: its keys go in its place.
        rig.loop.sync {
            rig.output.handOff("ß", fallback: [KeyTransition(a, .down), KeyTransition(a, .up)])
            rig.output.drain()
        }
        XCTAssertEqual(try rig.event(client), .type(id: 2, after: 0, writtenAt: nil, text: "ß"))
        try client.sendRaw(Array(CompanionRequest.untyped(id: 2).line.utf8))
        XCTAssertTrue(waitUntil(5) { rig.loop.sync { rig.written.events } == ["a down", "a up", "a down", "a up"] })

        // A sound for the session's sound server: its name, volume and the daemon's clock.
        let before = FeedbackClock.nanoseconds()
        XCTAssertTrue(rig.loop.sync { rig.hub.play(.system, volume: 0.25) })
        guard case .sound(.system, 0.25, let at) = try rig.event(client) else { return XCTFail("a sound event") }
        XCTAssertGreaterThanOrEqual(at, before)

        // The picker clicked on candidate 3, then a click elsewhere.
        try client.sendRaw(Array((CompanionRequest.pick(index: 3).line + CompanionRequest.dismiss.line).utf8))
        XCTAssertTrue(waitUntil(5) { rig.loop.sync { rig.picks == [3] && rig.dismissals == 1 } })
        // What has the focus there.
        try client.sendRaw(Array(CompanionRequest.focus(ApplicationFocus(ids: ["foot"], textField: .terminal)).line.utf8))
        XCTAssertTrue(waitUntil(5) { rig.loop.sync { rig.hub.focus.ids == ["foot"] } })
        // A reload that changes the callout locales says them again; one that does not, nothing.
        rig.loop.sync { rig.hub.systemConfiguration.callouts.timeoutMilliseconds += 1 }
        rig.loop.sync { rig.hub.systemConfiguration.callouts.locales = ["fr", "de"] }
        var event = try rig.event(client)
        while case .callout = event { event = try rig.event(client) }   // the picks' closes
        XCTAssertEqual(event, .locales(["fr", "de"]))

        shutdown(client.fd, Int32(SHUT_RDWR))
        XCTAssertTrue(waitUntil(5) { rig.loop.sync { rig.hub.companions.isEmpty } })
        XCTAssertNil(rig.loop.sync { rig.output.companion })
        XCTAssertEqual(rig.loop.sync { rig.hub.focus }, .unknown, "what it said has the focus goes with it")
        XCTAssertEqual(rig.loop.sync { rig.hub.layout?.layout.name }, "German", "the session's keymap is still the best knowledge of it")
        XCTAssertFalse(rig.loop.sync { rig.hub.play(.input, volume: 0.5) }, "no companion: the daemon plays the sound itself")
    }

    /// The companion in front gets the open callout with its content, its moves and its close. A
    /// second companion of the session taking over shows it as it is and the first hides it;
    /// another session coming in front closes it (the daemon is asked to), never hands it over.
    func testCalloutsFollowTheSessionInFront() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }
        let first = try ControlClient(path: path), second = try ControlClient(path: path)
        XCTAssertEqual(try CompanionEvent(json: first.request(.companion(.hello(CompanionHello(backend: "wayland"))))), .accepted)
        XCTAssertEqual(try rig.event(first), .locales(["en"]), "the callout locales, which name the picker's candidates")
        XCTAssertEqual(try rig.event(first), .active)
        let t = Timestamp(microseconds: 1_000_000)
        rig.loop.sync {
            rig.hub.record(.callout(.opened(base: "e", candidates: ["è", "é", "ê"]), t))
            rig.hub.record(.callout(.moved(index: 2, shown: "é"), t))
        }
        XCTAssertEqual(try rig.event(first), .callout(.opened(base: "e", candidates: ["è", "é", "ê"]), at: t))
        XCTAssertEqual(try rig.event(first), .callout(.moved(index: 2, shown: "é"), at: t))

        // A second companion of the session (the first restarted): it takes over.
        XCTAssertEqual(try CompanionEvent(json: second.request(.companion(.hello(CompanionHello(backend: "wayland"))))), .accepted)
        XCTAssertEqual(try rig.event(second), .locales(["en"]), "the callout locales, which name the picker's candidates")
        guard case .callout(.closed(text: "é"), _) = try rig.event(first) else { return XCTFail("the first hides the callout") }
        XCTAssertEqual(try rig.event(second), .active)
        XCTAssertEqual(try rig.event(second), .callout(.opened(base: "e", candidates: ["è", "é", "ê"]), at: t))
        XCTAssertEqual(try rig.event(second), .callout(.moved(index: 2, shown: "é"), at: t))
        XCTAssertEqual(rig.loop.sync { rig.dismissals }, 0, "the callout stays open")

        rig.loop.sync { rig.hub.record(.callout(.closed(text: "é"), t)) }
        XCTAssertEqual(try rig.event(second), .callout(.closed(text: "é"), at: t))

        // Another user's session comes in front while a callout is open: it closes there.
        rig.loop.sync { rig.hub.record(.callout(.opened(base: "a", candidates: ["à"]), t)) }
        XCTAssertEqual(try rig.event(second), .callout(.opened(base: "a", candidates: ["à"]), at: t))
        rig.loop.sync { rig.hub.target = OutputTarget(kind: .graphical, session: "9", uid: getuid() &+ 1, source: "test") }
        XCTAssertEqual(rig.loop.sync { rig.dismissals }, 1, "the daemon closes it")
        XCTAssertEqual(try rig.event(second), .callout(.closed(text: ""), at: t))
        XCTAssertNil(rig.loop.sync { rig.hub.active })
        XCTAssertNil(rig.loop.sync { rig.output.companion })
        // Back: it counts afresh, and nothing more went to the first.
        rig.loop.sync { rig.hub.target = HubRig.ownSession }
        XCTAssertEqual(try rig.event(second), .active)
        XCTAssertThrowsError(try first.readLine(timeout: 200))
    }

    /// The user's callout picks are taken from the companion in front only; `keyhold picks
    /// --clear` reaches the sender's companions and no one else's; a reload that changes the
    /// order says it.
    func testPicksComeFromTheCompanionInFrontAndAreForgottenForTheirUserOnly() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }
        let client = try rig.companionInFront()
        rig.loop.sync { rig.hub.systemConfiguration.callouts.order = .frequent }
        XCTAssertEqual(try rig.event(client), .locales(["en"], order: .frequent))

        try client.sendRaw(Array(CompanionRequest.picks(["é": 4, "ñ": 1]).line.utf8))
        XCTAssertTrue(waitUntil(5) { rig.loop.sync { rig.handedPicks } == [["é": 4, "ñ": 1]] })
        // Not in front (another user's session is): what it sends is not taken.
        rig.loop.sync { rig.hub.target = OutputTarget(kind: .graphical, session: "9", uid: getuid() &+ 1, source: "test") }
        try client.sendRaw(Array(CompanionRequest.picks(["ß": 9]).line.utf8))
        // (a request answered after it: the picks were read by then)
        XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.keymap("", temporaryKeycodes: []))))
                       , .error("this session is not in front of the seat now"))
        rig.loop.sync { rig.hub.forgetPicks(of: getuid() &+ 1) }   // the other user's: not this companion's
        rig.loop.sync { rig.hub.forgetPicks(of: getuid()) }
        XCTAssertEqual(try rig.event(client), .forgetPicks, "only its own user's forgetting reaches it")
        XCTAssertEqual(rig.loop.sync { rig.handedPicks }, [["é": 4, "ñ": 1]])
    }

    /// The companion in front hands over its user's personal settings: laid over the system's off
    /// the input thread, then in force (the companion told, the delegate too); an error leaves the
    /// system's in force and is said to the companion alone; another user in front takes them
    /// off; `keyhold reload` as a user reaches that user's companions only.
    func testPersonalSettingsAreLaidForTheUserInFrontOnly() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }
        let client = try rig.companionInFront()
        let file = "/home/ana/.config/keyhold/config.toml"
        let mine = "[gestures]\nlong_press_ms = 800\n[callouts]\nlocales = [\"pl\"]\n"

        let changes = rig.loop.sync { rig.changes }
        try client.sendRaw(Array(CompanionRequest.settings(file: file, text: mine).line.utf8))
        XCTAssertEqual(try rig.event(client), .locales(["pl"]), "its callout locales are in force")
        XCTAssertEqual(try rig.event(client), .settings(file: file, error: nil))
        XCTAssertEqual(rig.loop.sync { rig.hub.configuration.gestures.longPressDelay }, 800)
        XCTAssertGreaterThan(rig.loop.sync { rig.changes }, changes, "the daemon is told")
        XCTAssertEqual(rig.loop.sync { rig.hub.settingsLine }, "\(file) of uid \(getuid()), over the system's")

        // A broken file: the system's again, the error to the companion.
        try client.sendRaw(Array(CompanionRequest.settings(file: file, text: "[gestures]\nlong_pres_ms = 800\n").line.utf8))
        XCTAssertEqual(try rig.event(client), .locales(["en"]))
        XCTAssertEqual(try rig.event(client), .settings(file: file, error: "\(file):2: gestures.long_pres_ms: unknown key (did you mean 'long_press_ms'?)"))
        XCTAssertTrue(rig.loop.sync { rig.hub.configuration == rig.hub.systemConfiguration })
        XCTAssertEqual(rig.loop.sync { rig.hub.settingsLine }, "the system's (\(file) of uid \(getuid()) has an error)")

        // Valid again, and a reload of the system's file lays them over the new one.
        try client.sendRaw(Array(CompanionRequest.settings(file: file, text: mine).line.utf8))
        XCTAssertEqual(try rig.event(client), .locales(["pl"]))
        XCTAssertEqual(try rig.event(client), .settings(file: file, error: nil))
        rig.loop.sync { rig.hub.systemConfiguration.gestures.doubleTapInterval = 300 }
        XCTAssertEqual(try rig.event(client), .locales(["en"]), "the system's until they are laid again")
        XCTAssertEqual(try rig.event(client), .locales(["pl"]))
        XCTAssertEqual(try rig.event(client), .settings(file: file, error: nil))
        XCTAssertEqual(rig.loop.sync { rig.hub.configuration.gestures.doubleTapInterval }, 300)
        XCTAssertEqual(rig.loop.sync { rig.hub.configuration.gestures.longPressDelay }, 800)

        // Another user in front: the system's.
        rig.loop.sync { rig.hub.target = OutputTarget(kind: .graphical, session: "9", uid: getuid() &+ 1, source: "test") }
        XCTAssertTrue(rig.loop.sync { rig.hub.configuration == rig.hub.systemConfiguration })
        XCTAssertEqual(try rig.event(client), .locales(["en"]))
        XCTAssertEqual(rig.loop.sync { rig.hub.reloadSettings(of: getuid() &+ 1) }, 0)
        XCTAssertEqual(rig.loop.sync { rig.hub.reloadSettings(of: getuid()) }, 1)
        XCTAssertEqual(try rig.event(client), .reloadSettings)
        // What it sends while not in front is not laid (it sends them again as its session comes in front).
        try client.sendRaw(Array(CompanionRequest.settings(file: file, text: "[gestures]\nlong_press_ms = 700\n").line.utf8))
        XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.keymap("", temporaryKeycodes: [])))),
                       .error("this session is not in front of the seat now"))
        XCTAssertTrue(rig.loop.sync { rig.hub.configuration == rig.hub.systemConfiguration })
    }

    /// A batch's callout events go at its end: a pick (a move to the candidate, then the close,
    /// in one batch) is one event, the close, and it goes before the character picked.
    func testAPickIsItsCloseBeforeItsCharacter() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }
        let client = try ControlClient(path: path)
        XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.hello(CompanionHello(backend: "ibus", capabilities: [.commitsText]))))), .accepted)
        XCTAssertEqual(try rig.event(client), .locales(["en"]), "the callout locales, which name the picker's candidates")
        XCTAssertEqual(try rig.event(client), .active)
        let t = Timestamp(microseconds: 1_000_000)
        rig.loop.sync { rig.hub.record(.callout(.opened(base: "e", candidates: ["è", "é", "ê"]), t)) }
        XCTAssertEqual(try rig.event(client), .callout(.opened(base: "e", candidates: ["è", "é", "ê"]), at: t))
        rig.loop.sync {
            rig.hub.record(.callout(.moved(index: 1, shown: "è"), t))
            rig.hub.record(.callout(.moved(index: 2, shown: "é"), t))
            rig.hub.record(.callout(.closed(text: "é"), t))
            rig.output.handOff("é", fallback: [])
            rig.output.drain()
        }
        XCTAssertEqual(try rig.event(client), .callout(.closed(text: "é"), at: t), "no move before the close")
        guard case .type(_, _, _, "é") = try rig.event(client) else { return XCTFail("then the character") }
        // Arrows in a batch of their own: the last move only.
        rig.loop.sync { rig.hub.record(.callout(.opened(base: "a", candidates: ["à", "á"]), t)) }
        XCTAssertEqual(try rig.event(client), .callout(.opened(base: "a", candidates: ["à", "á"]), at: t))
        rig.loop.sync {
            rig.hub.record(.callout(.moved(index: 1, shown: "à"), t))
            rig.hub.record(.callout(.moved(index: 2, shown: "á"), t))
        }
        XCTAssertEqual(try rig.event(client), .callout(.moved(index: 2, shown: "á"), at: t))
        XCTAssertThrowsError(try client.readLine(timeout: 200), "and nothing else")
    }

    /// A companion that misses its deadline is dropped and the character typed with its keys; a
    /// second miss in a row benches its session: a companion connecting then is taken but not
    /// handed text until the bench is over.
    func testACompanionThatMissesItsDeadlinesIsDroppedThenBenched() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }
        let a = KeyCode(name: "a")!
        func connect() throws -> ControlClient {
            let client = try ControlClient(path: path)
            XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.hello(CompanionHello(backend: "x11"))))), .accepted)
            XCTAssertEqual(try rig.event(client), .locales(["en"]), "the callout locales, which name the picker's candidates")
            return client
        }
        func missOne(_ client: ControlClient) throws {
            XCTAssertEqual(try rig.event(client), .active)
            rig.loop.sync {
                rig.time = rig.time.adding(microseconds: rig.output.handOffSettleMicroseconds)   // after the last one's keys
                rig.output.handOff("é", fallback: [KeyTransition(a, .down)])
                rig.output.drain()
            }
            guard case .type = try rig.event(client) else { return XCTFail("a character to type") }
            rig.loop.sync {
                rig.time = rig.time.adding(microseconds: rig.output.acknowledgementTimeoutMicroseconds)
                rig.output.drain()
            }
        }
        let first = try connect()
        try missOne(first)
        XCTAssertEqual(try rig.event(first), .error("did not answer within 3000 ms; the daemon types its character itself"))
        XCTAssertNil(try first.readLine(timeout: 5_000), "dropped")
        XCTAssertEqual(rig.loop.sync { rig.written.events }, ["a down"], "its character typed with its keys")

        let second = try connect()
        try missOne(second)
        guard case .error(let why) = try rig.event(second), why.contains("session") || why.contains("uid"),
              why.contains("types without a companion for 30 s (2 missed in a row)") else { return XCTFail("benched") }
        XCTAssertNil(try second.readLine(timeout: 5_000))

        let third = try connect()
        XCTAssertNil(rig.loop.sync { rig.hub.active }, "taken, but not in front while its session is benched")
        XCTAssertTrue(rig.loop.sync { rig.hub.statusLine }.contains("its companions missed their deadlines; typing without one for"))
        rig.loop.sync {
            rig.time = rig.time.adding(microseconds: rig.output.handOffSettleMicroseconds)
            rig.output.handOff("ê", fallback: [KeyTransition(a, .up)])
            rig.output.drain()
        }
        XCTAssertEqual(rig.loop.sync { rig.written.events }, ["a down", "a down", "a up"], "typed at once, without it")
        XCTAssertThrowsError(try third.readLine(timeout: 200), "and nothing sent to it")
    }
}

/// What the companion and the daemon say to each other, line by line: each request and event
/// reads back as itself, and what is not one is refused.
final class CompanionProtocolTests: XCTestCase {
    func testEveryRequestAndEventRoundTrips() throws {
        let requests: [(CompanionRequest, String)] = [
            (.hello(CompanionHello(backend: "ibus", capabilities: [.commitsText], session: "2", note: "KWin did not start it")),
             #"{"cmd":"companion","backend":"ibus","capabilities":["commits-text"],"session":"2","note":"KWin did not start it"}"#),
            (.hello(CompanionHello(backend: "kwin", capabilities: [.commitsText, .restartedWhenGone])),
             #"{"cmd":"companion","backend":"kwin","capabilities":["commits-text","restarted-when-gone"]}"#),
            (.keymap("xkb_keymap {};", temporaryKeycodes: [255, 254]), #"{"cmd":"keymap","keymap":"xkb_keymap {};","temporary":[255,254]}"#),
            (.typed(id: 7, delivered: false), #"{"cmd":"typed","id":7,"delivered":false}"#),
            (.typed(id: 7, delivered: true), #"{"cmd":"typed","id":7}"#),
            (.untyped(id: 9), #"{"cmd":"untyped","id":9}"#),
            (.waiting(id: 9), #"{"cmd":"waiting","id":9}"#),
            (.pick(index: 3), #"{"cmd":"pick","index":3}"#),
            (.dismiss, #"{"cmd":"dismiss"}"#),
            (.focus(ApplicationFocus(ids: ["xterm", "XTerm"], textField: .terminal)), #"{"cmd":"focus","app":["xterm","XTerm"],"field":"terminal"}"#),
            (.picks(["é": 12, "ñ": 3, "ß": 3]), #"{"cmd":"picks","picks":{"é":12,"ß":3,"ñ":3}}"#),
            (.settings(file: "/home/ana/.config/keyhold/config.toml", text: "[gestures]\nlong_press_ms = 800\n"),
             #"{"cmd":"settings","file":"/home/ana/.config/keyhold/config.toml","text":"[gestures]\nlong_press_ms = 800\n"}"#),
            (.settings(file: "/home/ana/.config/keyhold/config.toml", text: nil), #"{"cmd":"settings","file":"/home/ana/.config/keyhold/config.toml"}"#),
            (.note("fcitx5 does not answer"), #"{"cmd":"note","note":"fcitx5 does not answer"}"#),
            (.note(nil), #"{"cmd":"note"}"#),
        ]
        for (request, line) in requests {
            XCTAssertEqual(request.line, line + "\n")
            XCTAssertEqual(try ControlRequest(line: Array(line.utf8)), .companion(request), line)
        }
        XCTAssertEqual(try ControlRequest(line: Array(#"{"cmd":"focus"}"#.utf8)), .companion(.focus(.unknown)))
        XCTAssertEqual(try ControlRequest(line: Array(#"{"cmd":"companion","backend":"x11","capabilities":["teleports"]}"#.utf8)),
                       .companion(.hello(CompanionHello(backend: "x11"))), "a capability this daemon does not know is left out")

        let t = Timestamp(microseconds: 1_500_000)
        let events: [(CompanionEvent, String)] = [
            (.accepted, #"{"ok":true,"companion":true}"#),
            (.layout("German"), #"{"ok":true,"layout":"German"}"#),
            (.error("no"), #"{"ok":false,"error":"no"}"#),
            (.type(id: 7, after: 12, writtenAt: 81_234_567, text: "é"), #"{"event":"type","id":7,"after":12,"written_at":81234567,"text":"é"}"#),
            (.type(id: 8, after: 0, writtenAt: nil, text: "ß"), #"{"event":"type","id":8,"after":0,"text":"ß"}"#),
            (.sound(.input, volume: 0.5, at: 81_234_567_000), #"{"event":"sound","sound":"input","volume":0.5,"at":81234567000}"#),
            (.callout(.opened(base: "e", candidates: ["è", "é", "ê"]), at: t),
             #"{"event":"callout","t":1500,"action":"open","index":0,"count":3,"base":"e","candidates":["è","é","ê"]}"#),
            (.callout(.moved(index: 2, shown: "é"), at: t), #"{"event":"callout","t":1500,"action":"move","index":2,"shown":"é"}"#),
            (.callout(.closed(text: "é"), at: t), #"{"event":"callout","t":1500,"action":"close","text":"é"}"#),
            (.active, #"{"event":"active"}"#),
            (.locales(["fr", "de-CH"]), #"{"event":"locales","locales":["fr","de-CH"]}"#),
            (.locales(["pl"], order: .frequent), #"{"event":"locales","locales":["pl"],"order":"frequent"}"#),
            (.forgetPicks, #"{"event":"forget-picks"}"#),
            (.reloadSettings, #"{"event":"reload-settings"}"#),
            (.settings(file: "/home/ana/.config/keyhold/config.toml", error: nil), #"{"event":"settings","file":"/home/ana/.config/keyhold/config.toml"}"#),
            (.settings(file: "/h/c.toml", error: "/h/c.toml:2: gestures.x: unknown key"),
             #"{"event":"settings","file":"/h/c.toml","error":"/h/c.toml:2: gestures.x: unknown key"}"#),
        ]
        for (event, line) in events {
            XCTAssertEqual(event.line, line + "\n")
            XCTAssertEqual(try CompanionEvent(line: Array(line.utf8)), event, line)
        }
    }

    func testWhatIsNotARequestOrAnEventIsRefused() {
        let refused = [
            #"{"cmd":"untyped","id":0}"#, #"{"cmd":"waiting","id":0}"#, #"{"cmd":"typed","id":-3}"#, #"{"cmd":"typed","id":1,"delivered":"no"}"#,
            #"{"cmd":"pick","index":-1}"#, #"{"cmd":"pick","index":1001}"#,
            #"{"cmd":"companion"}"#, #"{"cmd":"companion","backend":"ibus","note":3}"#,
            #"{"cmd":"companion","backend":"ibus","note":""# + String(repeating: "n", count: 401) + #""}"#,
            #"{"cmd":"companion","backend":"x11","session":"../2"}"#, #"{"cmd":"companion","backend":"x11","capabilities":[1]}"#,
            #"{"cmd":"keymap"}"#, #"{"cmd":"keymap","keymap":"x","temporary":[7]}"#,
            #"{"cmd":"focus","app":[1]}"#, #"{"cmd":"focus","app":["a","b","c","d","e"]}"#,
            #"{"cmd":"picks"}"#, #"{"cmd":"picks","picks":["é"]}"#, #"{"cmd":"picks","picks":{"é":0}}"#,
            #"{"cmd":"picks","picks":{"é":1000001}}"#, #"{"cmd":"picks","picks":{"":1}}"#,
            #"{"cmd":"picks","picks":{""# + String(repeating: "é", count: 17) + #"":1}}"#,
            #"{"cmd":"picks","picks":{"# + (0...CalloutPicks.capacity).map { #""\#($0)":1"# }.joined(separator: ",") + "}}",
            #"{"cmd":"settings"}"#, #"{"cmd":"settings","file":"config.toml"}"#, #"{"cmd":"settings","file":"/c.toml","text":3}"#,
            #"{"cmd":"settings","file":"/c.toml","text":""# + String(repeating: "#", count: ConfigurationLoader.maximumPersonalFileSize + 1) + #""}"#,
        ]
        for line in refused { XCTAssertThrowsError(try ControlRequest(line: Array(line.utf8)), line) }
        XCTAssertThrowsError(try ControlRequest(line: Array(#"{"cmd":"focus","app":["a"],"field":"secret"}"#.utf8))) {
            XCTAssertEqual(($0 as? ControlProtocolError)?.description,
                           "malformed request: \"field\" must be one of unknown, none, normal, password, terminal")
        }
        for line in [#"{"event":"type","text":"é"}"#, #"{"event":"type","id":1}"#, #"{"event":"sound","sound":"trumpet"}"#,
                     #"{"event":"callout","action":"spin"}"#, #"{"event":"explode"}"#, #"{}"#, "not json"] {
            XCTAssertThrowsError(try CompanionEvent(line: Array(line.utf8)), line)
        }
    }
}

/// A control server and the companions' hub on a loop thread of their own, as the daemon has
/// them: the output queue writes to a recorder and reads a virtual clock; the hub's target is the
/// test's own session unless a test moves it; the delegate records what the daemon is told, and
/// closes the callout when asked as the daemon's engine does.
final class HubRig: CompanionHubDelegate, @unchecked Sendable {
    /// A graphical session of the test's user, without logind.
    static let ownSession = OutputTarget(kind: .graphical, uid: getuid(), source: "test")

    let loop: LoopThread
    let admin = FakeHandler()   // (the server does not retain its handler)
    let server: ControlServer
    let output: OutputQueue
    let hub: CompanionHub
    let written = KeyEventRecorder()
    /// The output queue's clock.
    var time: Timestamp {
        get { clock.time }
        set { clock.time = newValue }
    }
    private final class Clock: @unchecked Sendable { var time = Timestamp.milliseconds(1_000) }
    private let clock = Clock()
    var changes = 0, picks: [Int] = [], dismissals = 0
    /// The callout picks companions handed over.
    var handedPicks: [[String: Int]] = []

    init(path: String, group: String? = nil, target: OutputTarget = HubRig.ownSession) throws {
        let loop = try LoopThread()
        self.loop = loop
        let admin = self.admin, written = self.written
        server = try loop.sync { try ControlServer(path: path, group: group, loop: loop.loop, handler: admin) }
        output = OutputQueue(sink: written, clock: { [clock] in clock.time })
        hub = loop.sync { [output, server] in
            let hub = CompanionHub(output: output, loop: loop.loop, configuration: KeyholdConfiguration())
            hub.serve(server)
            return hub
        }
        loop.sync {
            self.hub.delegate = self
            self.hub.target = target
        }
    }

    func stop() {
        loop.sync { self.server.shutdown() }
        loop.stop()
    }

    /// A companion of the test's session, taken and told it is in front (the first events read).
    func companionInFront() throws -> ControlClient {
        let client = try ControlClient(path: server.path)
        XCTAssertEqual(try CompanionEvent(json: client.request(.companion(.hello(CompanionHello(backend: "x11"))))), .accepted)
        XCTAssertEqual(try event(client), .locales(["en"]))
        XCTAssertEqual(try event(client), .active)
        return client
    }

    /// The next event the daemon sent `client`.
    func event(_ client: ControlClient, timeout: Int32 = 5_000) throws -> CompanionEvent {
        guard let line = try client.readLine(timeout: timeout) else { throw ControlClientError.closed }
        return try CompanionEvent(line: line)
    }

    func companionHubChanged(_ hub: CompanionHub) { changes += 1 }
    func companionHub(_ hub: CompanionHub, picked index: Int) { picks.append(index) }
    func companionHub(_ hub: CompanionHub, picks: [String: Int]) { handedPicks.append(picks) }
    func companionHubDismissedCallout(_ hub: CompanionHub) {
        dismissals += 1
        hub.record(.callout(.closed(text: ""), Timestamp(microseconds: 1_000_000)))
    }
}
