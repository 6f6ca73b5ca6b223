// The daemon's input path per wake-up, printed not asserted (part of `swift run -c release
// KeyholdBenchmarks`): one read batch (key event + SYN_REPORT) through `DeviceManager`, the engine
// the daemon builds (controller, XKB us layout, feedback deferred until after the write, observed
// by a control socket with no monitor) and the `OutputQueue`, then the daemon's end of batch.
// Only the system calls are left out (the kernel's share is what the guest benchmark in run-e2e
// measures); `KEYHOLD_BENCH_PATH_ONLY=1` runs this part alone, e.g. under `valgrind
// --tool=callgrind` to count instructions per key.
#if canImport(Glibc)
import Glibc
#endif
import KeyholdKit
import KeyholdLinux

/// A keyboard whose next read hands over the events queued in `pending`.
private final class ScriptedKeyboard: KeyboardDevice {
    let path = "/dev/input/event0", name = "Benchmark Keyboard", fd: Int32 = 3
    var identity: DeviceIdentity {
        DeviceIdentity(path: path, name: name, vendor: 1, product: 1, bustype: 3, phys: "", hasLettersAndSpace: true,
                       hasPointerAxes: false)
    }
    var keysHeld: [UInt16] { [] }
    var anyKeyHeld: Bool { false }
    var pending: [DeviceEvent] = []
    func useMonotonicClock() -> Bool { true }
    func grab() -> Int32 { 0 }
    func ungrab() {}
    func setLEDs(_ leds: LEDState) {}
    func injectRelease(_ code: UInt16) -> Bool { false }
    func readAvailable(_ body: (DeviceEvent) -> Void) -> DeviceReadEnd {
        for event in pending { body(event) }
        pending.removeAll(keepingCapacity: true)
        return .drained
    }
}

private struct ScriptedSource: DeviceSource {
    let keyboard: ScriptedKeyboard
    func eventNodes() -> [String] { [keyboard.path] }
    func open(_ path: String) throws(DeviceOpenError) -> any KeyboardDevice { keyboard }
    func isKeyboard(_ path: String) -> Bool? { true }
    func seat(_ path: String) -> String? { nil }
}

/// Hands the device manager's read handler to the benchmark, which plays the event loop.
private final class DirectWatcher: FileWatcher {
    var handler: (() -> Void)?
    func watch(_ fd: Int32, handler: @escaping () -> Void) throws(SystemError) -> EventLoop.Token {
        self.handler = handler
        return 1
    }
    func unwatch(_ token: EventLoop.Token) { handler = nil }
}

private final class SteppedClock: TimeSource {
    var time = Timestamp.zero
    func now() -> Timestamp { time }
}

/// What the virtual keyboard would write, counted.
private final class CountingSink: KeyEventOutput {
    var count = 0
    /// A press was handed to the device manager and nothing written since.
    var pressPending = false
    func send(_ key: KeyCode, _ state: KeyState) {
        count &+= 1
        if pressPending { pressPending = false; benchmarkPressWritten() }
    }
}

// Where a press's way to the write begins and ends, for callgrind to find by name
// (`scripts/callgrind-keys`: --zero-before the first, --dump-before the second, so each dump holds
// one press's instructions and calls before its key is written). Each touches a counter of its
// own and is not optimized, so no call to them is optimized away and the two are never folded
// into one (they were: every call went to the second, and each dump then ran from one mark to
// the next, press and release alike).
private nonisolated(unsafe) var pressReads = 0, pressWrites = 0
@_optimize(none) @inline(never) func benchmarkPressReadStarts() { pressReads &+= 1 }
@_optimize(none) @inline(never) func benchmarkPressWritten() { pressWrites &+= 1 }

private final class SilentFeedback: AudioFeedbackEngine, HapticFeedbackEngine {
    var played = 0
    func play(_ feedback: AudioFeedback) { played &+= 1 }
    func play(_ feedback: HapticFeedback) { played &+= 1 }
}

