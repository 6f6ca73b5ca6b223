import CEvdev
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// The haptic engine's parts that need no device (this host has no uinput): the pattern table,
/// capability bitmap parsing, ioctl numbers, and "no device" handling. The real upload and
/// play run in the guest (Tests/e2e/feedback-e2e.sh).
final class HapticEngineTests: XCTestCase {
    func testEveryFeedbackHasADistinctPattern() {
        let kinds = HapticFeedback.allCases.filter { $0 != .none }
        XCTAssertNil(HapticPattern.pattern(for: .none))
        XCTAssertEqual(Set(HapticPattern.uploadOrder), Set(kinds), "every pattern is uploaded")
        XCTAssertEqual(HapticPattern.uploadOrder.count, kinds.count)
        var seen: [HapticPattern: HapticFeedback] = [:]
        for kind in kinds {
            guard let pattern = HapticPattern.pattern(for: kind) else { XCTFail("\(kind) has no pattern"); continue }
            if let other = seen[pattern] { XCTFail("\(kind) feels like \(other)") }
            seen[pattern] = kind
            XCTAssertFalse(pattern.pulses.isEmpty)
            for pulse in pattern.pulses {
                XCTAssertGreaterThanOrEqual(pulse.durationMilliseconds, 15, "\(kind): a motor needs ~15 ms to be felt")
                XCTAssertLessThanOrEqual(pulse.durationMilliseconds, 100, "\(kind): feedback is short")
                XCTAssertGreaterThan(pulse.magnitude, 0)
            }
            // pulses are in order and do not overlap: the second starts after the first ended
            for (a, b) in zip(pattern.pulses, pattern.pulses.dropFirst()) {
                XCTAssertGreaterThan(b.delayMilliseconds, a.delayMilliseconds + a.durationMilliseconds, "\(kind)")
            }
            XCTAssertEqual(pattern.pulses.first?.delayMilliseconds, 0)
            XCTAssertLessThanOrEqual(pattern.totalMilliseconds, 300)
            let shape = pattern.pulses.map { "\($0.delayMilliseconds > 0 ? "+\($0.delayMilliseconds) " : "")\($0.durationMilliseconds) ms \($0.strong)/\($0.weak)" }
            print("HapticEngineTests: pattern \(kind.rawValue) = \(shape.joined(separator: ", then ")) (total \(pattern.totalMilliseconds) ms)")
        }
        // impacts grow in magnitude and duration; a selection change is the lightest tick
        let order: [HapticFeedback] = [.selectionChanged, .lightImpact, .mediumImpact, .heavyImpact]
        for (a, b) in zip(order, order.dropFirst()) {
            let pa = HapticPattern.pattern(for: a)!, pb = HapticPattern.pattern(for: b)!
            XCTAssertLessThan(pa.peakMagnitude, pb.peakMagnitude, "\(a) < \(b) in magnitude")
            XCTAssertLessThan(pa.totalMilliseconds, pb.totalMilliseconds, "\(a) < \(b) in duration")
            XCTAssertEqual(pa.pulses.count, 1)
        }
        // notifications are two pulses, told apart by magnitude and timing
        for kind in [HapticFeedback.success, .warning, .error] {
            XCTAssertEqual(HapticPattern.pattern(for: kind)!.pulses.count, 2, "\(kind)")
        }
        let success = HapticPattern.pattern(for: .success)!, error = HapticPattern.pattern(for: .error)!
        XCTAssertLessThan(success.pulses[0].magnitude, success.pulses[1].magnitude, "success rises")
        XCTAssertEqual(error.peakMagnitude, 0xFFFF, "error is the strongest")
        XCTAssertGreaterThan(error.totalMilliseconds, HapticPattern.pattern(for: .warning)!.totalMilliseconds)
        // 10 effects in all: fits devices holding 16 (most gamepads)
        XCTAssertLessThanOrEqual(kinds.reduce(0) { $0 + HapticPattern.pattern(for: $1)!.pulses.count }, 16)
    }

