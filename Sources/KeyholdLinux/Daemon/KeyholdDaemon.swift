import CLinuxShim
import Glibc
import KeyholdKit

/// The daemon: the keyboards `DeviceManager` grabs feed a `KeyholdEngine` (built by
/// `EngineFactory`), whose output the `OutputQueue` types on the virtual keyboard, all on one
/// epoll loop (device fds, hotplug, one deadline timerfd, a signalfd, the uinput fd for LEDs,
/// the control socket). Reloading is in `KeyholdDaemon+Reload.swift`, the session companion and
/// the control socket in `KeyholdDaemon+Session.swift` (docs/ARCHITECTURE.md, Data path, Threads).
///
///     let daemon = try KeyholdDaemon(configuration: config) { try (ConfigurationLoader.load(path: p), p) }
///     daemon.prepareEngine = { engine in engine.services.calloutActionProvider = MyProvider() }
///     exit(daemon.run())
public final class KeyholdDaemon {
    /// Loads the configuration again on SIGHUP: the configuration and where it came from.
    public typealias Reloader = () throws -> (configuration: KeyholdConfiguration, source: String)

    /// The configuration in force: the system's (the file's, or the embedded default), with the
    /// personal settings of the user in front laid over it (`hub.configuration`).
    public internal(set) var configuration: KeyholdConfiguration
    /// The running engine (rebuilt on reload); nil before `run()`.
    public internal(set) var engine: KeyholdEngine!
    /// Called with every engine the daemon builds (at start and after each reload), before it
    /// sees any event: replace services here, as KeyboardKit users do.
    public var prepareEngine: ((KeyholdEngine) -> Void)? {
        get { factory.prepareEngine }
        set { factory.prepareEngine = newValue }
    }
    /// The controller type the daemon drives the keyboard with: a subclass installs its own
    /// services in `viewDidLoad()`.
    public var controllerType: KeyboardInputViewController.Type {
        get { factory.controllerType }
        set { factory.controllerType = newValue }
    }
    /// The running controller (rebuilt on reload); nil before `run()`.
    public internal(set) var controller: KeyboardInputViewController?
    /// Pause between releasing every key and destroying the virtual keyboard at shutdown, so
    /// programs read the releases before the device vanishes (evdev returns ENODEV, not queued
    /// events, once a device is gone).
    public var shutdownSettleMicroseconds: UInt32 = 200_000

    public let virtualKeyboard: VirtualKeyboard
    /// Everything typed, in order, paced onto the virtual keyboard (the timer drains it).
    public let outputQueue: OutputQueue
    public internal(set) var layout: KeyboardLayout
    var layoutNames: XKBNames
    /// This system's `us` being compiled to compare with the built-in tables the daemon started
    /// on; and whether it typed differently, so later layouts are compiled (nil: not known yet).
    var keymapCheck: KeymapCheck?
    /// Makes the search's table for the configured locales (`prepareSearch`).
    private var searchPreparation: WorkerThread?
    /// The callout picks of the user in front (`[callouts] order = "frequent"`), shared by every
    /// engine built: in memory only, as their companion handed them over and picks add to them.
    let picks = CalloutPicks()
    var builtInKeymapDiffers: Bool?
    let reloader: Reloader?
    let loop: EventLoop
    let devices: DeviceManager
    /// Read once per loop wake-up at most.
    let clock = BatchClock()
    private let timer: DeadlineTimer
    private let signals: SignalReader
    let notifier = SystemdNotifier()
    private var watchdog: DeadlineTimer?
    lazy var factory = EngineFactory { [unowned self] in self.playInSession($0) }
    /// The control socket (`keyhold status|reload|pause|resume|monitor`); nil before `run()` or
    /// when it could not be created.
    public internal(set) var control: ControlServer?
    /// Where `run()` creates the control socket; nil: no control socket.
    public var controlPath: String? = ControlSocketPath.forDaemon()
    /// Shown by `keyhold status`.
    public var version: String?
    /// Where the running configuration came from, for `keyhold status`.
    public var configurationSource = "(embedded default)"
    /// Locks the daemon's pages in RAM once the keyboards are grabbed (`keyhold run --lock-memory`).
    public var locksMemory = false
    var sleepMonitor: SleepMonitor?
    /// Where the keystrokes go (the seat's active session), for `unicode_method = "auto"`.
    var outputTarget: OutputTargetWatcher?
    /// Where the keys go and the session companions: the one of the session in front types,
    /// shows the picker, says what has the focus, whose application rules are then in force.
    let hub: CompanionHub
    /// Every key passes through unchanged (`keyhold pause`).
    var paused = false
    /// What the engine was last told is in force for the application in front.
    var appliedSettings: ApplicationSettings?

