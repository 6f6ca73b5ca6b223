import ArgumentParser
import Glibc
import KeyholdKit
import KeyholdLinux

struct FeedbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Try the audio and haptic feedback engines.",
        subcommands: [Test.self])

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Play every sound and every haptic pattern once and print what was found.",
            discussion: """
                Opens the ALSA device of [feedback] audio_device and plays the input, delete and system \
                sounds (and every custom sound of the overrides), then looks for a force-feedback device \
                (haptic_device, or the first with FF_RUMBLE) and plays every haptic pattern. Prints the \
                device found or why there is none, and per sound its length, peak and the delay from \
                play() to its first frame reaching ALSA. Feedback switched off in the configuration is \
                tested anyway. Exit status 0, or with --strict 1 when audio or haptics are unavailable.
                """)

        @Option(help: "Configuration file (default: /etc/keyhold/config.toml if present, else the built-in default).")
        var config: String?
        @Option(help: "ALSA device, instead of the configuration's audio_device.") var audioDevice: String?
        @Option(help: "Force-feedback device name glob, instead of the configuration's haptic_device.") var hapticDevice: String?
        @Option(help: "Volume 0...1, instead of the configuration's.") var volume: Double?
        @Option(help: "Pause after each sound and pattern, in milliseconds.") var pause: Int = 250
        @Option(help: "Also press a key N times through the engine and print the delay from key event to first audio frame.")
        var latency: Int = 0
        @Flag(help: "Test audio only.") var noHaptic = false
        @Flag(help: "Test haptics only.") var noAudio = false
        @Flag(help: "Exit 1 when no audio device opened or no haptic device was found.") var strict = false

        func validate() throws {
            if let volume, !(0...1).contains(volume) { throw ValidationError("--volume must be between 0 and 1") }
            if pause < 0 { throw ValidationError("--pause must not be negative") }
            if latency < 0 { throw ValidationError("--latency must not be negative") }
        }

        func run() throws {
            var settings = try ConfigurationFile.load(explicit: config).feedback
            if let audioDevice { settings.audioDevice = audioDevice }
            if let hapticDevice { settings.hapticDevice = hapticDevice }
            if let volume { settings.audioVolume = volume }
            print("configuration: \(ConfigurationFile.path(explicit: config) ?? "(embedded default)")")
            var ok = true
            if !noAudio { ok = testAudio(settings) && ok }
            if !noHaptic { ok = testHaptics(settings) && ok }
            if strict && !ok { throw ExitCode(1) }
        }

        private func sleepMilliseconds(_ ms: Int) { if ms > 0 { usleep(UInt32(ms) * 1000) } }

        private func testAudio(_ settings: KeyboardFeedbackSettings) -> Bool {
            if !settings.isAudioEnabled { print("audio: off in the configuration (audio = false); testing anyway") }
            let engine = ALSAAudioEngine(settings: settings)
            defer { engine.close() }
            switch engine.status {
            case .open(let format):
                print("audio: ALSA device \"\(settings.audioDevice)\" opened: \(format); volume \(fixed(settings.audioVolume, 2))")
            case .unavailable(let reason):
                print("audio: ALSA device \"\(settings.audioDevice)\" not available: \(reason)")
                return false
            case .closed:
                print("audio: engine closed")
                return false
            }
            var sounds: [AudioFeedback] = [.input, .delete, .system]
            for override in settings.overrides {
                if let audio = override.audio, case .custom = audio, !sounds.contains(audio) { sounds.append(audio) }
            }
            var written = 0
            for sound in sounds {
                let before = engine.statistics
                let t0 = FeedbackClock.nanoseconds()
                engine.play(sound)
                let call = FeedbackClock.nanoseconds() - t0
                let idle = engine.waitUntilIdle(timeout: 2)
                let after = engine.statistics
                var line = "audio: \(pad(sound.configString, 8))"
                if let clip = FeedbackSounds.render(sound, volume: settings.audioVolume) {
                    line += " \(fixed(clip.duration * 1000, 1)) ms, peak \(clip.peak) (\(fixed(clip.peakDBFS, 1)) dBFS),"
                }
                if after.started > before.started, let playback = after.lastPlayback {
                    written += 1
                    if case .custom = sound, case .open(let format) = engine.status {
                        line += " \(fixed(Double(playback.frames) / Double(format.sampleRate) * 1000, 1)) ms,"
                    }
                    line += " \(playback.frames) frames written, first frame \(fixed(Double(playback.delayNanoseconds) / 1e6, 3)) ms after play()"
                } else {
                    line += idle ? " not written (dropped)" : " still not written after 2 s"
                }
                line += "; play() took \(fixed(Double(call) / 1000, 1)) µs"
                print(line)
                sleepMilliseconds(pause)
            }
            let stats = engine.statistics
            print("audio: \(written) of \(sounds.count) sounds written; warnings \(stats.warnings)")
            if latency > 0 {
                let result = FeedbackLatency.keyToFirstFrame(audio: engine, presses: latency)
                let us = { (ns: UInt64?) in fixed(Double(ns ?? 0) / 1000, 1) }
                print("audio: key event -> first frame written, \(result.delays.count) of \(latency) presses of e: "
                      + "min \(us(result.delays.first)) µs, median \(us(result.percentile(0.5))) µs, "
                      + "p99 \(us(result.percentile(0.99))) µs, max \(us(result.delays.last)) µs")
            }
            if case .unavailable(let reason) = engine.status { print("audio: device lost: \(reason)") }
            return written == sounds.count
        }

        private func testHaptics(_ settings: KeyboardFeedbackSettings) -> Bool {
            if !settings.isHapticEnabled { print("haptic: off in the configuration (haptic = false); testing anyway") }
            let engine = EvdevHapticEngine(settings: settings)
            defer { engine.close() }
            guard case .active(let device) = engine.status else {
                if case .off(let reason) = engine.status { print("haptic: no device: \(reason)") }
                for probe in engine.probes.prefix(12) {
                    let what: String
                    if let error = probe.openError { what = "cannot open: \(error)" }
                    else if probe.hasRumble { what = probe.isWritable ? "FF_RUMBLE" : "FF_RUMBLE, not writable" }
                    else { what = probe.hasForceFeedback ? "EV_FF without FF_RUMBLE" : "no force feedback" }
                    print("haptic:   \(probe.path) \"\(probe.name)\": \(what)")
                }
                return false
            }
            let uploaded = engine.effects.values.reduce(0) { $0 + $1.count }
            print("haptic: \"\(device.name)\" (\(device.path)): FF_RUMBLE, holds \(device.maximumEffects) effects, \(uploaded) uploaded")
            var played = 0
            for feedback in HapticPattern.uploadOrder {
                guard let pattern = HapticPattern.pattern(for: feedback) else { continue }
                let before = engine.playCount
                let at = FeedbackClock.nanoseconds()
                engine.play(feedback)
                let pulses = pattern.pulses.map { p in
                    "\(p.delayMilliseconds > 0 ? "+\(p.delayMilliseconds) ms " : "")\(p.durationMilliseconds) ms strong \(hex(p.strong)) weak \(hex(p.weak))"
                }.joined(separator: ", then ")
                let ok = engine.playCount > before
                if ok { played += 1 }
                let ids = !engine.isActive ? "device gone"
                    : engine.effects[feedback].map { "effect\($0.count == 1 ? "" : "s") \($0.map(String.init).joined(separator: ", "))" }
                    ?? "not uploaded: a similar pattern"
                // the monotonic time lets a test compare it with the driver's receive time
                print("haptic: \(pad(feedback.rawValue, 16)) \(pulses): \(ok ? "played at \(fixed(Double(at) / 1e9, 6))" : "NOT played") (\(ids))")
                sleepMilliseconds(pattern.totalMilliseconds + pause)
            }
            print("haptic: \(played) of \(HapticPattern.uploadOrder.count) patterns played")
            return played == HapticPattern.uploadOrder.count
        }

        private func pad(_ s: String, _ width: Int) -> String { s.count >= width ? s : s + String(repeating: " ", count: width - s.count) }
        private func hex(_ v: UInt16) -> String {
            let s = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: 4 - s.count) + s
        }
        private func fixed(_ v: Double, _ decimals: Int) -> String {
            guard v.isFinite else { return v < 0 ? "-inf" : String(v) }
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            let n = Int((abs(v) * scale).rounded())
            let whole = n / Int(scale), frac = String(n % Int(scale))
            return (v < 0 && n != 0 ? "-" : "") + String(whole)
                + (decimals > 0 ? "." + String(repeating: "0", count: decimals - frac.count) + frac : "")
        }
    }
}
