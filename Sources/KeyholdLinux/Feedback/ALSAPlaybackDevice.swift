import CALSA
import Glibc

/// One ALSA playback PCM, opened non-blocking with a small buffer: S16 interleaved, the
/// engine's rate (or the nearest the device takes), mono or the fewest channels it takes, and
/// playback starting with the first frame written. Used by one thread at a time.
final class ALSAPlaybackDevice {
    let pcm: OpaquePointer
    let format: ALSAAudioEngine.DeviceFormat
    private var closed = false

    struct OpenError: Error, CustomStringConvertible {
        var code: Int32
        var step: String
        /// What alsa-lib said on the way (it would have printed it on stderr).
        var details: [String]
        var isBusy: Bool { code == -EBUSY }
        var description: String {
            var s = step.isEmpty ? String(cString: snd_strerror(code)) : "\(step): \(String(cString: snd_strerror(code)))"
            // the most specific line alsa-lib gave, e.g. "cannot find card '0'" or "Unknown PCM foo"
            if let detail = details.first(where: { !$0.contains("returned error") && !$0.contains("Evaluate error") }) {
                s += " (\(detail))"
            }
            return s
        }
    }

    private init(pcm: OpaquePointer, format: ALSAAudioEngine.DeviceFormat) {
        self.pcm = pcm; self.format = format
    }

    deinit { close(drain: false) }

    static func open(name: String, sampleRate: Int, periodMicroseconds: Int, bufferMicroseconds: Int)
        -> Result<ALSAPlaybackDevice, OpenError>
    {
        let (result, details) = ALSAMessages.capturing { () -> Result<ALSAPlaybackDevice, OpenError> in
            var handle: OpaquePointer?
            let rc = snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
            guard rc >= 0, let pcm = handle else { return .failure(OpenError(code: rc, step: "", details: [])) }
            switch configure(pcm, name: name, sampleRate: sampleRate, periodMicroseconds: periodMicroseconds,
                             bufferMicroseconds: bufferMicroseconds) {
            case .success(let format): return .success(ALSAPlaybackDevice(pcm: pcm, format: format))
            case .failure(let error): snd_pcm_close(pcm); return .failure(error)
            }
        }
        if case .failure(var error) = result {
            error.details = details
            return .failure(error)
        }
        return result
    }

