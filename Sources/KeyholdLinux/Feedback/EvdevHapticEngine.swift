import CEvdev
import Glibc
import KeyholdKit

/// Haptic feedback through evdev force feedback.
///
/// At start it scans the event nodes for one with EV_FF and FF_RUMBLE (the first whose name
/// matches the configured glob, or the first at all), opens it read-write and uploads one
/// FF_RUMBLE effect per pulse of every `HapticPattern` (EVIOCSFF, once). Playing is one
/// non-blocking write of EV_FF events; two-pulse patterns start their second pulse through the
/// effect's `replay.delay`, so nothing sleeps. No capable device: haptics are off, one log line.
/// A device that disappears (ENODEV) is dropped with one log line; `rescan()` looks again (for
/// a hotplug handler, not the input path: uploading waits for the driver).
///
/// Not thread-safe: use it from the thread that handles keys.
public final class EvdevHapticEngine: HapticFeedbackEngine {
    public struct Device: Hashable, Sendable {
        public var path: String
        public var name: String
        public var maximumEffects: Int
    }

    public enum Status: Hashable, Sendable {
        case active(Device)
        case off(reason: String)
    }

    public let devicePattern: String
    public let directory: String
    public private(set) var status: Status = .off(reason: "not scanned")
    /// The effect ids uploaded per pattern (one per pulse; fewer when the device ran out).
    public private(set) var effects: [HapticFeedback: [Int16]] = [:]
    /// Patterns played (written to the device) and plays that failed.
    public private(set) var playCount = 0
    public private(set) var failureCount = 0
    /// What the last scan saw, node by node.
    public private(set) var probes: [ForceFeedbackProbe] = []

    private let log: FeedbackLogger
    private var device: ForceFeedbackDevice?
    private var loggedErrors: Set<Int32> = []

    /// `devicePattern`: a name glob; "" takes the first device that can rumble.
    public init(devicePattern: String = "", directory: String = "/dev/input", log: @escaping FeedbackLogger = FeedbackLog.standard) {
        self.devicePattern = devicePattern
        self.directory = directory
        self.log = log
        rescan()
    }

    public convenience init(settings: KeyboardFeedbackSettings, log: @escaping FeedbackLogger = FeedbackLog.standard) {
        self.init(devicePattern: settings.hapticDevice, log: log)
    }

    public var isActive: Bool { device != nil }

    public func play(_ feedback: HapticFeedback) {
        guard let device, feedback != .none else { return }
        guard let ids = playableEffects(for: feedback) else { return }
        let error = device.play(ids)
        if error == 0 { playCount += 1; return }
        failureCount += 1
        if error == ENODEV || error == EBADF || error == EIO {
            drop("\"\(device.probe.name)\" (\(device.probe.path)) is gone: \(errorString(error)); haptics are off")
        } else if loggedErrors.insert(error).inserted {
            log(.warning, "haptics: playing on \"\(device.probe.name)\" failed: \(errorString(error))")
        }
    }

    /// The uploaded effects for a pattern, or those of its nearest uploaded fallback.
    func playableEffects(for feedback: HapticFeedback) -> [Int16]? {
        if let ids = effects[feedback], !ids.isEmpty { return ids }
        for other in HapticPattern.fallbacks(for: feedback) {
            if let ids = effects[other], !ids.isEmpty { return ids }
        }
        return nil
    }

    /// Looks for a device again (the current one, if any, is closed first, which frees its
    /// effects). Blocks while effects are uploaded.
    public func rescan() {
        device = nil
        effects = [:]
        loggedErrors = []
        probes = []
        var chosen: ForceFeedbackDevice?
        for path in ForceFeedbackDevice.eventNodes(in: directory) {
            let (candidate, p) = ForceFeedbackDevice.open(path)
            probes.append(p)
            if chosen == nil, let candidate, p.hasRumble, p.isWritable,
               devicePattern.isEmpty || Glob.matches(devicePattern, p.name) {
                chosen = candidate
            }
        }
        guard let chosen else {
            let reason = Self.whyNone(probes, pattern: devicePattern, directory: directory)
            status = .off(reason: reason)
            // a configured device that is not there deserves a warning; none to detect is normal
            log(devicePattern.isEmpty ? .info : .warning, "haptics: off: \(reason)")
            return
        }
        let uploadError = upload(to: chosen)
        guard !effects.isEmpty else {
            status = .off(reason: "\"\(chosen.probe.name)\" (\(chosen.probe.path)) accepted no rumble effect: \(errorString(uploadError))")
            if case .off(let reason) = status { log(.warning, "haptics: off: \(reason)") }
            return
        }
        device = chosen
        let p = chosen.probe
        status = .active(Device(path: p.path, name: p.name, maximumEffects: p.maximumEffects))
        let count = effects.values.reduce(0) { $0 + $1.count }
        let missing = HapticPattern.uploadOrder.filter { effects[$0] == nil }
        log(.info, "haptics: rumble on \"\(p.name)\" (\(p.path)): \(count) effects uploaded"
            + (missing.isEmpty ? "" : "; the device holds \(p.maximumEffects), so \(missing.map(\.rawValue).joined(separator: ", ")) use a similar pattern"))
    }

    /// Closes the device (its effects are freed with it).
    public func close() {
        device = nil
        effects = [:]
        status = .off(reason: "closed")
    }

    /// Uploads every pattern it can; the errno that stopped it, or 0.
    private func upload(to device: ForceFeedbackDevice) -> Int32 {
        var failure: Int32 = 0
        patterns: for feedback in HapticPattern.uploadOrder {
            guard let pattern = HapticPattern.pattern(for: feedback) else { continue }
            var ids: [Int16] = []
            for pulse in pattern.pulses {
                let id = device.upload(pulse)
                if id < 0 { failure = -id; break }
                ids.append(Int16(truncatingIfNeeded: id))
            }
            if !ids.isEmpty { effects[feedback] = ids }
            if failure != 0 { break patterns }
        }
        if failure != 0 && failure != ENOSPC && failure != ENOMEM {
            log(.debug, "haptics: uploading to \(device.probe.path) stopped: \(errorString(failure))")
        }
        return failure
    }

    private func drop(_ message: String) {
        device = nil
        effects = [:]
        status = .off(reason: message)
        log(.warning, "haptics: \(message)")
    }

    static func whyNone(_ probes: [ForceFeedbackProbe], pattern: String, directory: String) -> String {
        let opened = probes.filter { $0.openError == nil }
        if probes.isEmpty { return "no input devices in \(directory)" }
        if opened.isEmpty { return "cannot open any of \(probes.count) input devices (\(probes[0].openError ?? "?"))" }
        let named = pattern.isEmpty ? opened : opened.filter { Glob.matches(pattern, $0.name) }
        if !pattern.isEmpty && named.isEmpty { return "no input device named like \"\(pattern)\"" }
        if let locked = named.first(where: { $0.hasRumble && !$0.isWritable }) {
            return "\"\(locked.name)\" (\(locked.path)) can rumble but is not writable"
        }
        if !pattern.isEmpty {
            let list = named.prefix(3).map { "\"\($0.name)\"" }.joined(separator: ", ")
            return "\(list) matching \"\(pattern)\" cannot rumble (no EV_FF/FF_RUMBLE)"
        }
        return "no input device with force feedback (EV_FF/FF_RUMBLE) among \(opened.count)"
    }
}
