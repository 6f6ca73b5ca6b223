import CALSA
import Glibc
import KeyholdKit

/// Audio feedback through ALSA.
///
/// The three built-in sounds (`FeedbackSounds`) are rendered once for the device's format and
/// volume; the PCM is opened once, non-blocking, with a ~5 ms period and a ~40 ms buffer.
/// Playback starts with the first frame written into an empty buffer, so the buffer's size adds
/// no latency; it is sized to take any built-in sound (≤ 28 ms) in one write, so a sound never
/// depends on the audio thread being scheduled again in time (no underrun mid-click on a busy
/// machine).
///
/// `play` only drops the request into a one-slot mailbox and returns: a dedicated audio thread
/// writes it. The newest sound wins: a request not yet started is replaced by a newer one, and
/// a sound still playing is cut when a newer one arrives.
///
/// A missing or busy card is one warning; the engine stays usable and drops sounds, trying to
/// open the device again on a play at most every `retryInterval` seconds. A device that fails
/// while playing (unplugged) is closed the same way. Custom sounds (`.custom(path:)`, 16-bit
/// PCM WAV) are loaded once and cached; one that cannot be read is one warning and plays the
/// input click instead.
public final class ALSAAudioEngine: AudioFeedbackEngine, @unchecked Sendable {
    public struct Options: Hashable, Sendable {
        /// An ALSA PCM name: "default", "hw:0,0", "plughw:1", "hw:Loopback,0,0", ...
        public var device: String
        /// 0...1, applied when the sounds are rendered.
        public var volume: Double
        /// Asked of the device; the sounds are rendered at what it grants.
        public var sampleRate: Int
        public var periodMicroseconds: Int
        public var bufferMicroseconds: Int
        /// Seconds between attempts to open a missing device.
        public var retryInterval: Double
        /// Custom sound files to load at start (so their warnings come at start too).
        public var preload: [String]

        public init(device: String = "default", volume: Double = 0.5, sampleRate: Int = 48_000,
                    periodMicroseconds: Int = 5_000, bufferMicroseconds: Int = 40_000,
                    retryInterval: Double = 5, preload: [String] = []) {
            self.device = device; self.volume = volume; self.sampleRate = sampleRate
            self.periodMicroseconds = periodMicroseconds; self.bufferMicroseconds = bufferMicroseconds
            self.retryInterval = retryInterval; self.preload = preload
        }

        /// Device and volume from the settings; the custom sounds of its overrides preloaded.
        public init(settings: KeyboardFeedbackSettings) {
            self.init(device: ALSAAudioEngine.daemonDevice(settings.audioDevice), volume: settings.audioVolume)
            for override in settings.overrides {
                if case .custom(let path)? = override.audio, !preload.contains(path) { preload.append(path) }
            }
        }
    }

    /// The PCM the daemon opens for `audio_device`: "default" is the sound card's own default
    /// (ALSA's `sysdefault`). On a desktop machine ALSA's `default` is a client of the logged-in
    /// user's sound server (pipewire-alsa, pulseaudio's plugin), which a system service cannot
    /// reach ("Host is down"); the session's sounds are the companion's, through that server.
    public static func daemonDevice(_ configured: String) -> String {
        configured == "default" ? "sysdefault" : configured
    }

    /// What the device granted.
    public struct DeviceFormat: Hashable, Sendable, CustomStringConvertible {
        public var device: String
        public var sampleRate: Int
        public var channels: Int
        public var periodFrames: Int
        public var bufferFrames: Int

        public var description: String {
            func ms(_ frames: Int) -> String { formatMilliseconds(Double(frames) / Double(sampleRate)) }
            return "\(sampleRate) Hz, \(channels) channel\(channels == 1 ? "" : "s"), S16_LE, "
                + "period \(periodFrames) frames (\(ms(periodFrames)) ms), buffer \(bufferFrames) frames (\(ms(bufferFrames)) ms)"
        }
    }

    public enum Status: Hashable, Sendable {
        case open(DeviceFormat)
        /// Sounds are dropped; the device is tried again on a later play.
        case unavailable(reason: String)
        case closed
    }

    /// One sound that reached the device.
    public struct Playback: Hashable, Sendable {
        public var feedback: AudioFeedback
        /// CLOCK_MONOTONIC ns when `play` was called.
        public var requestedAt: UInt64
        /// CLOCK_MONOTONIC ns right after the first frames were handed to ALSA (snd_pcm_writei).
        public var firstFrameAt: UInt64
        public var frames: Int
        public var delayNanoseconds: UInt64 { firstFrameAt &- requestedAt }
    }