    func testFallbacksEndAtAnImpactUploadedEarly() {
        for kind in HapticFeedback.allCases where kind != .none {
            let chain = HapticPattern.fallbacks(for: kind)
            XCTAssertEqual(chain.last, .lightImpact, "\(kind): the first pattern uploaded is the last resort")
        }
        XCTAssertEqual(HapticPattern.uploadOrder.first, .lightImpact)
    }

    // MARK: capability bits

    func testRumbleBitIsInTheSecondWord() {
        XCTAssertEqual(EvdevBitmap.ffRumble, Int(FF_RUMBLE))
        XCTAssertEqual(EvdevBitmap.evFF, Int(EV_FF))
        XCTAssertEqual(EvdevBitmap.ffMax, Int(FF_MAX))
        XCTAssertEqual(EvdevBitmap.wordCount(bits: EvdevBitmap.ffMax + 1), 128 / UInt.bitWidth)

        // a typical gamepad: FF_RUMBLE (80), FF_PERIODIC (81), FF_GAIN (96) and waveforms 88..93
        var words = [UInt](repeating: 0, count: 128 / UInt.bitWidth)
        for bit in [80, 81, 88, 89, 90, 96] { words[bit / UInt.bitWidth] |= UInt(1) << UInt(bit % UInt.bitWidth) }
        XCTAssertTrue(EvdevBitmap.isSet(80, in: words))
        XCTAssertTrue(EvdevBitmap.isSet(96, in: words))
        XCTAssertFalse(EvdevBitmap.isSet(82, in: words), "FF_CONSTANT is not set")
        XCTAssertFalse(EvdevBitmap.isSet(16, in: words), "80 mod 64 in the first word is not FF_RUMBLE")
        if UInt.bitWidth == 64 {
            XCTAssertEqual(words[0], 0, "nothing below 64")
            XCTAssertEqual(words[1], 1 << 16 | 1 << 17 | 1 << 24 | 1 << 25 | 1 << 26 | 1 << 32)
        }

        // only the first word filled (the classic mistake): no rumble
        XCTAssertFalse(EvdevBitmap.isSet(80, in: [UInt.max]))
        XCTAssertFalse(EvdevBitmap.isSet(80, in: [UInt.max, 0]))
        XCTAssertFalse(EvdevBitmap.isSet(80, in: []))
        XCTAssertFalse(EvdevBitmap.isSet(-1, in: [UInt.max]))
        // a device with only FF_PERIODIC (81): not rumble
        var periodic = [UInt](repeating: 0, count: 128 / UInt.bitWidth)
        periodic[81 / UInt.bitWidth] |= UInt(1) << UInt(81 % UInt.bitWidth)
        XCTAssertFalse(EvdevBitmap.isSet(80, in: periodic))

        // the byte view (what ffdemo.c reads): bit 80 is byte 10, bit 0
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes[10] = 0x01
        XCTAssertTrue(EvdevBitmap.isSet(80, inBytes: bytes))
        XCTAssertFalse(EvdevBitmap.isSet(80, inBytes: [UInt8](repeating: 0xFF, count: 8)))
        // on a little-endian host both views agree, bit for bit
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        for _ in 0..<50 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let w = [UInt(truncatingIfNeeded: state), UInt(truncatingIfNeeded: state >> 7 ^ state << 3)]
            let b = w.withUnsafeBytes { Array($0) }
            for bit in 0..<(w.count * UInt.bitWidth) {
                XCTAssertEqual(EvdevBitmap.isSet(bit, in: w), EvdevBitmap.isSet(bit, inBytes: b))
            }
        }
    }

    func testIoctlNumbers() {
        XCTAssertEqual(MemoryLayout<input_event>.stride, 24)
        #if arch(x86_64) || arch(arm64)
        XCTAssertEqual(MemoryLayout<ff_effect>.size, 48)
        XCTAssertEqual(EvdevIoctl.uploadEffect, 0x4030_4580)   // EVIOCSFF
        #endif
        XCTAssertEqual(EvdevIoctl.removeEffect, 0x4004_4581)   // EVIOCRMFF
        XCTAssertEqual(EvdevIoctl.getEffects, 0x8004_4584)     // EVIOCGEFFECTS
        XCTAssertEqual(EvdevIoctl.getBit(Int(EV_FF), length: 16), 0x8010_4535)
        XCTAssertEqual(EvdevIoctl.getBit(0, length: 8), 0x8008_4520)
        XCTAssertEqual(EvdevIoctl.getName(length: 255), 0x80FF_4506)
    }

    // MARK: no device

    func testNoDeviceMeansHapticsOffWithOneLogLine() throws {
        let dir = "/tmp/keyhold-haptic-tests.\(getpid())"
        mkdir(dir, 0o700)
        defer { unlink(dir + "/event0"); unlink(dir + "/event10"); unlink(dir + "/event2"); rmdir(dir) }

        let log = FeedbackLogCollector()
        let empty = EvdevHapticEngine(directory: dir, log: log.logger)
        XCTAssertFalse(empty.isActive)
        guard case .off(let reason) = empty.status else { return XCTFail("active?") }
        XCTAssertEqual(log.count, 1, "one log line")
        XCTAssertTrue(reason.contains("no input devices"), reason)
        for kind in HapticFeedback.allCases { empty.play(kind) }   // nothing happens, nothing logged
        XCTAssertEqual(empty.playCount, 0)
        XCTAssertEqual(log.count, 1)

        // nodes that are not input devices: opened, but the ioctls find nothing
        for name in ["event10", "event2", "event0"] {
            let fd = open(dir + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            close(fd)
        }
        let log2 = FeedbackLogCollector()
        let plain = EvdevHapticEngine(directory: dir, log: log2.logger)
        XCTAssertEqual(plain.probes.map(\.path), [dir + "/event0", dir + "/event2", dir + "/event10"], "numeric order")
        XCTAssertTrue(plain.probes.allSatisfy { !$0.hasForceFeedback && !$0.hasRumble })
        guard case .off(let reason2) = plain.status else { return XCTFail("active?") }
        XCTAssertTrue(reason2.contains("no input device with force feedback"), reason2)
        XCTAssertEqual(log2.count, 1)
        print("HapticEngineTests: \(log2.lines.first ?? "")")

        let log3 = FeedbackLogCollector()
        let named = EvdevHapticEngine(devicePattern: "Xbox*", directory: dir, log: log3.logger)
        guard case .off(let reason3) = named.status else { return XCTFail("active?") }
        XCTAssertEqual(reason3, "no input device named like \"Xbox*\"")
        XCTAssertEqual(log3.count, 1)

        // the real /dev/input of this host (none, or devices without FF): off, no crash
        let log4 = FeedbackLogCollector()
        let host = EvdevHapticEngine(log: log4.logger)
        print("HapticEngineTests: this host: \(host.status)")
        host.play(.heavyImpact)
        XCTAssertEqual(log4.count, 1)
    }

    func testFactoryHonoursTheSwitches() {
        var settings = KeyboardFeedbackSettings()
        settings.isAudioEnabled = false
        settings.isHapticEnabled = false
        XCTAssertTrue(LinuxFeedbackEngines.audio(for: settings) is SilentAudioEngine)
        XCTAssertTrue(LinuxFeedbackEngines.haptic(for: settings) is SilentHapticEngine)
        settings.isHapticEnabled = true
        settings.hapticDevice = "no device is called this*"
        let log = FeedbackLogCollector()
        XCTAssertTrue(LinuxFeedbackEngines.haptic(for: settings, log: log.logger) is EvdevHapticEngine)
        XCTAssertEqual(log.count, 1)
    }
}
