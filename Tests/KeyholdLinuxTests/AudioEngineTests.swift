import Glibc
import KeyholdKit
@testable import KeyholdLinux
import KeyholdTestSupport
import XCTest

/// The ALSA engine against ALSA's `file` plugin: this host has no sound card, so named PCMs
/// defined in an extra configuration (ALSA_CONFIG_PATH, set before the first ALSA call) write
/// exactly what was played into WAV files, which the tests parse.
final class AudioEngineTests: XCTestCase {
    /// Per-process directory with the extra ALSA configuration and the WAV files.
    nonisolated(unsafe) static var directory = ""
    nonisolated(unsafe) static var nextDevice = 0
    static let deviceCount = 32

    override class func setUp() {
        super.setUp()
        directory = "/tmp/keyhold-audio-tests.\(getpid())"
        mkdir(directory, 0o700)
        var conf = "# written by AudioEngineTests\n"
        for i in 0..<deviceCount {
            conf += "pcm.keyhold_test_\(i) { type file slave.pcm \"null\" file \"\(directory)/out\(i).wav\" format \"wav\" }\n"
        }
        // A desktop machine's ALSA: `default` a sound server's client the service cannot reach
        // (here: a card that does not exist), the card's own default (`sysdefault`) a file.
        conf += "pcm.!default { type hw card 31 }\n"
        conf += "pcm.!sysdefault { type file slave.pcm \"null\" file \"\(directory)/sysdefault.wav\" format \"wav\" }\n"
        let path = directory + "/extra.conf"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = conf.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        // ALSA reads this on its first use in the process (and again whenever it changes)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:" + path, 1)
    }

    override class func tearDown() {
        for i in 0..<deviceCount { unlink("\(directory)/out\(i).wav") }
        for name in ["extra.conf", "custom.wav", "loud.wav", "bad.wav", "sysdefault.wav"] { unlink("\(directory)/\(name)") }
        rmdir(directory)
        super.tearDown()
    }

    /// A fresh file PCM: its name and the WAV it writes.
    private func fileDevice() -> (name: String, wav: String) {
        let i = Self.nextDevice
        Self.nextDevice += 1
        precondition(i < Self.deviceCount, "add more test PCMs")
        let wav = "\(Self.directory)/out\(i).wav"
        unlink(wav)
        return ("keyhold_test_\(i)", wav)
    }

    private func engine(_ device: String, volume: Double = 0.5, log: FeedbackLogCollector = FeedbackLogCollector(),
                        retry: Double = 5, preload: [String] = [],
                        onFirstFrame: (@Sendable (ALSAAudioEngine.Playback) -> Void)? = nil) -> ALSAAudioEngine {
        ALSAAudioEngine(options: .init(device: device, volume: volume, retryInterval: retry, preload: preload),
                        log: log.logger, onFirstFrame: onFirstFrame)
    }

