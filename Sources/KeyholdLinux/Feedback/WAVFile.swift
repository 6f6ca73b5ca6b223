/// RIFF WAVE with 16-bit PCM samples: custom feedback sounds are read with it, tests read what
/// ALSA's `file` plugin wrote with it.
public enum WAVFile {
    public enum DecodeError: Error, Equatable, CustomStringConvertible {
        case notRIFFWave
        case missingChunk(String)
        case unsupportedFormat(String)
        case unreadable(String)

        public var description: String {
            switch self {
            case .notRIFFWave: return "not a RIFF WAVE file"
            case .missingChunk(let id): return "no '\(id)' chunk"
            case .unsupportedFormat(let what): return "unsupported format: \(what) (use 16-bit PCM)"
            case .unreadable(let why): return why
            }
        }
    }

    /// Custom sounds larger than this are refused: feedback sounds are short.
    public static let maximumFileSize = 8 * 1_048_576

    /// Reads and decodes a file.
    public static func read(path: String) throws(DecodeError) -> AudioClip {
        let bytes: [UInt8]
        do { bytes = try readWholeFile(path, limit: maximumFileSize) } catch { throw .unreadable(error.description) }
        return try decode(bytes)
    }

    /// Decodes 16-bit PCM (format tag 1, or WAVE_FORMAT_EXTENSIBLE with the PCM subformat).
    /// A data chunk whose size is 0 or larger than the file (a stream still being written, as
    /// ALSA's file plugin leaves it until closed) is taken to run to the end of the file.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> AudioClip {
        guard bytes.count >= 12, tag(bytes, 0) == "RIFF", tag(bytes, 8) == "WAVE" else { throw .notRIFFWave }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int, subformat: Int?)?
        while offset + 8 <= bytes.count {
            let id = tag(bytes, offset)
            var size = Int(u32(bytes, offset + 4))
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16, body + 16 <= bytes.count else { throw .unsupportedFormat("short 'fmt ' chunk") }
                let formatTag = Int(u16(bytes, body))
                var sub: Int?
                if formatTag == 0xFFFE && size >= 40 && body + 26 <= bytes.count { sub = Int(u16(bytes, body + 24)) }
                format = (formatTag, Int(u16(bytes, body + 2)), Int(u32(bytes, body + 4)), Int(u16(bytes, body + 14)), sub)
            } else if id == "data" {
                guard let f = format else { throw .missingChunk("fmt ") }
                let pcm = f.tag == 1 || (f.tag == 0xFFFE && f.subformat == 1)
                guard pcm else { throw .unsupportedFormat("format tag \(f.tag)") }
                guard f.bits == 16 else { throw .unsupportedFormat("\(f.bits)-bit samples") }
                guard f.channels > 0, f.rate > 0 else { throw .unsupportedFormat("\(f.channels) channels at \(f.rate) Hz") }
                if size == 0 || body + size > bytes.count { size = bytes.count - body }
                let frameBytes = 2 * f.channels
                let count = (size / frameBytes) * f.channels
                var samples = [Int16](repeating: 0, count: count)
                for i in 0..<count {
                    samples[i] = Int16(bitPattern: u16(bytes, body + 2 * i))
                }
                return AudioClip(sampleRate: f.rate, channels: f.channels, samples: samples)
            }
            offset = body + size + (size & 1)
        }
        throw .missingChunk(format == nil ? "fmt " : "data")
    }

    /// A canonical 44-byte-header WAV file of the clip.
    public static func encode(_ clip: AudioClip) -> [UInt8] {
        let dataSize = clip.samples.count * 2
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataSize)
        func put(_ s: String) { out.append(contentsOf: Array(s.utf8)) }
        func put32(_ v: Int) { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func put16(_ v: Int) { for i in 0..<2 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        put("RIFF"); put32(36 + dataSize); put("WAVE")
        put("fmt "); put32(16); put16(1); put16(clip.channels); put32(clip.sampleRate)
        put32(clip.sampleRate * clip.channels * 2); put16(clip.channels * 2); put16(16)
        put("data"); put32(dataSize)
        for s in clip.samples { put16(Int(UInt16(bitPattern: s))) }
        return out
    }

    private static func tag(_ b: [UInt8], _ at: Int) -> String {
        guard at + 4 <= b.count else { return "" }
        return String(decoding: b[at..<at + 4], as: UTF8.self)
    }
    private static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
