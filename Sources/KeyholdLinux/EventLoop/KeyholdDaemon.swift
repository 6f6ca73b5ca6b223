import Glibc
import KeyholdKit

/// The daemon: grabs keyboards, feeds their key events to a `KeyholdEngine`, types the engine's
/// output on the virtual keyboard, and runs everything on one epoll loop (device fds, the hotplug
/// monitor, one deadline timerfd, a signalfd, the uinput fd for LEDs).
///
///     let daemon = try KeyholdDaemon(configuration: config) { try (ConfigurationLoader.load(path: p), p) }
///     daemon.prepareEngine = { engine in engine.services.calloutActionProvider = MyProvider() }
///     exit(daemon.run())
public final class KeyholdDaemon {
    /// Loads the configuration again on SIGHUP: the configuration and where it came from.
    public typealias Reloader = () throws -> (configuration: KeyholdConfiguration, source: String)

    public private(set) var configuration: KeyholdConfiguration
    /// The running engine (rebuilt on reload); nil before `run()`.
    public private(set) var engine: KeyholdEngine!
    /// Called with every engine the daemon builds (at start and after each reload), before it
    /// sees any event: replace services here, as KeyboardKit users do.
    public var prepareEngine: ((KeyholdEngine) -> Void)?
    /// The controller type the daemon drives the keyboard with: a subclass installs its own
    /// services in `viewDidLoad()`.
    public var controllerType: KeyboardInputViewController.Type = KeyboardInputViewController.self
    /// The running controller (rebuilt on reload); nil before `run()`.
    public private(set) var controller: KeyboardInputViewController?
    /// Pause between releasing every key and destroying the virtual keyboard at shutdown, so
    /// programs read the releases before the device vanishes (evdev returns ENODEV, not queued
    /// events, once a device is gone).
    public var shutdownSettleMicroseconds: UInt32 = 200_000

    public let virtualKeyboard: VirtualKeyboard
    /// Everything typed, in order, paced onto the virtual keyboard (the timer drains it).
    public let outputQueue: OutputQueue
    public private(set) var layout: KeyboardLayout
    private var layoutNames: XKBNames
    private let reloader: Reloader?
    private let loop: EventLoop
    private let timer: DeadlineTimer
    private let signals: SignalReader
    private let notifier = SystemdNotifier()
    private var watchdog: DeadlineTimer?
    private var hotplug: HotplugMonitor?
    /// The control socket (`keyhold status|reload|pause|resume|monitor`); nil before `run()` or
    /// when it could not be created.
    public private(set) var control: ControlServer?
    /// Where `run()` creates the control socket; nil: no control socket.
    public var controlPath: String? = ControlSocketPath.forDaemon()
    /// Shown by `keyhold status`.
    public var version: String?
    /// Where the running configuration came from, for `keyhold status`.
    public var configurationSource = "(embedded default)"
    private var sleepMonitor: SleepMonitor?
    /// Where the keystrokes go (the seat's active session), for `unicode_method = "auto"`.
    private var outputTarget: OutputTargetWatcher?
    /// Connected `keyhold-session` companions, oldest first; text goes only to the one of the
    /// session the keystrokes go to.
    private var companions: [SessionCompanion] = []
    /// The companion of the session in front of the user, if it is connected.
    private var activeCompanion: SessionCompanion?
    /// The desktop layout each user's companion last reported: still the best knowledge of
    /// that desktop's keymap when the companion has gone (killed, restarting).
    private var desktopLayouts: [UInt32: (layout: KeyboardLayout, name: String)] = [:]
    private var paused = false