    private func readWAV(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> AudioClip {
        do { return try WAVFile.read(path: path) } catch {
            XCTFail("\(path): \(error)", file: file, line: line)
            throw error
        }
    }

    // MARK: sounds

    /// `audio_device = "default"` is the sound card's own default for the daemon: it plays
    /// where ALSA's `default` belongs to a desktop sound server it cannot reach.
    func testTheDaemonsDefaultIsTheSoundCardsNotTheSoundServers() throws {
        let wav = Self.directory + "/sysdefault.wav"
        unlink(wav)
        var settings = KeyboardFeedbackSettings()
        XCTAssertEqual(settings.audioDevice, "default")
        settings.audioVolume = 0.5
        let log = FeedbackLogCollector()
        let daemon = ALSAAudioEngine(options: .init(settings: settings), log: log.logger)
        guard case .open(let format) = daemon.status else { return XCTFail("not open: \(daemon.status)") }
        XCTAssertEqual(format.device, "sysdefault")
        daemon.play(.input)
        XCTAssertTrue(daemon.waitUntilIdle(timeout: 5))
        daemon.close()
        XCTAssertEqual(log.warnings, [])
        let out = try readWAV(wav)
        XCTAssertEqual(out.samples, FeedbackSounds.render(.input, sampleRate: out.sampleRate, channels: out.channels, volume: 0.5)!.samples)
        // The same name elsewhere (the companion's, `keyhold feedback test --audio-device`) is ALSA's.
        XCTAssertEqual(ALSAAudioEngine.daemonDevice("hw:0,0"), "hw:0,0")
        let direct = engine("default", log: FeedbackLogCollector())
        if case .open = direct.status { XCTFail("ALSA's default is the unreachable one in this configuration") }
        direct.close()
    }

    func testEachSoundIsDistinctNonSilentAndOfExpectedLength() throws {
        let (name, wav) = fileDevice()
        let log = FeedbackLogCollector()
        let engine = engine(name, volume: 0.5, log: log)
        guard case .open(let format) = engine.status else { return XCTFail("not open: \(engine.status)") }
        XCTAssertEqual(format.sampleRate, 48_000)
        XCTAssertEqual(format.channels, 1)
        print("AudioEngineTests: device \(name): \(format)")
        let kinds: [AudioFeedback] = [.input, .delete, .system]
        for kind in kinds {
            engine.play(kind)
            XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
        }
        engine.close()
        let stats = engine.statistics
        XCTAssertEqual(stats.requested, 3)
        XCTAssertEqual(stats.started, 3)
        XCTAssertEqual(stats.completed, 3)
        XCTAssertEqual(stats.opens, 1, "the PCM is opened once")
        XCTAssertEqual(log.warnings, [])

        let out = try readWAV(wav)
        XCTAssertEqual(out.sampleRate, 48_000)
        XCTAssertEqual(out.channels, 1)
        let expected = kinds.map { FeedbackSounds.render($0, sampleRate: 48_000, channels: 1, volume: 0.5)! }
        XCTAssertEqual(out.frameCount, expected.reduce(0) { $0 + $1.frameCount }, "the WAV holds the three sounds back to back")
        var offset = 0
        var pieces: [AudioClip] = []
        for (kind, reference) in zip(kinds, expected) {
            let piece = AudioClip(sampleRate: out.sampleRate, channels: 1,
                                  samples: Array(out.samples[offset..<min(out.samples.count, offset + reference.frameCount)]))
            offset += reference.frameCount
            pieces.append(piece)
            let ms = piece.duration * 1000
            print("AudioEngineTests: \(kind.configString): \(piece.frameCount) frames = \(formatFixed(ms, decimals: 1)) ms, "
                  + "peak \(piece.peak) (\(formatFixed(piece.peakDBFS, decimals: 1)) dBFS), rms \(formatFixed(piece.rms, decimals: 4)), "
                  + "zero crossings \(zeroCrossings(piece))")
            XCTAssertEqual(piece.samples, reference.samples, "\(kind): ALSA got exactly the rendered sound")
            XCTAssertGreaterThanOrEqual(ms, 3, "\(kind) is a few ms at least")
            XCTAssertLessThanOrEqual(ms, 35, "\(kind) is short")
            XCTAssertGreaterThan(piece.rms, 0.01, "\(kind) is not silent")
            XCTAssertLessThan(piece.peak, 32767, "\(kind) does not clip")
            XCTAssertEqual(piece.samples.last, 0, "\(kind) ends on zero (no pop)")
        }
        // distinct: lengths, pitch (zero crossings per second) and envelope all differ
        for i in 0..<pieces.count {
            for j in (i + 1)..<pieces.count {
                XCTAssertNotEqual(pieces[i].frameCount, pieces[j].frameCount)
                let ri = Double(zeroCrossings(pieces[i])) / pieces[i].duration
                let rj = Double(zeroCrossings(pieces[j])) / pieces[j].duration
                XCTAssertGreaterThan(abs(ri - rj) / max(ri, rj), 0.2, "\(kinds[i]) and \(kinds[j]) differ in pitch")
            }
        }
        // input is the highest and shortest, system the lowest and longest
        XCTAssertLessThan(pieces[0].frameCount, pieces[1].frameCount)
        XCTAssertLessThan(pieces[1].frameCount, pieces[2].frameCount)
    }

    func testVolumeScalesAmplitude() throws {
        var peaks: [Double: Int] = [:]
        for volume in [0.25, 0.5, 1.0] {
            let (name, wav) = fileDevice()
            let engine = engine(name, volume: volume)
            engine.play(.delete)
            XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
            engine.close()
            let out = try readWAV(wav)
            XCTAssertEqual(out.frameCount, FeedbackSounds.render(.delete, volume: volume)!.frameCount)
            peaks[volume] = out.peak
            print("AudioEngineTests: volume \(volume): delete peak \(out.peak) (\(formatFixed(out.peakDBFS, decimals: 1)) dBFS), rms \(formatFixed(out.rms, decimals: 4))")
        }
        let full = Double(peaks[1.0]!)
        XCTAssertEqual(full, (FeedbackSounds.headroom * 32767).rounded(), accuracy: 1)
        XCTAssertEqual(Double(peaks[0.5]!), full * 0.5, accuracy: 1.5)
        XCTAssertEqual(Double(peaks[0.25]!), full * 0.25, accuracy: 1.5)
        // volume 0 renders silence; the rendered sounds scale linearly for every kind
        for kind in [AudioFeedback.input, .delete, .system] {
            XCTAssertEqual(FeedbackSounds.render(kind, volume: 0)!.peak, 0)
            let loud = FeedbackSounds.render(kind, volume: 0.8)!, quiet = FeedbackSounds.render(kind, volume: 0.2)!
            XCTAssertEqual(Double(quiet.peak) * 4, Double(loud.peak), accuracy: 4)
            XCTAssertEqual(quiet.rms * 4, loud.rms, accuracy: 0.002)
        }
    }

    func testPeakNeverClips() {
        for rate in [8_000, 22_050, 44_100, 48_000, 96_000] {
            for step in 0...20 {
                let volume = Double(step) / 20
                for kind in [AudioFeedback.input, .delete, .system] {
                    let clip = FeedbackSounds.render(kind, sampleRate: rate, channels: 2, volume: volume)!
                    XCTAssertLessThanOrEqual(clip.peak, Int((FeedbackSounds.headroom * 32767).rounded()),
                                             "\(kind) at \(rate) Hz, volume \(volume)")
                    XCTAssertFalse(clip.samples.contains(.max) || clip.samples.contains(.min))
                }
            }
        }
        // volume above 1 or below 0 is clamped
        XCTAssertEqual(FeedbackSounds.render(.input, volume: 7)!.peak, FeedbackSounds.render(.input, volume: 1)!.peak)
        XCTAssertEqual(FeedbackSounds.render(.input, volume: -1)!.peak, 0)
        // a full-scale custom sound is scaled, never wrapped
        let loud = AudioClip(sampleRate: 44_100, channels: 1, samples: [32767, -32768, 32767, -32768])
        XCTAssertLessThanOrEqual(loud.converted(sampleRate: 48_000, channels: 2).scaled(by: 1).peak, 32768)
        XCTAssertEqual(loud.scaled(by: 0.5).peak, 16384)
    }

    // MARK: never blocking

    func testBurstOf200PlaysReturnsQuicklyAndLatestWins() throws {
        let (name, wav) = fileDevice()
        let engine = engine(name)
        let kinds: [AudioFeedback] = [.input, .delete, .system]
        var slowest: UInt64 = 0
        let t0 = FeedbackClock.nanoseconds()
        for i in 0..<200 {
            let c0 = FeedbackClock.nanoseconds()
            engine.play(kinds[i % 3])
            slowest = max(slowest, FeedbackClock.nanoseconds() - c0)
        }
        let total = FeedbackClock.nanoseconds() - t0
        XCTAssertTrue(engine.waitUntilIdle(timeout: 10), "the audio thread works through the burst")
        let drained = FeedbackClock.nanoseconds() - t0
        let stats = engine.statistics
        print("AudioEngineTests: 200 play() calls took \(formatFixed(Double(total) / 1000, decimals: 1)) µs "
              + "(\(formatFixed(Double(total) / 200, decimals: 0)) ns per call, slowest \(formatFixed(Double(slowest) / 1000, decimals: 1)) µs); "
              + "idle after \(formatFixed(Double(drained) / 1e6, decimals: 2)) ms; started \(stats.started), replaced \(stats.replaced), "
              + "dropped \(stats.dropped), interrupted \(stats.interrupted), completed \(stats.completed)")
        XCTAssertEqual(stats.requested, 200)
        XCTAssertEqual(stats.started + stats.replaced + stats.dropped, 200, "every request is accounted for")
        XCTAssertEqual(stats.dropped, 0, "the device was there")
        XCTAssertGreaterThanOrEqual(stats.started, 1)
        XCTAssertEqual(stats.lastPlayback?.feedback, kinds[199 % 3], "the latest sound wins")
        XCTAssertEqual(stats.completed + stats.interrupted, stats.started)
        // still usable after the burst
        engine.play(.system)
        XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
        XCTAssertEqual(engine.statistics.started, stats.started + 1)
        engine.close()
        let out = try readWAV(wav)
        XCTAssertGreaterThan(out.frameCount, 0)
        XCTAssertLessThanOrEqual(out.peak, Int((FeedbackSounds.headroom * 0.5 * 32767).rounded()))
    }

    func testFirstFrameDelayIsRecorded() {
        let (name, _) = fileDevice()
        let delays = FeedbackLocked<[UInt64]>([])
        let engine = engine(name, onFirstFrame: { playback in delays.mutate { $0.append(playback.delayNanoseconds) } })
        for _ in 0..<20 {
            engine.play(.input)
            XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
        }
        let stats = engine.statistics
        engine.close()
        let recorded = delays.value.sorted()
        XCTAssertEqual(recorded.count, 20)
        XCTAssertEqual(stats.firstFrameDelayCount, 20)
        XCTAssertEqual(stats.firstFrameDelayMin, recorded.first)
        XCTAssertEqual(stats.firstFrameDelayMax, recorded.last)
        XCTAssertGreaterThan(stats.lastPlayback?.firstFrameAt ?? 0, stats.lastPlayback?.requestedAt ?? .max)
        let median = recorded[recorded.count / 2]
        print("AudioEngineTests: play() to first frame written, 20 sequential clicks: min \(formatFixed(Double(recorded.first!) / 1000, decimals: 1)) µs, "
              + "median \(formatFixed(Double(median) / 1000, decimals: 1)) µs, max \(formatFixed(Double(recorded.last!) / 1000, decimals: 1)) µs, "
              + "mean \(formatFixed(stats.meanFirstFrameDelayNanoseconds! / 1000, decimals: 1)) µs")
    }

    // MARK: missing device

    func testMissingDeviceIsOneWarningNotACrash() {
        for device in ["keyhold_no_such_pcm", "hw:42,0"] {
            let log = FeedbackLogCollector()
            let engine = engine(device, log: log, retry: 0.05)
            guard case .unavailable(let reason) = engine.status else { return XCTFail("\(device) opened?") }
            print("AudioEngineTests: \(device): \(log.warnings.first ?? "no warning")")
            XCTAssertFalse(reason.isEmpty)
            XCTAssertEqual(log.warnings.count, 1, "one warning at start")
            for i in 0..<50 { engine.play(i % 2 == 0 ? .input : .delete) }
            XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
            usleep(100_000)   // past the retry interval: the next play tries to open again
            engine.play(.system)
            XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
            let stats = engine.statistics
            XCTAssertEqual(stats.started, 0)
            XCTAssertEqual(stats.dropped + stats.replaced, stats.requested)
            XCTAssertGreaterThanOrEqual(stats.openAttempts, 2, "opening is retried")
            XCTAssertEqual(log.warnings.count, 1, "still one warning, not one per key")
            XCTAssertEqual(stats.warnings, 1)
            XCTAssertFalse(log.lines.contains { $0.contains("ALSA lib") }, "alsa-lib's own stderr lines are captured")
            engine.close()
            engine.play(.input)   // after close: ignored
            XCTAssertEqual(engine.status, .closed)
        }
    }

    func testRetryIsRateLimited() {
        let log = FeedbackLogCollector()
        let engine = engine("keyhold_no_such_pcm", log: log, retry: 60)
        for _ in 0..<20 {
            engine.play(.input)
            engine.waitUntilIdle(timeout: 5)
        }
        XCTAssertEqual(engine.statistics.openAttempts, 1, "no second attempt within the back-off")
        XCTAssertEqual(engine.statistics.dropped, 20, "every play dropped while the device is out")
        XCTAssertEqual(log.warnings.count, 1)
        engine.close()
    }

    // MARK: custom sounds

    func testCustomSoundIsLoadedOnceAndConverted() throws {
        // 20 ms of 500 Hz at 44.1 kHz stereo, at half scale
        let frames = 882
        var samples: [Int16] = []
        for i in 0..<frames {
            let v = Int16((sin(2 * Double.pi * 500 * Double(i) / 44_100) * 16000).rounded())
            samples += [v, v]
        }
        let custom = "\(Self.directory)/custom.wav"
        try writeFile(custom, WAVFile.encode(AudioClip(sampleRate: 44_100, channels: 2, samples: samples)))
        let (name, wav) = fileDevice()
        let log = FeedbackLogCollector()
        let engine = engine(name, volume: 1, log: log, preload: [custom])
        engine.play(.custom(path: custom))
        XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
        unlink(custom)   // cached: the file is not read again
        engine.play(.custom(path: custom))
        XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
        engine.close()
        XCTAssertEqual(log.warnings, [])
        let out = try readWAV(wav)
        XCTAssertEqual(out.frameCount, 2 * 960, "20 ms at 48 kHz, twice")
        XCTAssertEqual(Double(out.peak), 16000, accuracy: 40)
        XCTAssertEqual(Array(out.samples[0..<960]), Array(out.samples[960...]))
    }

    func testUnreadableCustomSoundWarnsOnceAndPlaysTheInputClick() throws {
        let bad = "\(Self.directory)/bad.wav"
        try writeFile(bad, Array("not a wav file".utf8))
        for path in [bad, "\(Self.directory)/missing.wav"] {
            let (name, wav) = fileDevice()
            let log = FeedbackLogCollector()
            let engine = engine(name, log: log)
            for _ in 0..<3 {
                engine.play(.custom(path: path))
                XCTAssertTrue(engine.waitUntilIdle(timeout: 5))
            }
            engine.close()
            XCTAssertEqual(log.warnings.count, 1, log.lines.joined(separator: "\n"))
            print("AudioEngineTests: \(log.warnings.first ?? "")")
            let out = try readWAV(wav)
            let click = FeedbackSounds.render(.input, volume: 0.5)!
            XCTAssertEqual(out.samples, click.samples + click.samples + click.samples)
        }
    }

    // MARK: WAV

    func testWAVRoundTripAndStreams() throws {
        let clip = AudioClip(sampleRate: 16_000, channels: 2, samples: [1, -1, 300, -300, .max, .min])
        let bytes = WAVFile.encode(clip)
        XCTAssertEqual(bytes.count, 44 + 12)
        XCTAssertEqual(try WAVFile.decode(bytes), clip)
        // a stream still being written: data size 0 means "to the end of the file"
        var streaming = bytes
        for i in 40..<44 { streaming[i] = 0 }
        XCTAssertEqual(try WAVFile.decode(streaming), clip)
        // 24-bit is refused with a reason
        var deep = bytes
        deep[34] = 24
        XCTAssertThrowsError(try WAVFile.decode(deep)) { XCTAssertTrue("\($0)".contains("24-bit")) }
        XCTAssertThrowsError(try WAVFile.decode(Array("RIFF....WAVE".utf8))) { XCTAssertEqual($0 as? WAVFile.DecodeError, .missingChunk("fmt ")) }
        XCTAssertThrowsError(try WAVFile.decode([1, 2, 3])) { XCTAssertEqual($0 as? WAVFile.DecodeError, .notRIFFWave) }
    }

    func testConversion() {
        let stereo = AudioClip(sampleRate: 24_000, channels: 2, samples: [100, 300, -100, -300])
        let mono = stereo.converted(sampleRate: 24_000, channels: 1)
        XCTAssertEqual(mono.samples, [200, -200])
        let up = mono.converted(sampleRate: 48_000, channels: 1)
        XCTAssertEqual(up.frameCount, 4)
        XCTAssertEqual(up.samples[0], 200)
        XCTAssertEqual(up.samples[1], 0)
    }

    // MARK: helpers

    private func zeroCrossings(_ clip: AudioClip) -> Int {
        var count = 0
        for i in 1..<clip.samples.count where (clip.samples[i - 1] < 0) != (clip.samples[i] < 0) { count += 1 }
        return count
    }

    private func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw WriteError(code: errno) }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

private struct WriteError: Error { var code: Int32 }

/// Collects feedback log lines (from any thread).
final class FeedbackLogCollector: @unchecked Sendable {
    private let lock = FeedbackTestMutex()
    private var entries: [(Log.Level, String)] = []
    var logger: FeedbackLogger { { [self] level, message in lock.with { entries.append((level, message)) } } }
    var lines: [String] { lock.with { entries.map(\.1) } }
    var warnings: [String] { lock.with { entries.filter { $0.0 <= .warning }.map(\.1) } }
    var count: Int { lock.with { entries.count } }
}

final class FeedbackLocked<T>: @unchecked Sendable {
    private let lock = FeedbackTestMutex()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.with { stored } }
    func mutate(_ body: (inout T) -> Void) { lock.with { body(&stored) } }
}

