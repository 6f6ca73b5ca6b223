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
