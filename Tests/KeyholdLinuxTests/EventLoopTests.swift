import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// The loop on real descriptors (a socket pair), run on the test's thread until a handler stops it.
final class EventLoopTests: XCTestCase {
    private var pair: [Int32] = [-1, -1]

    override func setUpWithError() throws {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        XCTAssertEqual(socketpair(AF_UNIX, type, 0, &pair), 0)
    }

    override func tearDown() { for fd in pair where fd >= 0 { close(fd) } }

    func testWritableInterestIsReportedOnlyWhileAsked() throws {
        let loop = try EventLoop()
        var seen: [String] = []
        var token: EventLoop.Token = 0
        token = try loop.watch(pair[0], for: .readable) { events in
            if events.contains(.writable) {
                seen.append("writable")
                loop.change(token, to: .readable)   // nothing more to write: stop asking
                XCTAssertEqual(send(self.pair[1], "x", 1, 0), 1)
            }
            if events.contains(.readable) {
                var byte: UInt8 = 0
                XCTAssertEqual(read(self.pair[0], &byte, 1), 1)
                seen.append("readable")
                loop.stop()
            }
        }
        loop.change(token, to: [.readable, .writable])
        var batches = 0
        try loop.run { batches += 1 }
        XCTAssertEqual(seen, ["writable", "readable"], "writable once, then only input")
        XCTAssertEqual(batches, 2)
    }

    /// The daemon queues the rest of its start before the loop runs: it runs in the first turn,
    /// though no descriptor is ready (here: none until a timer 2 s away).
    func testWorkQueuedBeforeRunDoesNotWaitForAnEvent() throws {
        let loop = try EventLoop()
        let timer = try DeadlineTimer()
        timer.arm(at: MonotonicClock.now() + 2_000)
        var order: [String] = []
        try loop.watch(timer.fd) { order.append("timer"); loop.stop() }
        loop.afterBatch { order.append("queued before run"); loop.stop() }
        var batches = 0
        try loop.run { batches += 1 }
        XCTAssertEqual(order, ["queued before run"], "ran before any event")
        XCTAssertEqual(batches, 2, "the batch hook, then again after the work")
    }

    /// The batch hook runs again after the work: what the work changed (a companion's answer that
    /// lets the output queue go on) is written and its deadline armed in the same turn. Once it
    /// was not: a key went down, its release waited for an event that did not come, and the
    /// desktop repeated the key.
    func testWorkQueuedForTheEndOfABatchRunsBetweenTwoBatchHooks() throws {
        let loop = try EventLoop()
        var order: [String] = []
        try loop.watch(pair[0]) {
            var byte: UInt8 = 0
            _ = read(self.pair[0], &byte, 1)
            order.append("handler")
            loop.afterBatch { order.append("deferred") }
            loop.stop()
        }
        XCTAssertEqual(send(pair[1], "x", 1, 0), 1)
        try loop.run { order.append("batch end") }
        XCTAssertEqual(order, ["handler", "batch end", "deferred", "batch end"])
    }

    /// Work queued by queued work waits for the next turn, and what is ready by then goes first:
    /// a key pressed while the daemon's start runs one step waits for that step only.
    func testWorkQueuedByQueuedWorkRunsAfterTheInputReadyMeanwhile() throws {
        let loop = try EventLoop()
        var order: [String] = []
        try loop.watch(pair[0]) {
            var byte: UInt8 = 0
            _ = read(self.pair[0], &byte, 1)
            order.append("key")
        }
        loop.afterBatch {
            order.append("step 1")
            XCTAssertEqual(send(self.pair[1], "x", 1, 0), 1)   // a key pressed during step 1
            loop.afterBatch {
                order.append("step 2")
                loop.afterBatch { order.append("step 3"); loop.stop() }
            }
        }
        var batches = 0
        try loop.run { batches += 1 }
        XCTAssertEqual(order, ["step 1", "key", "step 2", "step 3"])
        XCTAssertEqual(batches, 6, "one turn per step, none waiting for an event, each with the hook before and after its step")
    }

    func testAnUnwatchedTokenFindsNothingEvenWhenItsSlotIsReused() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        let first = try loop.watch(pair[0]) { fired.append("old") }
        loop.unwatch(first)
        let second = try loop.watch(pair[0]) {
            var byte: UInt8 = 0
            _ = read(self.pair[0], &byte, 1)
            fired.append("new")
            loop.stop()
        }
        XCTAssertNotEqual(first, second)
        loop.change(first, to: [.readable, .writable])   // stale: must not touch the new watch
        loop.unwatch(first)
        XCTAssertEqual(send(pair[1], "x", 1, 0), 1)
        try loop.run {}
        XCTAssertEqual(fired, ["new"])
    }
}
