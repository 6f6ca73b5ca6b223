import Glibc

/// Signed 16-bit PCM, interleaved: what the audio engine writes to ALSA (S16 in native order,
/// little-endian on every platform Keyhold targets).
public struct AudioClip: Hashable, Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var samples: [Int16]

    public init(sampleRate: Int, channels: Int, samples: [Int16]) {
        precondition(sampleRate > 0 && channels > 0, "AudioClip needs a positive rate and channel count")
        self.sampleRate = sampleRate; self.channels = channels; self.samples = samples
    }

    public var frameCount: Int { samples.count / channels }
    /// Seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
    /// The largest absolute sample value (32768 would be a clipped -full scale).
    public var peak: Int { samples.reduce(0) { max($0, abs(Int($1))) } }
    /// Peak relative to full scale (32767), in dBFS; -inf for silence.
    public var peakDBFS: Double { peak == 0 ? -.infinity : 20 * log10(Double(peak) / 32767) }
    /// Root mean square of all samples, relative to full scale.
    public var rms: Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / 32767
    }

    /// The clip in another format: channels mixed down to mono (average) and spread to the
    /// target channel count, the rate changed by linear interpolation.
    public func converted(sampleRate targetRate: Int, channels targetChannels: Int) -> AudioClip {
        if targetRate == sampleRate && targetChannels == channels { return self }
        // mono, as Double
        let frames = frameCount
        var mono = [Double](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum = 0.0
            for c in 0..<channels { sum += Double(samples[f * channels + c]) }
            mono[f] = sum / Double(channels)
        }
        if targetRate != sampleRate && frames > 0 {
            let outFrames = max(1, Int((Double(frames) * Double(targetRate) / Double(sampleRate)).rounded()))
            let step = Double(sampleRate) / Double(targetRate)
            var resampled = [Double](repeating: 0, count: outFrames)
            for i in 0..<outFrames {
                let x = Double(i) * step
                let i0 = min(Int(x), frames - 1), i1 = min(i0 + 1, frames - 1)
                let t = x - Double(i0)
                resampled[i] = mono[i0] * (1 - t) + mono[i1] * t
            }
            mono = resampled
        }
        var out = [Int16]()
        out.reserveCapacity(mono.count * targetChannels)
        for v in mono {
            let s = Int16(clamping: Int(v.rounded()))
            for _ in 0..<targetChannels { out.append(s) }
        }
        return AudioClip(sampleRate: targetRate, channels: targetChannels, samples: out)
    }

    /// Every sample multiplied by `gain` (0...1), rounded; never wraps.
    public func scaled(by gain: Double) -> AudioClip {
        let g = min(max(gain, 0), 1)
        var copy = self
        copy.samples = samples.map { Int16(clamping: Int((Double($0) * g).rounded())) }
        return copy
    }
}
