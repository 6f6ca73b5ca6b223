import CEvdev
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// `EventBatchDecoder` on the events of real reads, as the kernel queues them.
final class EventBatchDecoderTests: XCTestCase {
    private let x: UInt16 = 45, s: UInt16 = 31

    private func event(_ type: Int32, _ code: Int32, _ value: Int32, ms: Int = 0) -> input_event {
        var ev = input_event()
        ev.type = UInt16(type); ev.code = UInt16(code); ev.value = value
        ev.time.tv_sec = ms / 1000; ev.time.tv_usec = (ms % 1000) * 1000
        return ev
    }
    private func key(_ code: UInt16, _ value: Int32, ms: Int = 0) -> input_event { event(EV_KEY, Int32(code), value, ms: ms) }
    private var report: input_event { event(EV_SYN, SYN_REPORT, 0) }
    private var dropped: input_event { event(EV_SYN, SYN_DROPPED, 0) }

    private func decode(_ decoder: inout EventBatchDecoder, _ events: [input_event]) -> [DeviceEvent] {
        var out: [DeviceEvent] = []
        events.withUnsafeBufferPointer { decoder.decode($0) { out.append($0) } }
        return out
    }

    func testKeysAndFrameEndsPassInOrder() {
        var decoder = EventBatchDecoder()
        XCTAssertEqual(decode(&decoder, [event(EV_MSC, MSC_SCAN, 7), key(x, 1, ms: 5), report, key(x, 0, ms: 9), report]),
                       [.key(code: x, value: 1, time: Timestamp(microseconds: 5000)), .frameEnd,
                        .key(code: x, value: 0, time: Timestamp(microseconds: 9000)), .frameEnd])
    }

    /// The read that holds the end of a dropped stretch also holds a press after it, whose release
    /// is still in the kernel's queue: the state is asked only after that press is handed on, so
    /// a release the kernel flushes while answering is made up from the state (a key not left down).
    func testTheResyncComesAfterTheRestOfItsRead() {
        var decoder = EventBatchDecoder()
        XCTAssertEqual(decode(&decoder, [dropped, key(s, 0), report, key(x, 1, ms: 20), report]),
                       [.dropped, .key(code: x, value: 1, time: Timestamp(microseconds: 20_000)), .frameEnd, .resynced])
    }

    /// The events up to the SYN_REPORT after SYN_DROPPED are dropped, even when that SYN_REPORT
    /// comes in a later read; the resync comes at the end of that read.
    func testADroppedStretchAcrossTwoReads() {
        var decoder = EventBatchDecoder()
        XCTAssertEqual(decode(&decoder, [key(x, 1, ms: 1), report, dropped, key(s, 1)]),
                       [.key(code: x, value: 1, time: Timestamp(microseconds: 1000)), .frameEnd, .dropped])
        XCTAssertEqual(decode(&decoder, [key(s, 0), report, key(x, 0, ms: 30), report]),
                       [.key(code: x, value: 0, time: Timestamp(microseconds: 30_000)), .frameEnd, .resynced])
        XCTAssertEqual(decode(&decoder, [key(s, 1, ms: 40), report]),
                       [.key(code: s, value: 1, time: Timestamp(microseconds: 40_000)), .frameEnd], "no resync without a drop")
    }

    func testTwoDropsInOneReadResyncOnce() {
        var decoder = EventBatchDecoder()
        XCTAssertEqual(decode(&decoder, [dropped, report, key(x, 1), dropped, key(x, 0), report]),
                       [.dropped, .key(code: x, value: 1, time: Timestamp(microseconds: 0)), .dropped, .resynced])
    }
}
