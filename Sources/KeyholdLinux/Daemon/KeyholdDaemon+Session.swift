import Glibc
import KeyholdKit

// The graphical session (its companion, its layout, where keystrokes go), the control socket
// and suspend.

extension KeyholdDaemon {
    /// What the desktop needs, started once the keyboards are grabbed, one step per loop turn
    /// (`run()`): the control socket (the session companion connects there), the watcher of where
    /// the keystrokes go, suspend handling.
    var sessionStartSteps: [() -> Void] {
        [{ [unowned self] in startControlSocket() },
         { [unowned self] in startOutputTargetWatcher() },
         { [unowned self] in
             sleepMonitor = SleepMonitor.start(loop: loop) { [unowned self] goingToSleep in self.systemSleep(goingToSleep) }
             StartupTimeline.mark("session")
         }]
    }

    private func startControlSocket() {
        if let controlPath {
            do {
                control = try ControlServer(path: controlPath, loop: loop, handler: self)
                control?.version = version
                control?.onRecordsKeysChanged = { [unowned self] in self.engine?.observersChanged() }
                if let control { engine.addObserver(control) }
            } catch {
                Log.warning("control socket disabled: \(error)")
            }
        }
        StartupTimeline.mark("control socket")
    }

    private func startOutputTargetWatcher() {
        let watcher = OutputTargetWatcher(loop: loop)
        watcher.start()
        watcher.onChange = { [unowned self] _ in self.applyOutputTarget() }
        outputTarget = watcher
        // An X server cannot represent evdev codes above 247 (X keycodes stop at 255): it never
        // delivers those, so the companion cannot count them.
        for code in 248..<KeyCode.count { outputQueue.uncountedKeys.set(KeyCode(UInt16(code)), down: true) }
        outputQueue.onCompanionTimeout = { [unowned self] companion in
            guard let companion = companion as? SessionCompanion else { return }
            self.companionMissed(companion)
        }
        applyOutputTarget()
        StartupTimeline.mark("output target")
    }

    /// Sends a sound to the companion in front; false when there is none.
    func playInSession(_ sound: AudioFeedback) -> Bool {
        guard configuration.feedback.isAudioEnabled, let activeCompanion, let control else { return false }
        return control.companions.sendSound(sound, volume: configuration.feedback.audioVolume, to: activeCompanion)
    }

    var target: OutputTarget { outputTarget?.target ?? OutputTarget(kind: .unknown, source: "not watched") }

    /// The configured Unicode method (or the focused application's rule's) resolved for where
    /// the keystrokes go now, and why.
    var unicodeMethod: (method: UnicodeMethod, reason: String) {
        applicationSettings.unicodeMethod.resolved(for: target, companion: activeCompanion?.backend)
    }

    /// What is in force for the focused application (docs/ARCHITECTURE.md, Applications).
    var applicationSettings: ApplicationSettings { ApplicationSettings(configuration: configuration, focus: focus) }

    /// The focus moved (or the session in front did): the engine takes the rules of the
    /// application that has it now. Nothing of it is logged: `keyhold status` shows it.
    func applyFocus(_ focus: ApplicationFocus) {
        guard focus != self.focus else { return }
        let before = applicationSettings
        self.focus = focus
        let settings = applicationSettings
        engine.focusChanged(to: settings)
        if settings.rule != before.rule || settings.forwardsEverything != before.forwardsEverything || settings.callouts != before.callouts {
            control?.monitor.publishNotice("application", detail: settings.reason, activity: true)
        }
        applyOutputTarget()
    }

    /// The layout keystrokes are typed with: the desktop's, as its companion reported it (also
    /// after the companion has gone); else the configured or system one.
    var activeLayout: KeyboardLayout { desktopLayout?.layout ?? layout }
    var activeLayoutName: String { desktopLayout?.name ?? "\(layoutNames)" }
    var desktopLayout: (layout: KeyboardLayout, name: String)? {
        let target = self.target
        guard target.kind == .graphical, let key = Self.sessionKey(session: target.session, uid: target.uid) else { return nil }
        return desktopLayouts[key]
    }

    /// What the daemon keeps per session: the logind session, or without logind the user.
    static func sessionKey(session: String?, uid: UInt32?) -> String? {
        if let session { return "session \(session)" }
        return uid.map { "uid \($0)" }
    }
    static func sessionKey(of companion: SessionCompanion) -> String { sessionKey(session: companion.session, uid: companion.uid)! }

