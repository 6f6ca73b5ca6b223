@testable import KeyholdKit
import XCTest

/// The engine has shortcuts of its own for the standard services (`StandardWiring`, `CalloutMemo`
/// and the provider's memo, `hasStandardBehavior`), and a subclass, as KeyboardKit users write,
/// runs the services' open methods instead: the two must do the same. Every case of
/// `Tests/Fixtures/simulate` is run with the standard classes and with no-override subclasses
/// (each alone, which turns off one recognition, then all of them), as `keyhold simulate` runs it
/// and as the daemon does; each run must give what the standard classes give under simulate.
final class FastPathEquivalenceTests: XCTestCase {
    /// The runs besides the reference (the standard classes as simulate runs them): the standard
    /// classes as the daemon runs them, then each subclass alone and all together, both ways.
    static let paths: [(subclassed: Set<StandardService>, drive: SimulationFixture.Drive)] =
        [([], .daemon)] + (StandardService.allCases.map { [$0] } + [Set(StandardService.allCases)])
            .flatMap { subclassed in [(subclassed, .simulate), (subclassed, .daemon)] }

    func testEveryFixtureGivesTheSameWithTheStandardClassesAndWithSubclasses() throws {
        let fixtures = try SimulationFixture.all(in: SimulationFixture.directory)
        XCTAssertFalse(fixtures.isEmpty, "no fixture in \(SimulationFixture.directory.path)")
        for fixture in fixtures {
            let setup: SimulationFixture.Setup
            do { setup = try fixture.setup() } catch { XCTFail("\(fixture.name): \(error)"); continue }
            let standard = setup.run()
            for path in Self.paths {
                let name = "\(Self.name(path.subclassed)), \(path.drive.rawValue)"
                let outcome = setup.run(subclassing: path.subclassed, drive: path.drive)
                var parts: [(String, [String], [String])] = [
                    ("text", [SimulationFixture.quote(standard.text)], [SimulationFixture.quote(outcome.text)]),
                    ("held keys", standard.held, outcome.held), ("key events", standard.events, outcome.events),
                    ("feedback", standard.feedback, outcome.feedback),
                ]
                if path.drive == .simulate { parts.append(("trace", standard.trace, outcome.trace)) }
                let differences = parts.compactMap { part, expected, got in
                    Self.firstDifference(expected, got, names: (Self.reference, name)).map { "\(part), first at \($0)" }
                }
                if !differences.isEmpty {
                    XCTFail("\(fixture.name): \(name) differs from \(Self.reference):\n" + differences.joined(separator: "\n"))
                }
                // Both ways must be what the case says, not only the same.
                if path.subclassed.count == StandardService.allCases.count && path.drive == .simulate {
                    for mismatch in fixture.mismatches(in: outcome) { XCTFail("\(fixture.name), \(name): \(mismatch)") }
                }
            }
        }
    }

    /// Each no-override subclass turns off the shortcut that recognizes its class, so the runs
    /// above do take the open path; with the standard classes every shortcut is on. (Nothing
    /// recognizes the feedback handler or the contexts: they are subclassed all the same.)
    func testEachSubclassTurnsOffTheShortcutThatRecognizesItsClass() throws {
        func services(subclassing subclassed: Set<StandardService>) -> KeyboardServices {
            let services = KeyboardServices(output: SimulatedApplication())
            StandardService.install(subclassed, in: services)
            return services
        }
        let standard = services(subclassing: [])
        XCTAssertNotNil(StandardWiring(standard).gestureHandler)
        XCTAssertTrue(StandardWiring(standard).typeOnOneKey(ascii: UInt8(ascii: "a"), capsLock: false))
        XCTAssertTrue(Self.calloutMemoRemembers(standard))

        let handler = services(subclassing: [.actionHandler])
        XCTAssertFalse(try XCTUnwrap(handler.actionHandler as? StandardKeyboardActionHandler).hasStandardBehavior)
        XCTAssertNil(StandardWiring(handler).gestureHandler, "the engine runs a subclassed handler's gestures itself")

        let controller = services(subclassing: [.keyboardController])
        XCTAssertFalse(StandardWiring(controller).typeOnOneKey(ascii: UInt8(ascii: "a"), capsLock: false),
                       "the engine types through a subclassed controller's typeOnOneKey")

        for subclassed in [StandardService.calloutActionProvider, .localizedProviders] {
            let provider = services(subclassing: [subclassed])
            XCTAssertFalse(try XCTUnwrap(provider.calloutActionProvider as? StandardCalloutActionProvider).refreshMemo(),
                           "the provider keeps its memo with subclassed \(subclassed.rawValue)")
            XCTAssertFalse(Self.calloutMemoRemembers(provider), "the engine's memo remembers with subclassed \(subclassed.rawValue)")
        }
    }

    /// Whether the engine's `CalloutMemo` answers from memory for these services' provider.
    static func calloutMemoRemembers(_ services: KeyboardServices) -> Bool {
        var memo = CalloutMemo()
        _ = memo.answer(for: .a, state: 0, services: services)
        memo.remember(.character("a"), for: .a, state: 0)
        if case .some = memo.answer(for: .a, state: 0, services: services) { return true }
        return false
    }

    /// The run every other is compared with.
    static let reference = "the standard classes, as simulate runs it"

    static func name(_ subclassed: Set<StandardService>) -> String {
        switch subclassed.count {
        case 0: return "the standard classes"
        case StandardService.allCases.count: return "every class subclassed"
        default: return "subclassed " + subclassed.sorted().map(\.rawValue).joined(separator: ", ")
        }
    }

    /// Where two runs' lines first part (`line N`), with the line before and each run's line
    /// there; nil when they are the same.
    static func firstDifference(_ expected: [String], _ got: [String], names: (String, String)) -> String? {
        guard expected != got else { return nil }
        let at = zip(expected, got).prefix { $0 == $1 }.count
        func line(_ lines: [String]) -> String { at < lines.count ? lines[at] : "(nothing: it ends there)" }
        var text = "line \(at + 1) (of \(expected.count) and \(got.count)):"
        if at > 0 { text += "\n    after: \(expected[at - 1])" }
        return text + "\n    \(names.0): \(line(expected))\n    \(names.1): \(line(got))"
    }
}