    private static func configure(_ pcm: OpaquePointer, name: String, sampleRate: Int, periodMicroseconds: Int,
                                  bufferMicroseconds: Int) -> Result<ALSAAudioEngine.DeviceFormat, OpenError> {
        var hwOptional: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hwOptional) == 0, let hw = hwOptional else {
            return .failure(OpenError(code: -ENOMEM, step: "hw params", details: []))
        }
        defer { snd_pcm_hw_params_free(hw) }
        func check(_ rc: Int32, _ step: String) -> OpenError? { rc < 0 ? OpenError(code: rc, step: step, details: []) : nil }
        if let e = check(snd_pcm_hw_params_any(pcm, hw), "no hardware configuration") { return .failure(e) }
        if let e = check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access") { return .failure(e) }
        if let e = check(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE),
                         "the device does not take S16_LE samples (try plughw:… or default)") { return .failure(e) }
        var channels: UInt32 = 1
        if let e = check(snd_pcm_hw_params_set_channels_near(pcm, hw, &channels), "channels") { return .failure(e) }
        var rate = UInt32(sampleRate), dir: Int32 = 0
        if let e = check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir), "rate \(sampleRate) Hz") { return .failure(e) }
        var period = snd_pcm_uframes_t(max(16, Int(rate) * periodMicroseconds / 1_000_000))
        dir = 0
        if let e = check(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir), "period size") { return .failure(e) }
        var buffer = snd_pcm_uframes_t(max(Int(period) * 2, Int(rate) * bufferMicroseconds / 1_000_000))
        if let e = check(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), "buffer size") { return .failure(e) }
        if let e = check(snd_pcm_hw_params(pcm, hw), "hardware parameters") { return .failure(e) }
        var actualBuffer: snd_pcm_uframes_t = 0, actualPeriod: snd_pcm_uframes_t = 0
        _ = snd_pcm_get_params(pcm, &actualBuffer, &actualPeriod)

        var swOptional: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&swOptional) == 0, let sw = swOptional else {
            return .failure(OpenError(code: -ENOMEM, step: "sw params", details: []))
        }
        defer { snd_pcm_sw_params_free(sw) }
        if let e = check(snd_pcm_sw_params_current(pcm, sw), "software parameters") { return .failure(e) }
        // start with the first frame written (the default waits for a full buffer, which a 10 ms
        // click never fills), wake when a period is free
        if let e = check(snd_pcm_sw_params_set_start_threshold(pcm, sw, 1), "start threshold") { return .failure(e) }
        if let e = check(snd_pcm_sw_params_set_avail_min(pcm, sw, actualPeriod), "avail min") { return .failure(e) }
        // Every sound ends in an underrun. Until the hardware notices it (up to a period later)
        // it plays on from the ring buffer: stale frames of an earlier sound, heard as a glitch
        // after every click. Silencing each played area makes what plays past the end silence.
        var boundary: snd_pcm_uframes_t = 0
        if let e = check(snd_pcm_sw_params_get_boundary(sw, &boundary), "boundary") { return .failure(e) }
        if let e = check(snd_pcm_sw_params_set_silence_threshold(pcm, sw, 0), "silence threshold") { return .failure(e) }
        if let e = check(snd_pcm_sw_params_set_silence_size(pcm, sw, boundary), "silence size") { return .failure(e) }
        if let e = check(snd_pcm_sw_params(pcm, sw), "software parameters") { return .failure(e) }

        return .success(ALSAAudioEngine.DeviceFormat(
            device: name, sampleRate: Int(rate), channels: Int(channels),
            periodFrames: Int(actualPeriod), bufferFrames: Int(actualBuffer)))
    }

    /// Gets the PCM ready for a new sound: a sound still queued is dropped (the newest sound
    /// wins), a stream that ran dry (underrun) or was suspended is prepared again. Returns a
    /// negative errno when the device is unusable.
    func prepareForSound() -> Int32 {
        let state = snd_pcm_state(pcm)
        switch state {
        case SND_PCM_STATE_RUNNING, SND_PCM_STATE_DRAINING:
            let avail = snd_pcm_avail(pcm)
            if avail < 0 { return recover(Int32(avail)) }
            if avail < format.bufferFrames {   // frames of the previous sound still queued
                _ = snd_pcm_drop(pcm)
                return snd_pcm_prepare(pcm)
            }
            return 0
        case SND_PCM_STATE_PREPARED:
            return 0
        case SND_PCM_STATE_XRUN, SND_PCM_STATE_SETUP:
            return snd_pcm_prepare(pcm)
        case SND_PCM_STATE_SUSPENDED:
            return recover(-ESTRPIPE)
        case SND_PCM_STATE_DISCONNECTED:
            return -ENODEV
        default:
            return snd_pcm_prepare(pcm)
        }
    }

    /// snd_pcm_writei: frames written, -EAGAIN when the buffer is full, or another -errno.
    func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int {
        snd_pcm_writei(pcm, samples, snd_pcm_uframes_t(frames))
    }

    /// Waits until a period is free, at most `milliseconds`. 1: ready, 0: timeout, <0: error.
    func waitForSpace(milliseconds: Int32) -> Int32 { snd_pcm_wait(pcm, milliseconds) }

    /// snd_pcm_recover for underrun and suspend, silently; 0 when the stream can go on.
    func recover(_ error: Int32) -> Int32 {
        let (rc, _) = ALSAMessages.capturing { snd_pcm_recover(pcm, error, 1) }
        return rc
    }

    /// Closes the PCM; with `drain`, first lets the queued frames play out, waiting at most
    /// 250 ms (snd_pcm_drain could wait forever on a device that stopped consuming).
    func close(drain: Bool) {
        guard !closed else { return }
        closed = true
        _ = ALSAMessages.capturing { () -> Int32 in
            if drain {
                let giveUp = FeedbackClock.nanoseconds() + 250_000_000
                while snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING, FeedbackClock.nanoseconds() < giveUp {
                    let avail = snd_pcm_avail(pcm)
                    if avail < 0 || avail >= format.bufferFrames { break }
                    usleep(2_000)
                }
            }
            return snd_pcm_close(pcm)
        }
    }
}

/// alsa-lib prints its errors on stderr ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown
/// PCM foo", several lines per failed open). While an engine calls into it, a thread-local
/// handler collects them instead, so the daemon logs one line of its own.
enum ALSAMessages {
    private static let condition = ThreadCondition()
    nonisolated(unsafe) private static var byThread: [pthread_t: [String]] = [:]

    private static let handler: snd_local_error_handler_t = { _, _, _, _, format, arguments in
        guard let format, let arguments else { return }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let message = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let me = pthread_self()
        ALSAMessages.condition.withLock {
            if (ALSAMessages.byThread[me]?.count ?? 0) < 16 { ALSAMessages.byThread[me, default: []].append(message) }
        }
    }

    static func capturing<T>(_ body: () -> T) -> (T, [String]) {
        let me = pthread_self()
        condition.withLock { byThread[me] = [] }
        let previous = snd_lib_error_set_local(handler)
        let result = body()
        _ = snd_lib_error_set_local(previous)
        let messages = condition.withLock { byThread.removeValue(forKey: me) ?? [] }
        return (result, messages)
    }
}