    /// Counters since start. Every request ends as exactly one of started, replaced (a newer
    /// request took its slot before the audio thread got to it) or dropped (no device).
    public struct Statistics: Hashable, Sendable {
        public var requested = 0, started = 0, replaced = 0, dropped = 0
        /// Started sounds that were written to the end, or cut by a newer sound.
        public var completed = 0, interrupted = 0
        public var framesWritten = 0
        public var warnings = 0
        public var openAttempts = 0, opens = 0
        /// play() to first frame written, over all started sounds.
        public var firstFrameDelayCount = 0
        public var firstFrameDelayTotal: UInt64 = 0
        public var firstFrameDelayMin = UInt64.max
        public var firstFrameDelayMax: UInt64 = 0
        public var lastPlayback: Playback?

        public var meanFirstFrameDelayNanoseconds: Double? {
            firstFrameDelayCount == 0 ? nil : Double(firstFrameDelayTotal) / Double(firstFrameDelayCount)
        }
    }

    public let options: Options
    private let worker: AudioWorker
    private var thread: WorkerThread?

    /// Opens the device (a missing one is a warning, not an error) and starts the audio thread.
    /// `onFirstFrame` is called on the audio thread for every sound that reaches the device.
    public init(options: Options = Options(), log: @escaping FeedbackLogger = FeedbackLog.standard,
                onFirstFrame: (@Sendable (Playback) -> Void)? = nil) {
        self.options = options
        worker = AudioWorker(options: options, log: log, onFirstFrame: onFirstFrame)
        worker.start()
        let worker = self.worker
        worker.willStartThread()
        thread = WorkerThread(name: "keyhold-audio") { worker.run() }
        if thread == nil { worker.threadFailed() }
    }

    public convenience init(settings: KeyboardFeedbackSettings, log: @escaping FeedbackLogger = FeedbackLog.standard,
                            onFirstFrame: (@Sendable (Playback) -> Void)? = nil) {
        self.init(options: Options(settings: settings), log: log, onFirstFrame: onFirstFrame)
    }

    deinit { close() }

    /// Hands the sound to the audio thread and returns: a mutex held for a few assignments, no
    /// system call, no allocation beyond the request.
    public func play(_ feedback: AudioFeedback) { worker.enqueue(feedback) }

    public var status: Status { worker.currentStatus }
    public var statistics: Statistics { worker.currentStatistics }

    /// Blocks until nothing is queued or playing (for tests and `keyhold feedback test`, never
    /// on the input path). False on timeout.
    @discardableResult
    public func waitUntilIdle(timeout seconds: Double) -> Bool { worker.waitUntilIdle(timeout: seconds) }

    /// Lets the sound in progress finish, stops the thread and closes the PCM. Later plays are
    /// ignored. Called by deinit.
    public func close() {
        worker.stop()
        thread?.join()
        thread = nil
    }
}

/// The audio thread's side. Fields marked "shared" are guarded by `condition`; the rest belong
/// to the audio thread once it runs (before that, to the initializer).
final class AudioWorker: @unchecked Sendable {
    typealias Engine = ALSAAudioEngine
    let options: Engine.Options
    private let logger: FeedbackLogger
    private let onFirstFrame: (@Sendable (Engine.Playback) -> Void)?
    private let condition = ThreadCondition()

    // shared
    private var pending: (feedback: AudioFeedback, at: UInt64)?
    private var busy = false
    /// While the device is unavailable and not yet due for a retry, plays are dropped here
    /// without waking the audio thread (no wake-up per keystroke when there is no sound card).
    private var dropUntil: UInt64 = 0
    private var stopping = false
    /// A thread was started for `run` (which closes the device when it ends).
    private var hasThread = false
    private var finished = false
    private var stats = Engine.Statistics()
    private var status: Engine.Status = .unavailable(reason: "not opened yet")

    // audio thread
    private var device: ALSAPlaybackDevice?
    private var rate: Int
    private var channels = 1
    private var clips: [AudioFeedback: AudioClip] = [:]
    private var customSources: [String: AudioClip] = [:]
    private var customFailures: Set<String> = []
    private var nextRetry: UInt64 = 0
    private var inOutage = false

    init(options: Engine.Options, log: @escaping FeedbackLogger, onFirstFrame: (@Sendable (Engine.Playback) -> Void)?) {
        self.options = options
        self.logger = log
        self.onFirstFrame = onFirstFrame
        rate = options.sampleRate
    }

    private var volume: Double { min(max(options.volume, 0), 1) }

    // MARK: caller side

    func start() {
        _ = openDevice(initial: true)
        if device == nil { renderBuiltIns() }
        for path in options.preload { _ = clip(for: .custom(path: path)) }
    }

