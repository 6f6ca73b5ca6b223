import KeyholdKit

/// What each `HapticFeedback` feels like on a rumble motor: one or two pulses, each a strong
/// (low-frequency) and weak (high-frequency) motor magnitude, a duration and a delay from the
/// start of the pattern. Each pulse is one uploaded FF_RUMBLE effect; a second pulse starts
/// through the kernel's `replay.delay`, so playing a pattern never sleeps.
///
/// Rumble motors need ~15–25 ms to be felt at all, so the shortest pulse is 15 ms; impacts grow
/// in magnitude and length from light to heavy; the notifications are two pulses (success
/// rising, warning two equal medium pulses, error two long full-strength pulses).
public struct HapticPattern: Hashable, Sendable {
    public struct Pulse: Hashable, Sendable {
        /// 0...0xFFFF: `ff_rumble_effect.strong_magnitude` and `weak_magnitude`.
        public var strong: UInt16
        public var weak: UInt16
        public var durationMilliseconds: UInt16
        /// From the start of the pattern (`ff_replay.delay`).
        public var delayMilliseconds: UInt16

        public init(strong: UInt16, weak: UInt16, durationMilliseconds: UInt16, delayMilliseconds: UInt16 = 0) {
            self.strong = strong; self.weak = weak
            self.durationMilliseconds = durationMilliseconds; self.delayMilliseconds = delayMilliseconds
        }
        public var magnitude: UInt16 { max(strong, weak) }
    }

    public var pulses: [Pulse]

    public init(_ pulses: [Pulse]) { self.pulses = pulses }

    /// From the start of the first pulse to the end of the last.
    public var totalMilliseconds: Int { pulses.map { Int($0.delayMilliseconds) + Int($0.durationMilliseconds) }.max() ?? 0 }
    public var peakMagnitude: UInt16 { pulses.map(\.magnitude).max() ?? 0 }

    public static func pattern(for feedback: HapticFeedback) -> HapticPattern? {
        table[feedback]
    }

    /// The standard table.
    public static let table: [HapticFeedback: HapticPattern] = [
        .selectionChanged: HapticPattern([Pulse(strong: 0, weak: 0x3000, durationMilliseconds: 15)]),
        .lightImpact: HapticPattern([Pulse(strong: 0x4000, weak: 0x2000, durationMilliseconds: 25)]),
        .mediumImpact: HapticPattern([Pulse(strong: 0x8000, weak: 0x4000, durationMilliseconds: 40)]),
        .heavyImpact: HapticPattern([Pulse(strong: 0xFFFF, weak: 0x8000, durationMilliseconds: 60)]),
        .success: HapticPattern([Pulse(strong: 0x3000, weak: 0x3000, durationMilliseconds: 30),
                                 Pulse(strong: 0x9000, weak: 0x6000, durationMilliseconds: 45, delayMilliseconds: 90)]),
        .warning: HapticPattern([Pulse(strong: 0x9000, weak: 0x5000, durationMilliseconds: 50),
                                 Pulse(strong: 0x9000, weak: 0x5000, durationMilliseconds: 50, delayMilliseconds: 120)]),
        .error: HapticPattern([Pulse(strong: 0xFFFF, weak: 0xA000, durationMilliseconds: 70),
                               Pulse(strong: 0xFFFF, weak: 0xA000, durationMilliseconds: 90, delayMilliseconds: 130)]),
    ]

    /// The order patterns are uploaded in: the ones key handling uses most first, so a device
    /// with few effect slots still has them.
    public static let uploadOrder: [HapticFeedback] = [
        .lightImpact, .mediumImpact, .selectionChanged, .heavyImpact, .success, .warning, .error,
    ]

    /// What to play instead when a pattern could not be uploaded (the device ran out of slots).
    public static func fallbacks(for feedback: HapticFeedback) -> [HapticFeedback] {
        switch feedback {
        case .error, .warning, .heavyImpact: return [.heavyImpact, .mediumImpact, .lightImpact]
        case .success, .mediumImpact: return [.mediumImpact, .lightImpact]
        case .selectionChanged, .lightImpact: return [.lightImpact]
        case .none: return []
        }
    }
}
