import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// The check on a real event loop and a real thread: it compiles the keymap off the loop's
/// thread and says on the loop whether the built-in tables type as the system's keymap.
final class KeymapCheckTests: XCTestCase {
    /// Runs the loop until the check reports (or 10 s pass: then nil).
    private func outcome(names: XKBNames, builtIn: XKBLayout.Tables) throws -> (KeymapCheck.Outcome?, pthread_t?) {
        let loop = try EventLoop()
        let timeout = try DeadlineTimer()
        timeout.arm(at: MonotonicClock.now() + 10_000)   // ms
        try loop.watch(timeout.fd) { loop.stop() }
        var result: KeymapCheck.Outcome?, thread: pthread_t?
        let check = KeymapCheck(names: names, builtIn: builtIn, watcher: loop) { outcome in
            result = outcome
            thread = pthread_self()
            loop.stop()
        }
        XCTAssertNotNil(check)
        try loop.run {}
        return (result, thread)
    }

    func testTheSystemsUSTypesAsTheBuiltInTables() throws {
        let builtIn = try XCTUnwrap(BuiltInKeymap.tables(for: XKBNames()))
        let (outcome, thread) = try outcome(names: XKBNames(), builtIn: builtIn)
        guard case .same = try XCTUnwrap(outcome) else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertEqual(thread.map { pthread_equal($0, pthread_self()) }, 1, "reported on the loop's thread")
    }

    /// Tables that differ in one key (as another xkb-data's could): the compiled layout comes back.
    func testADifferentKeymapComesBackCompiled() throws {
        var builtIn = try XCTUnwrap(BuiltInKeymap.tables(for: XKBNames()))
        builtIn.characters[0][Int(KeyCode.e.rawValue)] = "f"
        let (outcome, _) = try outcome(names: XKBNames(), builtIn: builtIn)
        guard case .differs(let compiled) = try XCTUnwrap(outcome) else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertEqual(compiled.character(for: .e, modifiers: []), "e")
        XCTAssertEqual(compiled.tables, BuiltInKeymap.tables(for: XKBNames()))
    }

    func testAKeymapThatDoesNotCompileIsReported() throws {
        let builtIn = try XCTUnwrap(BuiltInKeymap.tables(for: XKBNames()))
        let (outcome, _) = try outcome(names: XKBNames(layout: "no-such-layout"), builtIn: builtIn)
        guard case .failed(let error) = try XCTUnwrap(outcome) else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertTrue("\(error)".contains("no-such-layout"), "\(error)")
    }
}