    func willStartThread() { condition.withLock { hasThread = true } }

    func threadFailed() {
        log(.warning, "audio: cannot start the audio thread; audio feedback is off")
        condition.withLock { hasThread = false; stopping = true; status = .unavailable(reason: "no audio thread") }
        device?.close(drain: false)
        device = nil
    }

    func enqueue(_ feedback: AudioFeedback) {
        guard feedback != .none else { return }
        let now = FeedbackClock.nanoseconds()
        condition.lock()
        guard !stopping else { condition.unlock(); return }
        stats.requested += 1
        if now < dropUntil { stats.dropped += 1; condition.unlock(); return }
        if pending != nil { stats.replaced += 1 }
        pending = (feedback, now)
        condition.unlock()
        condition.broadcast()
    }

    var currentStatus: Engine.Status { condition.withLock { status } }
    var currentStatistics: Engine.Statistics { condition.withLock { stats } }

    func waitUntilIdle(timeout seconds: Double) -> Bool {
        let deadline = FeedbackClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
        condition.lock(); defer { condition.unlock() }
        while (pending != nil || busy) && !finished {
            if !condition.wait(untilNanoseconds: deadline) && FeedbackClock.nanoseconds() >= deadline {
                return pending == nil && !busy
            }
        }
        return true
    }

    func stop() {
        condition.lock()
        stopping = true
        let threaded = hasThread
        if !threaded { status = .closed }
        condition.unlock()
        // with a thread, run() closes the device as it ends; without one there is none open
        if threaded { condition.broadcast() }
    }

    // MARK: audio thread

    func run() {
        condition.lock()
        while true {
            while pending == nil && !stopping { condition.wait() }
            if stopping {
                if pending != nil { stats.dropped += 1; pending = nil }
                break
            }
            let request = pending!
            pending = nil
            busy = true
            condition.unlock()
            perform(request.feedback, requestedAt: request.at)
            condition.lock()
            busy = false
            condition.broadcast()
        }
        condition.unlock()
        device?.close(drain: true)
        device = nil
        condition.withLock { status = .closed; finished = true }
        condition.broadcast()
    }

    private func perform(_ feedback: AudioFeedback, requestedAt: UInt64) {
        guard let device = device ?? openDevice(initial: false) else {
            condition.withLock { stats.dropped += 1 }
            return
        }
        let clip = clip(for: feedback)
        let prepared = device.prepareForSound()
        if prepared < 0 {
            deviceFailed(prepared)
            condition.withLock { stats.dropped += 1 }
            return
        }
        let frames = clip.frameCount
        let perFrame = clip.channels
        var written = 0
        var started = false
        // a sound never takes much longer than its length; a device that stops consuming is dead
        let giveUp = FeedbackClock.nanoseconds() + UInt64(clip.duration * 1e9) + 2_000_000_000
        while written < frames {
            let n = clip.samples.withUnsafeBufferPointer { buffer in
                device.write(buffer.baseAddress! + written * perFrame, frames: frames - written)
            }
            if n > 0 {
                if !started {
                    started = true
                    let playback = Engine.Playback(feedback: feedback, requestedAt: requestedAt,
                                                   firstFrameAt: FeedbackClock.nanoseconds(), frames: frames)
                    condition.withLock {
                        stats.started += 1
                        let d = playback.delayNanoseconds
                        stats.firstFrameDelayCount += 1
                        stats.firstFrameDelayTotal += d
                        stats.firstFrameDelayMin = min(stats.firstFrameDelayMin, d)
                        stats.firstFrameDelayMax = max(stats.firstFrameDelayMax, d)
                        stats.lastPlayback = playback
                    }
                    onFirstFrame?(playback)
                }
                written += n
                condition.withLock { stats.framesWritten += n }
                continue
            }
            if n == -Int(EAGAIN) {
                // buffer full: a newer sound waiting wins; else wait for a period to free up
                if condition.withLock({ pending != nil }) {
                    condition.withLock { if started { stats.interrupted += 1 } else { stats.dropped += 1 } }
                    return
                }
                if FeedbackClock.nanoseconds() > giveUp {
                    deviceFailed(-EIO, what: "stopped consuming frames")
                    condition.withLock { if started { stats.interrupted += 1 } else { stats.dropped += 1 } }
                    return
                }
                let w = device.waitForSpace(milliseconds: 20)
                if w < 0 && device.recover(w) < 0 {
                    deviceFailed(w)
                    condition.withLock { if started { stats.interrupted += 1 } else { stats.dropped += 1 } }
                    return
                }
                continue
            }
            // underrun (-EPIPE) or suspend (-ESTRPIPE) recover; anything else is the device gone
            if device.recover(Int32(n)) < 0 {
                deviceFailed(Int32(n))
                condition.withLock { if started { stats.interrupted += 1 } else { stats.dropped += 1 } }
                return
            }
        }
        condition.withLock { stats.completed += 1 }
    }