func runDaemonPathBenchmark() {
    let keyboard = ScriptedKeyboard(), watcher = DirectWatcher(), clock = SteppedClock()
    let configuration = KeyholdConfiguration()
    let layout: KeyboardLayout = (try? XKBLayout(XKBNames())) ?? USLayout()
    let sink = CountingSink(), silent = SilentFeedback()
    let output = OutputQueue(sink: sink, pacing: .init(paceMicroseconds: configuration.output.paceMicroseconds),
                             clock: { clock.time })
    let controller = KeyboardInputViewController(configuration: configuration, output: output, layout: layout)
    let deferred = DeferredFeedback(audio: silent, haptic: silent)
    controller.services.audioEngine = deferred
    controller.services.hapticEngine = deferred
    let engine = controller.start()
    engine.defersFeedback = true
    // The daemon's monitors and companion hub observe every engine it builds (`keyhold monitor`,
    // the picker).
    let loop = try? EventLoop()
    let socketPath = "/tmp/keyhold-bench-\(getpid()).sock"
    let control = loop.flatMap { try? ControlServer(path: socketPath, group: nil, loop: $0, handler: nil) }
    defer { control?.shutdown(); unlink(socketPath) }
    let hub = loop.map { CompanionHub(output: output, loop: $0, configuration: configuration) }   // (observers are weak)
    defer { withExtendedLifetime(hub) {} }
    if let control, let hub {
        hub.serve(control)
        engine.addObserver(control.monitor)
        engine.addObserver(hub)
    } else {
        print("daemon path: no control socket; measured without its observers")
    }

    final class Forward: DeviceManagerDelegate {
        let engine: KeyholdEngine
        init(_ engine: KeyholdEngine) { self.engine = engine }
        func deviceManager(_ manager: DeviceManager, key event: KeyEvent) { engine.handle(event) }
        func deviceManager(_ manager: DeviceManager, released keys: [KeyCode], at time: Timestamp) {
            engine.release(keys: keys, at: time)
        }
        func deviceManagerGrabsChanged(_ manager: DeviceManager) {}
    }
    let delegate = Forward(engine)
    let devices = DeviceManager(source: ScriptedSource(keyboard: keyboard), watcher: watcher, clock: clock,
                                settings: configuration.devices)
    devices.delegate = delegate
    devices.start(hotplug: nil)
    guard let readable = watcher.handler else { print("daemon path: the device was not opened; skipped"); return }

    /// One wake-up: the read, the engine, then the daemon's end of batch.
    func wake(_ code: UInt16, _ value: Int32) {
        clock.time = clock.time.adding(microseconds: 40_000)
        keyboard.pending.append(.key(code: code, value: value, time: clock.time))
        keyboard.pending.append(.frameEnd)
        if value == 1 { sink.pressPending = true; benchmarkPressReadStarts() }
        readable()
        output.drain()
        engine.playDeferredFeedback()
        deferred.flush()
        let deadline = Timestamp.earliest(.earliest(engine.nextDeadline, output.nextDeadline), devices.nextDeadline)
        if let deadline, deadline <= clock.time { engine.advance(to: deadline) }
    }

    print("daemon path: one wake-up (read batch -> DeviceManager -> engine -> OutputQueue -> end of batch), no system calls")
    let taps = getenv("KEYHOLD_BENCH_PATH_TAPS").flatMap { Int(String(cString: $0)) } ?? 20_000
    let only = getenv("KEYHOLD_BENCH_PATH_KEY").map { String(cString: $0) }
    // Under callgrind (scripts/callgrind-keys) only the keys' own work is wanted: no clock
    // reads and no sorting of the times, whose cost depends on the times themselves.
    let untimed = getenv("KEYHOLD_BENCH_PATH_UNTIMED") != nil
    for (label, key) in [("forwarded x", KeyCode.x), ("handled e", KeyCode.e)] where only == nil || only == key.name {
        if untimed {
            for _ in 0..<taps { wake(key.rawValue, 1); wake(key.rawValue, 0) }
            print("  \(label): \(taps) taps, untimed")
            continue
        }
        var ns: [UInt64] = []
        ns.reserveCapacity(taps * 2)
        let written = sink.count
        for _ in 0..<taps {
            for value: Int32 in [1, 0] {
                let t0 = nowNanoseconds()
                wake(key.rawValue, value)
                ns.append(nowNanoseconds() - t0)
            }
        }
        ns.sort()
        let total = ns.reduce(0, +)
        print("  \(label): \(taps) taps, \(sink.count - written) keys written; ns per wake-up p50 \(ns[ns.count / 2])"
              + "  p99 \(ns[ns.count * 99 / 100])  mean \(total / UInt64(ns.count))")
    }
    print("  feedback played after the batch: \(silent.played)")
}