    public enum StopReason: CustomStringConvertible {
        case signal(Int32), panic, failure(String)
        public var description: String {
            switch self {
            case .signal(let s): return s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : "signal \(s)"
            case .panic: return "panic escape (Backspace+Escape+Enter held)"
            case .failure(let message): return message
            }
        }
    }
    private var stopReason: StopReason?

    /// Blocks SIGTERM/SIGINT/SIGHUP (they arrive through a signalfd), compiles the layout and
    /// creates the virtual keyboard. Throws `DaemonError` (configuration errors mean exit 2).
    public init(configuration: KeyholdConfiguration, reload: Reloader? = nil) throws(DaemonError) {
        self.configuration = configuration
        self.reloader = reload
        // Only the input path runs at the real-time priority the service (or chrt) gives: the
        // threads made later (sound, keymap check) start as ordinary ones, so no key waits for
        // them on a busy or one-CPU machine. The service asks the same of systemd
        // (CPUSchedulingResetOnFork=), as its system call filter refuses this call.
        _ = keyhold_reset_realtime_on_fork()
        do {
            signals = try SignalReader(signals: [SIGTERM, SIGINT, SIGHUP])
            loop = try EventLoop()
            timer = try DeadlineTimer()
        } catch { throw .system(error) }
        do {
            (layout, layoutNames) = try KeyholdDaemon.makeLayout(configuration.output)
        } catch { throw .configuration(error.description) }
        StartupTimeline.mark("layout")
        do { virtualKeyboard = try VirtualKeyboard() } catch { throw .virtualKeyboard(error) }
        StartupTimeline.mark("virtual keyboard")
        outputQueue = OutputQueue(sink: virtualKeyboard, pacing: .init(paceMicroseconds: configuration.output.paceMicroseconds),
                                  clock: { [clock] in clock.batchTime() })
        hub = CompanionHub(output: outputQueue, loop: loop, configuration: configuration)
        devices = DeviceManager(watcher: loop, clock: clock, settings: configuration.devices, ownNode: virtualKeyboard.devnode)
        devices.delegate = self
        hub.delegate = self
        loop.onWake = { [clock] in clock.newBatch() }
        signal(SIGPIPE, SIG_IGN)
    }

    public enum DaemonError: Error, CustomStringConvertible {
        case system(SystemError), configuration(String), virtualKeyboard(SystemError)
        public var description: String {
            switch self {
            case .system(let e): return e.description
            case .configuration(let message): return message
            case .virtualKeyboard(let e):
                return "cannot create the virtual keyboard: \(e) (is the uinput module loaded and /dev/uinput writable?)"
            }
        }
    }

    /// The layout for `[output]`: an XKB layout; when the layout came from the configuration and
    /// does not compile, that is a configuration error; otherwise the built-in `us` stands in.
    /// `files` are where the system keeps its layout; `keyhold simulate` passes none, so it types
    /// on `us` where the daemon would type on the system's layout, with the same variant and options.
    /// Plain `us` comes from the built-in tables (`BuiltInKeymap`) unless `builtIn` is false.
    public static func makeLayout(_ output: KeyholdConfiguration.OutputSettings, files: [String] = XKBNames.systemFiles,
                                  builtIn: Bool = true) throws(XKBLayout.Error) -> (KeyboardLayout, XKBNames) {
        let names = XKBNames.resolve(output, files: files)
        if builtIn, let tables = BuiltInKeymap.tables(for: names) { return (XKBLayout(tables: tables, names: names), names) }
        do {
            return (try XKBLayout(names), names)
        } catch {
            if names.source == "config" { throw error }
            Log.warning("\(error); using the built-in us layout")
            return (USLayout(), names)
        }
    }

    // MARK: - Running