    /// The active session or its companion changed: type the way the new one understands, with
    /// its layout, and hand text only to its companion (the newest of that session, unless the
    /// session's companions keep missing their deadlines: `companionMissed`).
    func applyOutputTarget() {
        let target = self.target
        let now = MonotonicClock.now()
        let active = companions.last { $0.serves(target) && companionMisses.benchedUntil(Self.sessionKey(of: $0), at: now) == nil }
        if active !== activeCompanion {
            // A callout open in the session that goes closes there, keeping what it shows: it is
            // never handed to the next one (a switch not made from the keyboard, which would have
            // closed it).
            if engine.services.calloutContext.isOpen, activeCompanion != nil || active != nil {
                engine.dismissCallout()
            }
            activeCompanion = active
            // What the last session said has the focus says nothing of this one.
            if focus != .unknown {
                focus = .unknown
                engine.focusChanged(to: applicationSettings)
            }
            outputQueue.companion = active
            control?.companions.calloutCompanion = active
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
        control?.monitor.publishNotice("unicode method", detail: "\(method.rawValue) (\(reason))")
    }

    func dropCompanion(_ companion: SessionCompanion, why: String) {
        Log.warning("\(companion): \(why)")
        companion.disconnect(why)
    }

    /// The companion did not answer in time: it is dropped (the character is typed with the
    /// fallback), and a second miss in a row benches its session's companions (`CompanionMisses`).
    func companionMissed(_ companion: SessionCompanion) {
        let key = Self.sessionKey(of: companion)
        let ms = outputQueue.acknowledgementTimeoutMicroseconds / 1000
        var why = "did not answer within \(ms) ms; typing with ctrl-shift-u"
        if let until = companionMisses.missed(key, at: MonotonicClock.now()) {
            why += "; \(key) types without a companion for \((until.microseconds - MonotonicClock.now().microseconds + 500_000) / 1_000_000) s"
                + " (\(companionMisses.count(key)) missed in a row)"
            armBenchTimer(at: until)
        }
        dropCompanion(companion, why: why)
    }

    private func armBenchTimer(at deadline: Timestamp) {
        if benchTimer == nil, let timer = try? DeadlineTimer(),
           (try? loop.watch(timer.fd, handler: { [unowned self] in self.benchEnded() })) != nil {
            benchTimer = timer
        }
        benchTimer?.arm(at: deadline)
    }

    /// A session's time without a companion is over: its companion, if connected, types again.
    private func benchEnded() {
        benchTimer?.acknowledge()
        if let next = companionMisses.expire(at: MonotonicClock.now()) { benchTimer?.arm(at: next) }
        applyOutputTarget()
    }
}

// MARK: - Control socket and suspend

extension KeyholdDaemon: ControlHandler {
    public func status(activity: Bool) -> ControlStatus {
        let application = activity
            ? [("application", (focus.name ?? "unknown") + " (\(focus.textField.rawValue) text field): " + applicationSettings.reason)] : []
        return ControlStatus(
            paused: paused, configuration: configurationSource, layout: activeLayoutName,
            unicodeMethod: "\(unicodeMethod.method.rawValue) (\(unicodeMethod.reason))",
            locale: engine?.services.keyboardContext.locale ?? "", virtualKeyboard: virtualKeyboard.devnode,
            keyboards: devices.summaries.map { .init(path: $0.path, name: $0.name, id: $0.id, grabbed: $0.grabbed) },
            extra: application
                 + [("session companion", activeCompanion.map { "\($0)" + ($0.note.map { ": \($0)" } ?? "") } ?? companionAbsence),
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

    /// Why no companion types for the session in front.
    private var companionAbsence: String {
        let target = self.target
        if let key = Self.sessionKey(session: target.session, uid: target.uid),
           let until = companionMisses.benchedUntil(key, at: MonotonicClock.now()) {
            return "none for \(target): its companions missed their deadlines; typing without one for \((until.microseconds - MonotonicClock.now().microseconds) / 1_000_000) s more"
        }
        return companions.isEmpty ? "none" : "\(companions.count) connected, none for \(target)"
    }

    public func companionRefusal(uid: UInt32, session: String?) -> String? {
        let target = self.target
        guard let owner = target.uid else { return "cannot tell whose session is active on the seat (\(target))" }
        guard owner == uid else { return "uid \(uid) does not own the seat's active session (\(target))" }
        guard target.kind == .graphical else { return "the seat's active session is not graphical (\(target))" }
        if let active = target.session {
            guard let session else { return "cannot tell which session uid \(uid)'s companion serves" }
            guard session == active else { return "session \(session) of uid \(uid) is not the seat's active session (\(target))" }
        }
        return nil
    }

    public func companionConnected(_ companion: SessionCompanion) {
        companions.append(companion)
        Log.info("\(companion) connected" + (companion.session.map { " for session \($0)" } ?? ""))
        applyOutputTarget()
    }

    public func companionDisconnected(_ companion: SessionCompanion) {
        companions.removeAll { $0 === companion }
        control?.companions.forget(companion)
        outputQueue.companionGone(companion)
        Log.info("\(companion) disconnected")
        applyOutputTarget()
    }

    public func companionIsInFront(_ companion: SessionCompanion) -> Bool { companion.serves(target) }

    public func companion(_ companion: SessionCompanion, compiledKeymap layout: XKBLayout) {
        desktopLayouts[Self.sessionKey(of: companion)] = (layout, "\(layout.names)")
        Log.info("\(companion): the desktop's keymap is \(layout.name)")
        applyOutputTarget()
    }

    public func companion(_ companion: SessionCompanion, typed id: UInt64, delivered: Bool) {
        guard outputQueue.companion === companion else { return }
        companionMisses.answered(Self.sessionKey(of: companion))
        if delivered { outputQueue.acknowledge(id) } else { outputQueue.companionWrote(id) }
    }

    public func companion(_ companion: SessionCompanion, couldNotType id: UInt64) {
        guard outputQueue.companion === companion else { return }
        outputQueue.companionCouldNotType(id)
    }

    public func companion(_ companion: SessionCompanion, waitsToType id: UInt64) {
        guard outputQueue.companion === companion else { return }
        outputQueue.companionWaits(id)
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

    public func companion(_ companion: SessionCompanion, focused focus: ApplicationFocus) {
        guard companion === activeCompanion else { return }
        applyFocus(focus)
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
            control?.monitor.publishNotice("sleep", detail: "every key released")
        } else {
            devices.resyncAll()
            devices.rescan(retry: true)
            control?.monitor.publishNotice("wake")
        }
    }
}