    private final class ManagedDevice {
        let device: InputDevice
        var token: EventLoop.Token = 0
        /// Keys down on this device as fed to the engine (only while grabbed).
        var keysDown = Set<UInt16>()
        /// When the grab started (nil: waiting for every key to be up before grabbing).
        var grabbedAt: Timestamp?
        /// A grab given up because a key went down just before it: events stamped in this window
        /// reached only Keyhold, so their releases must be sent back to everyone else.
        var abandonedGrab: Range<Timestamp>?
        var announcedWaiting = false
        /// SYN_DROPPED warnings are rate-limited: one line, then a count every 10 s at most.
        var lastDropLog: Timestamp?
        var dropsSinceLog = 0
        init(_ device: InputDevice) { self.device = device }
    }
    private var devices: [String: ManagedDevice] = [:]
    /// Nodes that appeared but could not be opened yet (udev may still be applying permissions).
    private var pendingOpens: [String: (attempts: Int, due: Timestamp)] = [:]
    private static let openRetryInterval = 100, openRetryAttempts = 30
    /// How many grabbed devices hold each key: the engine sees one down and one up per key even
    /// when two keyboards press the same key.
    private var heldCount = [UInt8](repeating: 0, count: KeyCode.count)

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
        do {
            signals = try SignalReader(signals: [SIGTERM, SIGINT, SIGHUP])
            loop = try EventLoop()
            timer = try DeadlineTimer()
        } catch { throw .system(error) }
        do {
            (layout, layoutNames) = try KeyholdDaemon.makeLayout(configuration.output)
        } catch { throw .configuration(error.description) }
        do { virtualKeyboard = try VirtualKeyboard() } catch { throw .virtualKeyboard(error) }
        outputQueue = OutputQueue(sink: virtualKeyboard, pacing: .init(paceMicroseconds: configuration.output.paceMicroseconds),
                                  clock: MonotonicClock.now)
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
    static func makeLayout(_ output: KeyholdConfiguration.OutputSettings) throws(XKBLayout.Error) -> (KeyboardLayout, XKBNames) {
        let names = XKBNames.resolve(output)
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
    public func run() -> Int32 {
        if let controlPath {
            do {
                control = try ControlServer(path: controlPath, loop: loop, handler: self)
                control?.version = version
            } catch {
                Log.warning("control socket disabled: \(error)")
            }
        }
        let watcher = OutputTargetWatcher(loop: loop)
        watcher.start()
        watcher.onChange = { [unowned self] _ in self.applyOutputTarget() }
        outputTarget = watcher
        // An X server cannot represent evdev codes above 247 (X keycodes stop at 255): it never
        // delivers those, so the companion cannot count them.
        outputQueue.counts = { $0.rawValue <= 247 }
        outputQueue.onCompanionTimeout = { [unowned self] companion in
            guard let companion = companion as? SessionCompanion else { return }
            let ms = self.outputQueue.acknowledgementTimeoutMicroseconds / 1000
            self.dropCompanion(companion, why: "did not answer within \(ms) ms; typing with ctrl-shift-u")
        }
        buildEngine()
        do {
            try loop.watch(signals.fd) { [unowned self] in self.handleSignals() }
            try loop.watch(timer.fd) { [unowned self] in self.timerFired() }
            try loop.watch(virtualKeyboard.fd) { [unowned self] in self.ledsChanged() }
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
            Log.error("\(error)")
            return shutdown(.failure("\(error)"), status: 1)
        }
        startHotplug()
        sleepMonitor = SleepMonitor.start(loop: loop) { [unowned self] goingToSleep in self.systemSleep(goingToSleep) }
        for node in DevicePolicy.eventNodes() { openDevice(node, retry: false) }
        Log.info("ready: virtual keyboard \(virtualKeyboard.devnode ?? "(no event node)"), layout \(layoutNames)"
                 + ", unicode method \(unicodeMethod.method.rawValue) (\(unicodeMethod.reason)), \(grabbedCount) keyboard(s) grabbed")
        notifier.notify("READY=1\nSTATUS=\(grabbedCount) keyboard(s) grabbed")
        do {
            try loop.run { [unowned self] in self.endOfBatch() }
        } catch {
            return shutdown(.failure("\(error)"), status: 1)
        }
        return shutdown(stopReason ?? .failure("event loop ended"), status: 0)
    }

    private var grabbedCount: Int { devices.values.filter { $0.grabbedAt != nil }.count }

    /// Audio (ALSA) and haptic (evdev force feedback) engines, reopened off the input thread when
    /// `[feedback]` changes (kept across reloads that leave it unchanged, so the PCM is not
    /// reopened); in a graphical session the companion plays the sounds instead.
    private let feedback = FeedbackSwitch()
    private var feedbackSettings: KeyboardFeedbackSettings?
    private lazy var audio: SessionAudioEngine = {
        let routed = SessionAudioEngine(local: feedback)
        routed.companion = { [unowned self] in self.playInSession($0) }
        return routed
    }()

    /// Makes the controller for the configuration, gives its services the daemon's engines and
    /// state, loads it (`viewDidLoad()`: a subclass installs its services) and starts its engine.
    private func buildEngine() {
        let controller = controllerType.init(configuration: configuration, output: outputQueue, layout: activeLayout)
        let services = controller.services
        if feedbackSettings != configuration.feedback {
            let settings = configuration.feedback
            feedbackSettings = settings
            feedback.reopen { (LinuxFeedbackEngines.audio(for: settings), LinuxFeedbackEngines.haptic(for: settings)) }
        }
        services.audioEngine = audio
        services.hapticEngine = feedback
        // `AudioFeedback.input.trigger()` in a custom handler plays on the same device.
        AudioFeedback.engine = audio
        HapticFeedback.engine = feedback
        services.unicodeMethod = unicodeMethod.method
        services.keyboardContext.isCapsLockOn = virtualKeyboard.leds.capsLock
        services.keyboardContext.isNumLockOn = virtualKeyboard.leds.numLock
        let engine = controller.start()
        self.controller = controller
        engine.onPanic = { [unowned self] in self.stop(.panic) }
        engine.isPaused = paused
        engine.observer = control
        prepareEngine?(engine)
        self.engine = engine
    }

    /// Sends a sound to the companion in front; false when there is none.
    private func playInSession(_ sound: AudioFeedback) -> Bool {
        guard configuration.feedback.isAudioEnabled, let activeCompanion, let control else { return false }
        return control.sendSound(sound, volume: configuration.feedback.audioVolume, to: activeCompanion)
    }

    private var target: OutputTarget { outputTarget?.target ?? OutputTarget(kind: .unknown, source: "not watched") }

    /// The configured Unicode method resolved for where the keystrokes go now, and why.
    private var unicodeMethod: (method: UnicodeMethod, reason: String) {
        configuration.output.unicodeMethod.resolved(for: target, companion: activeCompanion?.backend)
    }

    /// The layout keystrokes are typed with: the desktop's, as its companion reported it (also
    /// after the companion has gone); else the configured or system one.
    private var activeLayout: KeyboardLayout { desktopLayout?.layout ?? layout }
    private var activeLayoutName: String { desktopLayout?.name ?? "\(layoutNames)" }
    private var desktopLayout: (layout: KeyboardLayout, name: String)? {
        let target = self.target
        guard target.kind == .graphical, let uid = target.uid else { return nil }
        return desktopLayouts[uid]
    }

    /// The active session or its companion changed: type the way the new one understands, with
    /// its layout, and hand text only to its companion.
    private func applyOutputTarget() {
        let target = self.target
        let active = target.kind == .graphical ? companions.last(where: { $0.uid == target.uid }) : nil
        if active !== activeCompanion {
            activeCompanion = active
            outputQueue.companion = active
            control?.calloutCompanion = active
            active?.becameActive(writtenCount: outputQueue.writtenCount)
            Log.info("session companion: " + (active.map { "\($0)" } ?? "none for \(target)"))
        }
        if engine.services.layout !== activeLayout {
            engine.services.layout = activeLayout
            Log.info("layout \(activeLayoutName)")
        }
        let (method, reason) = unicodeMethod
        guard engine.services.unicodeMethod != method else { return }
        engine.services.unicodeMethod = method
        Log.info("unicode method \(method.rawValue) (\(reason))")
        control?.publishNotice("unicode method", detail: "\(method.rawValue) (\(reason))")
    }

    private func dropCompanion(_ companion: SessionCompanion, why: String) {
        Log.warning("\(companion): \(why)")
        companion.disconnect(why)
    }

    /// Ends the loop after the current batch.
    public func stop(_ reason: StopReason) {
        guard stopReason == nil else { return }
        stopReason = reason
        loop.stop()
    }

    private func shutdown(_ reason: StopReason, status: Int32) -> Int32 {
        if case .failure = reason { Log.error("stopping: \(reason)") } else { Log.notice("stopping: \(reason)") }
        notifier.notify("STOPPING=1")
        control?.publishNotice("stopping", detail: "\(reason)")
        sleepMonitor?.close()
        outputTarget?.close()
        engine?.releaseAll()
        outputQueue.drainAll()
        virtualKeyboard.flush()
        feedback.close()   // after the keys: a sound in progress may end first
        for (_, managed) in devices {
            loop.unwatch(managed.token)
            managed.device.ungrab()
        }
        devices.removeAll()
        if shutdownSettleMicroseconds > 0 { usleep(shutdownSettleMicroseconds) }
        virtualKeyboard.destroy()
        Log.info("virtual keyboard removed, every key released")
        control?.shutdown()
        return status
    }

    /// After every loop batch: write what the engine typed (as much as the queue's pacing lets
    /// out now), arm the timer for the next deadline.
    private func endOfBatch() {
        outputQueue.drain()
        virtualKeyboard.flush()
        var deadline = engine.nextDeadline
        if let paced = outputQueue.nextDeadline { deadline = deadline.map { min($0, paced) } ?? paced }
        if let retry = pendingOpens.values.map(\.due).min() { deadline = deadline.map { min($0, retry) } ?? retry }
        timer.arm(at: deadline)
    }

    private func timerFired() {
        timer.acknowledge()
        let now = MonotonicClock.now()
        engine.advance(to: now)
        let due = pendingOpens.filter { $0.value.due <= now }.map(\.key).sorted()
        for node in due { openDevice(node, retry: true) }
    }

    private func handleSignals() {
        for signo in signals.pending() {
            switch signo {
            case SIGHUP:
                switch reloadConfiguration() {
                case .reloaded(let source): control?.publishNotice("reloaded", detail: source)
                case .failed(let message): control?.publishNotice("reload failed", detail: message)
                }
            default: stop(.signal(signo))
            }
        }
    }

    // MARK: - LEDs

    private func ledsChanged() {
        guard virtualKeyboard.readFeedback() else { return }
        let leds = virtualKeyboard.leds
        engine.services.keyboardContext.isCapsLockOn = leds.capsLock
        engine.services.keyboardContext.isNumLockOn = leds.numLock
        for managed in devices.values where managed.grabbedAt != nil { managed.device.setLEDs(leds) }
    }

    // MARK: - Reload

    @discardableResult
    private func reloadConfiguration() -> ControlReloadResult {
        guard let reloader else { Log.warning("SIGHUP: no configuration file to reload"); return .failed("no configuration file to reload") }
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        let new: KeyholdConfiguration, source: String
        var newLayout = layout, newNames = layoutNames
        do {
            (new, source) = try reloader()
            let names = XKBNames.resolve(new.output)
            if names != layoutNames { (newLayout, newNames) = try KeyholdDaemon.makeLayout(new.output) }
        } catch {
            Log.error("reload failed, keeping the running configuration: \(error)")
            return .failed("\(error)")
        }
        if new == configuration && newNames == layoutNames {
            // Nothing to rebuild: keys held right now stay held.
            Log.info("reloaded configuration from \(source): unchanged")
            configurationSource = source
            return .reloaded(source: source)
        }
        // Keys passed through and held (a Shift) stay held across the reload, and the layer and
        // locale stay; what the old engine itself held is let go.
        let held = engine.handOver()
        configuration = new
        layout = newLayout
        layoutNames = newNames
        outputQueue.pacing.paceMicroseconds = new.output.paceMicroseconds
        buildEngine()
        engine.takeOver(held)
        applyOutputTarget()
        // Device rules may have changed: let go of devices no longer wanted, take new ones.
        for (path, managed) in devices where !DevicePolicy.decide(managed.device.identity, settings: new.devices).grab {
            closeDevice(path, why: "no longer matched by [devices]")
        }
        for node in DevicePolicy.eventNodes() { openDevice(node, retry: false) }
        Log.info("reloaded configuration from \(source) (layout \(layoutNames.layoutName))")
        configurationSource = source
        return .reloaded(source: source)
    }

    // MARK: - Devices

    private func startHotplug() {
        do {
            let monitor = try HotplugMonitor()
            try loop.watch(monitor.fd) { [unowned self, unowned monitor] in
                for change in monitor.changes() {
                    switch change {
                    case .added(let node): self.openDevice(node, retry: true)
                    case .removed(let node):
                        self.pendingOpens[node] = nil
                        if self.devices[node] != nil { self.closeDevice(node, why: "removed") }
                    }
                }
            }
            hotplug = monitor
            Log.info("hotplug: \(monitor.mode.rawValue)\(monitor.mode == .inotify ? " (udevd is not running)" : "")")
        } catch {
            Log.warning("hotplug disabled: \(error); only keyboards present at start are used")
        }
    }

    /// Opens a node, decides whether to take it, and grabs it once no key is held on it.
    private func openDevice(_ path: String, retry: Bool) {
        guard devices[path] == nil, path != virtualKeyboard.devnode else { pendingOpens[path] = nil; return }
        let device: InputDevice
        do {
            device = try InputDevice(path: path)
        } catch {
            // A node this user may not open that udev says is no keyboard (a mouse, a power
            // button) is none of Keyhold's business: no retry, no warning.
            if [EACCES, EPERM].contains(error.code), UdevInputClass.isKeyboard(path) == false {
                pendingOpens[path] = nil
                Log.debug("not opening \(path): not a keyboard (udev), and not ours to open")
                return
            }
            let transient = [ENOENT, EACCES, EPERM, ENXIO, EBUSY].contains(error.code)
            let attempts = (pendingOpens[path]?.attempts ?? 0) + 1
            if retry && transient && attempts < KeyholdDaemon.openRetryAttempts {
                pendingOpens[path] = (attempts, MonotonicClock.now() + KeyholdDaemon.openRetryInterval)
            } else {
                pendingOpens[path] = nil
                if error.code != ENOENT && error.code != ENODEV { Log.warning("cannot open \(path): \(error)") }
            }
            return
        }
        pendingOpens[path] = nil
        let decision = DevicePolicy.decide(device.identity, settings: configuration.devices)
        guard decision.grab else {
            Log.debug("not grabbing \(path) \"\(device.name)\": \(decision.reason)")
            return
        }
        if !device.useMonotonicClock() { Log.warning("\(path): cannot set CLOCK_MONOTONIC; gesture timing may be off") }
        let managed = ManagedDevice(device)
        do {
            managed.token = try loop.watch(device.fd) { [unowned self] in self.readDevice(path) }
        } catch {
            Log.error("cannot watch \(path): \(error)")
            return
        }
        devices[path] = managed
        readDevice(path)
    }

    private func tryGrab(_ managed: ManagedDevice) {
        let device = managed.device
        guard managed.grabbedAt == nil else { return }
        if device.anyKeyHeld {
            if !managed.announcedWaiting {
                managed.announcedWaiting = true
                Log.info("waiting for every key to be released on \(device.path) \"\(device.name)\" before grabbing it")
            }
            return
        }
        let rc = device.grab()
        // Stamped after the grab: an event from the instant of grabbing counts as seen by the
        // whole system (a spurious release later is harmless; a press seen twice would stick).
        let start = MonotonicClock.now()
        guard rc == 0 else {
            Log.warning("cannot grab \(device.path) \"\(device.name)\": \(errorString(-rc)) (another program grabs it?)")
            closeDevice(device.path, why: nil)
            return
        }
        managed.grabbedAt = start
        managed.abandonedGrab = nil
        managed.announcedWaiting = false
        device.setLEDs(virtualKeyboard.leds)
        Log.info("grabbed \(device.path) \"\(device.name)\" (\(device.identity.idString))")
        notifier.notify("STATUS=\(grabbedCount) keyboard(s) grabbed")
    }

    private func readDevice(_ path: String) {
        guard let managed = devices[path] else { return }
        let device = managed.device
        let end = device.readAvailable { event in
            guard stopReason == nil else { return }
            switch event {
            case .key(let code, let value, let time):
                guard let grabbedAt = managed.grabbedAt else {
                    // Read after giving a grab up: a release that only Keyhold saw goes back to
                    // the other readers, so the key they saw go down goes up there too.
                    if value == 0, let window = managed.abandonedGrab, window.contains(time) { device.injectRelease(code) }
                    return
                }
                if time < grabbedAt {
                    // Queued before the grab: the rest of the system saw it too. A key that went
                    // down then must also go up there: let go and grab again once all are up.
                    if value == 1 {
                        device.ungrab()
                        managed.grabbedAt = nil
                        managed.abandonedGrab = grabbedAt..<MonotonicClock.now()
                        Log.info("released the grab of \(path): a key went down just before it")
                    }
                    return
                }
                self.deviceKey(managed, code: code, value: value, time: time)
            case .frameEnd:
                break
            case .dropped:
                let now = MonotonicClock.now()
                managed.dropsSinceLog += 1
                if managed.lastDropLog.map({ now - $0 >= 10_000 }) ?? true {
                    Log.warning("\(path): the kernel dropped events (SYN_DROPPED, \(managed.dropsSinceLog) time(s)"
                                + "\(managed.lastDropLog == nil ? "" : " in the last 10 s")); resyncing")
                    managed.lastDropLog = now
                    managed.dropsSinceLog = 0
                }
            case .resynced:
                if managed.grabbedAt != nil { self.reconcile(managed) }
            }
        }
        switch end {
        case .drained:
            if managed.grabbedAt == nil && stopReason == nil && devices[path] != nil { tryGrab(managed) }
        case .gone:
            closeDevice(path, why: "removed")
        case .failed(let code):
            closeDevice(path, why: "read error: \(errorString(code))")
        }
    }

    private func deviceKey(_ managed: ManagedDevice, code: UInt16, value: Int32, time: Timestamp) {
        let i = Int(code)
        guard i > 0 && i < KeyCode.count else { return }
        let key = KeyCode(code)
        switch value {
        case 1:
            guard managed.keysDown.insert(code).inserted else { return }
            heldCount[i] &+= 1
            if heldCount[i] == 1 { engine.handle(KeyEvent(key, .down, at: time)) }
        case 0:
            guard managed.keysDown.remove(code) != nil else { return }
            heldCount[i] &-= 1
            if heldCount[i] == 0 { engine.handle(KeyEvent(key, .up, at: time)) }
        case 2:
            if managed.keysDown.contains(code) { engine.handle(KeyEvent(key, .autoRepeat, at: time)) }
        default:
            break
        }
    }

    /// After a resync, makes the keys the engine was told about match what libevdev says is held.
    private func reconcile(_ managed: ManagedDevice) {
        let now = MonotonicClock.now()
        let held = Set(managed.device.keysHeld)
        for code in managed.keysDown.subtracting(held).sorted() { deviceKey(managed, code: code, value: 0, time: now) }
        for code in held.subtracting(managed.keysDown).sorted() { deviceKey(managed, code: code, value: 1, time: now) }
    }

    /// Stops using a device; every key it held is released through the engine.
    private func closeDevice(_ path: String, why: String?) {
        guard let managed = devices.removeValue(forKey: path) else { return }
        loop.unwatch(managed.token)
        var released: [KeyCode] = []
        for code in managed.keysDown.sorted() {
            let i = Int(code)
            heldCount[i] &-= 1
            if heldCount[i] == 0 { released.append(KeyCode(code)) }
        }
        managed.keysDown.removeAll()
        if !released.isEmpty { engine.release(keys: released, at: MonotonicClock.now()) }
        let wasGrabbed = managed.grabbedAt != nil
        managed.device.ungrab()
        if let why {
            Log.info("\(wasGrabbed ? "released" : "closed") \(path) \"\(managed.device.name)\" (\(why))"
                     + (released.isEmpty ? "" : ", \(released.count) held key(s) released"))
        }
        notifier.notify("STATUS=\(grabbedCount) keyboard(s) grabbed")
    }
}

// MARK: - Control socket and suspend

extension KeyholdDaemon: ControlHandler {
    public func status() -> ControlStatus {
        ControlStatus(
            paused: paused, configuration: configurationSource, layout: activeLayoutName,
            unicodeMethod: "\(unicodeMethod.method.rawValue) (\(unicodeMethod.reason))",
            locale: engine?.services.keyboardContext.locale ?? "", virtualKeyboard: virtualKeyboard.devnode,
            keyboards: devices.values.sorted { $0.device.path < $1.device.path }.map {
                .init(path: $0.device.path, name: $0.device.name, id: $0.device.identity.idString, grabbed: $0.grabbedAt != nil)
            },
            extra: [("session companion", activeCompanion.map { "\($0)" } ?? (companions.isEmpty ? "none" : "\(companions.count) connected, none for \(target)")),
                    ("companion round trip", outputQueue.companionRoundTrip.map {
                        "p50 \(KeyholdDaemon.milliseconds($0.p50)), p99 \(KeyholdDaemon.milliseconds($0.p99)) (\($0.count) characters)"
                    } ?? "none yet"),
                    ("suspend", sleepMonitor == nil ? "not handled (no D-Bus)"
                     : sleepMonitor!.hasDelayLock ? "handled (sleep delay lock held)" : "handled")])
    }