/// A pthread mutex (the tests avoid Foundation like the library does).
final class FeedbackTestMutex: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(m, nil) }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    func with<R>(_ body: () -> R) -> R { pthread_mutex_lock(m); defer { pthread_mutex_unlock(m) }; return body() }
}

extension AudioEngineTests {
    /// Key event to first frame through the whole engine (gesture, action handler, feedback
    /// handler, audio thread): every press of a letter clicks, and the delay is recorded.
    func testKeyEventToFirstFrame() throws {
        let (name, wav) = fileDevice()
        let audio = engine(name)
        let result = FeedbackLatency.keyToFirstFrame(audio: audio, presses: 100)
        audio.close()
        XCTAssertEqual(result.delays.count, 100, "every press of e clicked")
        XCTAssertEqual(audio.statistics.started, 100)
        let us = { (ns: UInt64?) in formatFixed(Double(ns ?? 0) / 1000, decimals: 1) }
        print("AudioEngineTests: key event -> first frame written, 100 presses of e: min \(us(result.delays.first)) µs, "
              + "median \(us(result.percentile(0.5))) µs, p99 \(us(result.percentile(0.99))) µs, max \(us(result.delays.last)) µs; "
              + "engine.handle: median \(us(result.handleNanoseconds[50])) µs")
        let out = try readWAV(wav)
        XCTAssertEqual(out.frameCount, 100 * FeedbackSounds.render(.input, volume: 0.5)!.frameCount)
    }
}

