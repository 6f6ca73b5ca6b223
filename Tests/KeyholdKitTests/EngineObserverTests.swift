import KeyholdKit
import XCTest

/// The engine publishes its trace to any number of observers: a library user's own never
/// displaces the monitor's or the picker's.
final class EngineObserverTests: XCTestCase {
    final class Collector: EngineObserver {
        var entries: [TraceEntry] = []
        func record(_ entry: TraceEntry) { entries.append(entry) }
    }

    /// The simulator's trace without the `out` lines its own output recorder adds: what the
    /// engine published.
    private func published(_ simulator: Simulator) -> [TraceEntry] {
        simulator.trace.filter { if case .output = $0 { return false } else { return true } }
    }

    func testEveryObserverSeesTheWholeTraceInOrder() throws {
        let simulator = Simulator()   // observes the engine itself
        let first = Collector(), second = Collector()
        simulator.engine.addObserver(first)
        simulator.engine.addObserver(second)
        simulator.engine.addObserver(first)   // once only
        try simulator.run("d:e t:600 u:e t:50 d:2 t:30 u:2")
        XCTAssertEqual(simulator.application.text, "é")
        XCTAssertFalse(first.entries.isEmpty)
        XCTAssertEqual(first.entries, published(simulator))
        XCTAssertEqual(second.entries, published(simulator))
        XCTAssertTrue(first.entries.contains { if case .callout(.opened, _) = $0 { return true } else { return false } })
    }

    func testARemovedObserverHearsNoMoreAndTheOthersGoOn() throws {
        let simulator = Simulator()
        let kept = Collector(), removed = Collector()
        simulator.engine.addObserver(kept)
        simulator.engine.addObserver(removed)
        try simulator.run("d:a u:a")
        let before = removed.entries.count
        simulator.engine.removeObserver(removed)
        try simulator.run("d:b u:b")
        XCTAssertEqual(removed.entries.count, before)
        XCTAssertEqual(kept.entries, published(simulator))
        XCTAssertEqual(simulator.application.text, "ab")
    }

    /// An observer that wants no keys (the control socket with no `keyhold monitor`) gets the
    /// callouts only, and no key builds an entry for it; once it wants them it gets every one.
    func testAnObserverOfCalloutsOnlyGetsKeysWhenItAsks() throws {
        final class CalloutWatcher: EngineObserver {
            var entries: [TraceEntry] = []
            var recordsKeys = false
            func record(_ entry: TraceEntry) { entries.append(entry) }
        }
        let simulator = Simulator(recordsTrace: false)
        let watcher = CalloutWatcher()
        simulator.engine.addObserver(watcher)
        try simulator.run("d:x u:x d:e t:600 u:e t:50 d:2 t:30 u:2")
        XCTAssertEqual(simulator.application.text, "xé")
        XCTAssertEqual(watcher.entries.map(\.description), ["500ms callout open e 1è 2é 3ê 4ë 5ē 6ė 7ę", "650ms callout move 2 é",
                                                             "650ms callout close é"])
        watcher.recordsKeys = true
        simulator.engine.observersChanged()
        try simulator.run("d:a u:a")
        XCTAssertEqual(watcher.entries.count, 3 + 4, "in and forward, for the press and the release")
        simulator.recordsTrace = true
        try simulator.run("d:b u:b")
        XCTAssertEqual(simulator.trace.count, 4 + 2, "the simulator's own, with the two keys it typed")
    }

    func testObserversAreHeldWeakly() throws {
        let simulator = Simulator()
        weak var gone: Collector?
        do {
            let temporary = Collector()
            gone = temporary
            simulator.engine.addObserver(temporary)
        }
        XCTAssertNil(gone)
        try simulator.run("d:a u:a")
        XCTAssertEqual(simulator.application.text, "a")
    }
}