    /// `1.25 ms` for 1250 µs.
    static func milliseconds(_ microseconds: Int64) -> String {
        let hundredths = (microseconds + 5) / 10
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
    }

    public func reload() -> ControlReloadResult { reloadConfiguration() }

    public func companionRefusal(uid: UInt32) -> String? {
        let target = self.target
        guard let owner = target.uid else { return "cannot tell whose session is active on the seat (\(target))" }
        guard owner == uid else { return "uid \(uid) does not own the seat's active session (\(target))" }
        guard target.kind == .graphical else { return "the seat's active session is not graphical (\(target))" }
        return nil
    }

    public func companionConnected(_ companion: SessionCompanion) {
        companions.append(companion)
        Log.info("\(companion) connected")
        applyOutputTarget()
    }

    public func companionDisconnected(_ companion: SessionCompanion) {
        companions.removeAll { $0 === companion }
        outputQueue.companionGone(companion)
        Log.info("\(companion) disconnected")
        applyOutputTarget()
    }

    public func companion(_ companion: SessionCompanion, reportedKeymap keymap: String, temporaryKeycodes: [Int]) throws(ControlProtocolError) -> String {
        let layout: XKBLayout
        let skipped = Set(temporaryKeycodes.map { KeyCode(UInt16($0 - 8)) })
        do { layout = try XKBLayout(keymapText: keymap, source: "keyhold-session pid \(companion.pid)", excluding: skipped) } catch {
            throw .malformed(error.description)
        }
        desktopLayouts[companion.uid] = (layout, "\(layout.names)")
        Log.info("\(companion): the desktop's keymap is \(layout.name)")
        applyOutputTarget()
        return layout.name
    }