    /// Opens the device (on the initializer's thread at start, on the audio thread later, never
    /// more often than `retryInterval`). Logs one warning per outage.
    private func openDevice(initial: Bool) -> ALSAPlaybackDevice? {
        let now = FeedbackClock.nanoseconds()
        guard initial || now >= nextRetry else { return nil }
        condition.withLock { stats.openAttempts += 1 }
        switch ALSAPlaybackDevice.open(name: options.device, sampleRate: options.sampleRate,
                                       periodMicroseconds: options.periodMicroseconds,
                                       bufferMicroseconds: options.bufferMicroseconds) {
        case .success(let opened):
            device = opened
            let format = opened.format
            if format.sampleRate != rate || format.channels != channels || clips.isEmpty {
                rate = format.sampleRate
                channels = format.channels
                renderBuiltIns()
            }
            condition.withLock { stats.opens += 1; status = .open(format); dropUntil = 0 }
            if inOutage {
                log(.notice, "audio: ALSA device \"\(options.device)\" is back: \(format)")
                inOutage = false
            } else {
                log(.info, "audio: ALSA device \"\(options.device)\": \(format)")
            }
            return opened
        case .failure(let error):
            nextRetry = now + UInt64(max(0, options.retryInterval) * 1e9)
            let reason = error.description
            condition.withLock { status = .unavailable(reason: reason); dropUntil = nextRetry }
            if inOutage {
                log(.debug, "audio: ALSA device \"\(options.device)\" still unavailable: \(reason)")
            } else {
                inOutage = true
                let what = error.isBusy ? "is busy" : "cannot be opened"
                log(.warning, "audio: ALSA device \"\(options.device)\" \(what): \(reason); audio feedback is "
                    + "dropped until it opens (retried on play every \(formatSeconds(options.retryInterval)) s)")
            }
            return nil
        }
    }

    private func deviceFailed(_ code: Int32, what: String? = nil) {
        let reason = what ?? String(cString: snd_strerror(code))
        device?.close(drain: false)
        device = nil
        nextRetry = FeedbackClock.nanoseconds() + UInt64(max(0, options.retryInterval) * 1e9)
        condition.withLock { status = .unavailable(reason: reason); dropUntil = nextRetry }
        if !inOutage {
            inOutage = true
            log(.warning, "audio: ALSA device \"\(options.device)\" failed: \(reason); audio feedback is dropped "
                + "until it opens again (retried on play every \(formatSeconds(options.retryInterval)) s)")
        }
    }

    private func renderBuiltIns() {
        clips = [:]
        for feedback in [AudioFeedback.input, .delete, .system] {
            clips[feedback] = FeedbackSounds.render(feedback, sampleRate: rate, channels: channels, volume: volume)
        }
        for (path, source) in customSources {
            clips[.custom(path: path)] = source.converted(sampleRate: rate, channels: channels).scaled(by: volume)
        }
    }

    /// The samples for a feedback in the device's format: built-in, or a custom file loaded
    /// once (one warning and the input click when it cannot be used).
    private func clip(for feedback: AudioFeedback) -> AudioClip {
        if let clip = clips[feedback] { return clip }
        let fallback = clips[.input]!
        guard case .custom(let path) = feedback else { return fallback }
        if customFailures.contains(path) { return fallback }
        do {
            let source = try WAVFile.read(path: expandingTilde(path))
            guard source.frameCount > 0 else { throw WAVFile.DecodeError.unsupportedFormat("no samples") }
            customSources[path] = source
            let clip = source.converted(sampleRate: rate, channels: channels).scaled(by: volume)
            clips[feedback] = clip
            return clip
        } catch {
            customFailures.insert(path)
            log(.warning, "audio: custom sound \(path): \(error); playing the input click instead")
            return fallback
        }
    }

    private func log(_ level: Log.Level, _ message: String) {
        if level <= .warning { condition.withLock { stats.warnings += 1 } }
        logger(level, message)
    }
}

func formatMilliseconds(_ seconds: Double) -> String { formatFixed(seconds * 1000, decimals: 1) }
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : formatFixed(seconds, decimals: 2)
}
/// `value` with a fixed number of decimals, without Foundation.
func formatFixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale), fraction = scaled % Int(scale)
    var s = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let f = String(fraction)
        s += "." + String(repeating: "0", count: decimals - f.count) + f
    }
    return s
}