/// The daemon's sounds go to the companion in front while there is one, else to its own engine.
final class SessionAudioEngineTests: XCTestCase {
    func testSoundsFollowTheCompanion() {
        let local = AudioFeedbackRecorder()
        let engine = SessionAudioEngine(local: local)
        var companionHas: [AudioFeedback] = []
        var companionConnected = true
        engine.companion = { sound in
            guard companionConnected else { return false }
            companionHas.append(sound)
            return true
        }
        engine.play(.input)
        engine.play(.none)
        engine.play(.system)
        companionConnected = false
        engine.play(.delete)
        engine.companion = nil
        engine.play(.custom(path: "/x.wav"))
        XCTAssertEqual(companionHas, [.input, .system])
        XCTAssertEqual(local.played, [.delete, .custom(path: "/x.wav")])
    }
}

/// Reloads reopen the feedback engines off the input thread: the old ones are closed before the
/// new ones open, plays meanwhile go nowhere, and the new ones take over once open.
final class FeedbackSwitchTests: XCTestCase {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ s: String) { lock.lock(); entries.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return entries }
    }
    final class Engine: AudioFeedbackEngine, HapticFeedbackEngine, ClosableFeedbackEngine {
        let name: String, log: Log
        init(_ name: String, _ log: Log) { self.name = name; self.log = log; log.add("open \(name)") }
        func play(_ feedback: AudioFeedback) { log.add("\(name) plays \(feedback.configString)") }
        func play(_ feedback: HapticFeedback) { log.add("\(name) rumbles") }
        func close() { log.add("close \(name)") }
    }

    func testReopenClosesFirstAndSwitchesOnceOpen() {
        let log = Log()
        let feedback = FeedbackSwitch()
        feedback.reopen { (Engine("a1", log), Engine("h1", log)) }
        feedback.waitUntilOpen()
        feedback.play(.input)
        feedback.play(.lightImpact)
        let opening = DispatchSemaphore(value: 0), mayOpen = DispatchSemaphore(value: 0)
        feedback.reopen {
            opening.signal()
            mayOpen.wait()
            return (Engine("a2", log), Engine("h2", log))
        }
        opening.wait()
        feedback.play(.delete)   // while the new engines open: silence, and no wait
        mayOpen.signal()
        feedback.waitUntilOpen()
        feedback.play(.system)
        feedback.close()
        XCTAssertEqual(log.all, ["open a1", "open h1", "a1 plays input", "h1 rumbles", "close a1", "close h1",
                                 "open a2", "open h2", "a2 plays system", "close a2", "close h2"])
    }
}