    public func companion(_ companion: SessionCompanion, typed id: UInt64, delivered: Bool) {
        guard outputQueue.companion === companion else { return }
        if delivered { outputQueue.acknowledge(id) } else { outputQueue.companionWrote(id) }
    }

    public func companion(_ companion: SessionCompanion, picked index: Int) {
        guard companion === activeCompanion else { return }
        engine.pickCallout(index)
    }

    public func companionDismissedCallout(_ companion: SessionCompanion) {
        guard companion === activeCompanion, engine.services.calloutContext.isOpen else { return }
        Log.info("the session closed the callout (a click elsewhere or another window focused)")
        engine.dismissCallout()
    }

    public func pause() {
        paused = true
        engine.isPaused = true
        Log.info("paused: every key passes through unchanged")
    }

    public func resume() {
        paused = false
        engine.isPaused = false
        Log.info("resumed")
    }

    /// logind's PrepareForSleep: before sleep, let go of every key and write the releases out
    /// (the sleep delay lock is given back right after this returns); after resume, resync.
    private func systemSleep(_ goingToSleep: Bool) {
        if goingToSleep {
            engine.releaseAll()
            outputQueue.drainAll()
            virtualKeyboard.flush()
            control?.publishNotice("sleep", detail: "every key released")
        } else {
            for managed in devices.values where managed.grabbedAt != nil { reconcile(managed) }
            for node in DevicePolicy.eventNodes() { openDevice(node, retry: true) }
            control?.publishNotice("wake")
        }
    }
}
