import Glibc
import KeyholdKit

/// The three built-in sounds, synthesized in the spirit of KeyboardKit's system clicks: `input`
/// is a short bright tick, `delete` a lower, falling "thock", `system` a longer, rounder tock.
/// Each is rendered once per engine (sample rate, channels, volume) and never clips: the peak
/// is `headroom × volume` of full scale.
public enum FeedbackSounds {
    /// Peak level at volume 1, relative to full scale (0.8 = -1.9 dBFS).
    public static let headroom = 0.8

    /// One decaying sine partial, its frequency gliding linearly from `from` to `to` Hz.
    public struct Partial: Hashable, Sendable {
        public var from: Double, to: Double, amplitude: Double, decay: Double
    }

    /// How a sound is made: partials plus a high-passed noise transient, under an envelope with
    /// a short linear attack and a cosine release ending on zero.
    public struct Recipe: Hashable, Sendable {
        public var duration: Double
        public var partials: [Partial]
        public var noiseAmplitude: Double
        public var noiseDecay: Double
        public var attack: Double
        public var release: Double
    }

    public static func recipe(for feedback: AudioFeedback) -> Recipe? {
        switch feedback {
        case .input:
            return Recipe(duration: 0.010,
                          partials: [Partial(from: 3400, to: 3000, amplitude: 1, decay: 0.0018),
                                     Partial(from: 6800, to: 6000, amplitude: 0.3, decay: 0.0008)],
                          noiseAmplitude: 0.6, noiseDecay: 0.0006, attack: 0.0002, release: 0.002)
        case .delete:
            return Recipe(duration: 0.018,
                          partials: [Partial(from: 1500, to: 900, amplitude: 1, decay: 0.004),
                                     Partial(from: 3000, to: 1800, amplitude: 0.25, decay: 0.002)],
                          noiseAmplitude: 0.35, noiseDecay: 0.0008, attack: 0.0003, release: 0.003)
        case .system:
            return Recipe(duration: 0.028,
                          partials: [Partial(from: 760, to: 740, amplitude: 1, decay: 0.007),
                                     Partial(from: 1520, to: 1480, amplitude: 0.45, decay: 0.004),
                                     Partial(from: 2280, to: 2220, amplitude: 0.2, decay: 0.002)],
                          noiseAmplitude: 0.2, noiseDecay: 0.001, attack: 0.0005, release: 0.004)
        case .custom, .none:
            return nil
        }
    }

    /// The built-in sound for `feedback` (nil for `.custom` and `.none`), S16 at `sampleRate`,
    /// the same samples on every channel, peak `headroom × volume` of full scale.
    public static func render(_ feedback: AudioFeedback, sampleRate: Int = 48_000, channels: Int = 1,
                              volume: Double) -> AudioClip? {
        guard let recipe = recipe(for: feedback) else { return nil }
        let wave = synthesize(recipe, sampleRate: sampleRate, seed: seed(for: feedback))
        let peak = wave.reduce(0) { max($0, abs($1)) }
        let level = min(max(volume, 0), 1) * headroom * 32767
        let gain = peak > 0 ? level / peak : 0
        var samples = [Int16]()
        samples.reserveCapacity(wave.count * channels)
        for v in wave {
            let s = Int16(clamping: Int((v * gain).rounded()))
            for _ in 0..<channels { samples.append(s) }
        }
        return AudioClip(sampleRate: sampleRate, channels: channels, samples: samples)
    }

    static func synthesize(_ r: Recipe, sampleRate: Int, seed: UInt32) -> [Double] {
        let n = max(1, Int((r.duration * Double(sampleRate)).rounded()))
        let rate = Double(sampleRate)
        var out = [Double](repeating: 0, count: n)
        var phases = [Double](repeating: 0, count: r.partials.count)
        var state = seed, previousNoise = 0.0
        let attackFrames = max(1.0, r.attack * rate), releaseFrames = max(1.0, r.release * rate)
        for i in 0..<n {
            let t = Double(i) / rate
            var v = 0.0
            for (k, p) in r.partials.enumerated() {
                v += p.amplitude * exp(-t / p.decay) * sin(phases[k])
                let f = p.from + (p.to - p.from) * t / r.duration
                phases[k] += 2 * Double.pi * f / rate
            }
            // xorshift noise, first-differenced: a crisp, DC-free transient
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            let white = Double(state) / Double(UInt32.max) * 2 - 1
            v += r.noiseAmplitude * exp(-t / r.noiseDecay) * (white - previousNoise) / 2
            previousNoise = white
            // envelope: linear attack, cosine release to exactly zero on the last frame
            let fromEnd = Double(n - 1 - i)
            var env = min(1, Double(i + 1) / attackFrames)
            if fromEnd < releaseFrames { env *= 0.5 - 0.5 * cos(Double.pi * fromEnd / releaseFrames) }
            out[i] = v * env
        }
        return out
    }

    private static func seed(for feedback: AudioFeedback) -> UInt32 {
        switch feedback {
        case .input: return 0x9E37_79B9
        case .delete: return 0x85EB_CA6B
        default: return 0xC2B2_AE35
        }
    }
}