    /// Runs until SIGTERM, SIGINT or the panic escape; returns the exit status (0 after a clean
    /// shutdown: every key released, devices ungrabbed, the virtual keyboard destroyed).
    ///
    /// The keyboards are grabbed first and typing works from then on; what only the desktop
    /// needs (the control socket, the session watcher, suspend handling) starts in the event
    /// loop's first turns, one step per turn, after any key already pressed: in the TCG guest the
    /// control socket took 20-28 ms and loading libsystemd and asking logind 13-19 ms, and a key
    /// pressed meanwhile waited for all of it.
    public func run() -> Int32 {
        buildEngine()
        do {
            try loop.watch(signals.fd) { [unowned self] in self.handleSignals() }
            try loop.watch(timer.fd) { [unowned self] in self.timerFired() }
            try loop.watch(virtualKeyboard.fd) { [unowned self] in self.ledsChanged() }
        } catch {
            Log.error("\(error)")
            return shutdown(.failure("\(error)"), status: 1)
        }
        devices.leds = virtualKeyboard.leds
        let hotplug: HotplugMonitor?
        do { hotplug = try HotplugMonitor() } catch {
            Log.warning("hotplug disabled: \(error); only keyboards present at start are used")
            hotplug = nil
        }
        devices.start(hotplug: hotplug)
        StartupTimeline.mark("keyboards grabbed")
        var startFailed = false
        let steps: [() -> String?] = sessionStartSteps.map { step in { step(); return nil } } + [{ [unowned self] in finishStart() }]
        runStartSteps(steps[...]) { [unowned self] failure in
            Log.error(failure)
            startFailed = true
            self.stop(.failure(failure))
        }
        do {
            try loop.run { [unowned self] in self.endOfBatch() }
        } catch {
            return shutdown(.failure("\(error)"), status: 1)
        }
        return shutdown(stopReason ?? .failure("event loop ended"), status: startFailed ? 1 : 0)
    }

    /// Runs the first step in the loop's next turn and queues the rest after it, each in a turn
    /// of its own (`EventLoop.afterBatch`); stops at the first that fails, or when the daemon
    /// is stopping (a signal or the panic escape during the start).
    private func runStartSteps(_ steps: ArraySlice<() -> String?>, failed: @escaping (String) -> Void) {
        guard let step = steps.first else { return }
        loop.afterBatch { [unowned self] in
            guard stopReason == nil else { return }
            if let failure = step() { failed(failure); return }
            runStartSteps(steps.dropFirst(), failed: failed)
        }
    }

    /// The last step of the start, once keys flow and the session services run: the memory
    /// lock, the watchdog, then READY=1. Returns what failed.
    private func finishStart() -> String? {
        if locksMemory { lockMemory() }
        do {
            if let interval = notifier.watchdogInterval {
                let watchdog = try DeadlineTimer()
                watchdog.repeatEvery(microseconds: interval)
                try loop.watch(watchdog.fd) { [unowned self, unowned watchdog] in
                    watchdog.acknowledge()
                    self.notifier.notify("WATCHDOG=1")
                }
                self.watchdog = watchdog
            }
        } catch {
            return "\(error)"
        }
        Log.info("ready: virtual keyboard \(virtualKeyboard.devnode ?? "(no event node)"), layout \(layoutNames)"
                 + ", unicode method \(hub.unicodeMethodLine), \(devices.grabbedCount) keyboard(s) grabbed")
        notifier.notify("READY=1\nSTATUS=\(devices.grabbedCount) keyboard(s) grabbed")
        StartupTimeline.mark("ready")
        checkBuiltInKeymap()
        if let steps = StartupTimeline.takeSummary(from: StartupTimeline.processStart()) {
            Log.info("start, in ms from the process's start (±10 ms): \(steps)")
        }
        return nil
    }

    /// mlockall: the pages in use now and every page touched later stay in RAM (MCL_ONFAULT: a
    /// library's pages are locked as they are used, not all read in), so memory pressure never
    /// makes a key wait for the disk. Needs RLIMIT_MEMLOCK (the service's LimitMEMLOCK) or
    /// CAP_IPC_LOCK; without them the daemon runs on unlocked.
    private func lockMemory() {
        if mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0 {
            Log.info("memory locked (mlockall)")
        } else {
            Log.warning("cannot lock memory: \(errorString(errno)) (raise LimitMEMLOCK, or run without --lock-memory)")
        }
    }

    /// Makes the controller and engine for the running configuration (at start and on reload).
    func buildEngine() {
        engine?.playDeferredFeedback()   // into the daemon's queue, still played after the keys
        appliedSettings = hub.settings
        let observers: [EngineObserver] = (control.map { [$0.monitor] } ?? []) + [hub]
        let state = EngineFactory.State(unicodeMethod: hub.unicodeMethod.method, leds: virtualKeyboard.leds, paused: paused,
                                        application: hub.settings, picks: picks,
                                        recentSearches: engine?.services.searchContext.recent ?? [],
                                        observers: observers, onPanic: { [unowned self] in panicked() })
        (controller, engine) = factory.make(configuration, output: outputQueue, layout: activeLayout, state: state)
        prepareSearch()
    }

    /// Makes the search's table for the configured callout locales off the input thread (+6-10 MB),
    /// so that the first search finds it made rather than parse it there.
    private func prepareSearch() {
        searchPreparation = WorkerThread.makingSearchTable(for: configuration.callouts.locales, name: "keyhold-search",
                                                           after: searchPreparation)
    }

    /// The engine saw Backspace, Escape and Enter held: the daemon ends if one keyboard holds
    /// them that has been there for a moment (`DeviceManager.panicChordIsHeldOnOneKeyboard`).
    private func panicked() {
        guard devices.panicChordIsHeldOnOneKeyboard() else {
            Log.notice("panic escape ignored: Backspace, Escape and Enter are not held on one keyboard grabbed for "
                       + "\(DeviceManager.panicMinimumGrabbedMilliseconds / 1000) s or more")
            return
        }
        stop(.panic)
    }

    /// Ends the loop after the current batch.
    public func stop(_ reason: StopReason) {
        guard stopReason == nil else { return }
        stopReason = reason
        devices.freeze()
        loop.stop()
    }

    private func shutdown(_ reason: StopReason, status: Int32) -> Int32 {
        clock.newBatch()
        if case .failure = reason { Log.error("stopping: \(reason)") } else { Log.notice("stopping: \(reason)") }
        notifier.notify("STOPPING=1")
        control?.monitor.publishNotice("stopping", detail: "\(reason)")
        sleepMonitor?.close()
        outputTarget?.close()
        engine?.releaseAll()
        outputQueue.drainAll()
        virtualKeyboard.flush()
        engine?.playDeferredFeedback()
        factory.deferred.flush()
        factory.close()   // after the keys: a sound in progress may end first
        devices.stop()
        if shutdownSettleMicroseconds > 0 { usleep(shutdownSettleMicroseconds) }
        virtualKeyboard.destroy()
        Log.info("virtual keyboard removed, every key released")
        control?.shutdown()
        return status
    }

    /// After every loop batch: write what the engine typed (as much as the queue's pacing lets
    /// out now), then decide and play the batch's feedback, then arm the timer for the next
    /// deadline.
    private func endOfBatch() {
        outputQueue.drain()
        virtualKeyboard.flush()
        engine.playDeferredFeedback()
        factory.deferred.flush()
        timer.arm(at: .earliest(.earliest(engine.nextDeadline, outputQueue.nextDeadline), devices.nextDeadline))
    }

    private func timerFired() {
        timer.acknowledge()
        let now = clock.now()
        engine.advance(to: now)
        devices.advance(to: now)
    }

    private func handleSignals() {
        for signo in signals.pending() {
            switch signo {
            case SIGHUP:
                switch reloadConfiguration() {
                case .reloaded(let source): control?.monitor.publishNotice("reloaded", detail: source)
                case .failed(let message): control?.monitor.publishNotice("reload failed", detail: message)
                }
            default: stop(.signal(signo))
            }
        }
    }

    /// The desktop changed the LEDs of the virtual keyboard: the engine and every keyboard follow.
    private func ledsChanged() {
        guard virtualKeyboard.readFeedback() else { return }
        let leds = virtualKeyboard.leds
        engine.services.keyboardContext.isCapsLockOn = leds.capsLock
        engine.services.keyboardContext.isNumLockOn = leds.numLock
        devices.leds = leds
    }
}

extension KeyholdDaemon: DeviceManagerDelegate {
    public func deviceManager(_ manager: DeviceManager, key event: KeyEvent) {
        clock.noteEvent(at: event.time)
        engine.handle(event)
    }

    public func deviceManager(_ manager: DeviceManager, released keys: [KeyCode], at time: Timestamp) {
        engine.release(keys: keys, at: time)
    }

    public func deviceManagerGrabsChanged(_ manager: DeviceManager) {
        notifier.notify("STATUS=\(manager.grabbedCount) keyboard(s) grabbed")
    }
}
