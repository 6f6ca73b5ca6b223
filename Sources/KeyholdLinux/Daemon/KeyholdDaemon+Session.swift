import Glibc
import KeyholdKit

// The desktop: the control socket, the companions' hub (where the keys go, the companion that
// types there, its layout and focus), suspend.

extension KeyholdDaemon {
    /// What the desktop needs, started once the keyboards are grabbed, one step per loop turn
    /// (`run()`): the control socket and the companions' hub, the watcher of where the
    /// keystrokes go, suspend handling.
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
                let control = try ControlServer(path: controlPath, loop: loop, handler: self)
                control.version = version
                control.monitor.onRecordsKeysChanged = { [unowned self] in self.engine?.observersChanged() }
                engine.addObserver(control.monitor)
                self.control = control
                hub.serve(control)
            } catch {
                Log.warning("control socket disabled: \(error)")
            }
        }
        StartupTimeline.mark("control socket")
    }

    private func startOutputTargetWatcher() {
        // An X server cannot represent evdev codes above 247 (X keycodes stop at 255): it never
        // delivers those, so the companion cannot count them.
        for code in 248..<KeyCode.count { outputQueue.uncountedKeys.set(KeyCode(UInt16(code)), down: true) }
        let watcher = OutputTargetWatcher(loop: loop)
        watcher.onChange = { [unowned self] target in
            let user = hub.target.uid
            hub.target = target   // (a callout open is closed for the user it was open for)
            // What a user picked and searched for is theirs: another user in front starts afresh
            // (their companion, told their session is in front, hands over their picks).
            if target.uid != user {
                engine.services.searchContext.forgetRecent()
                picks.removeAll()
            }
        }
        watcher.start()
        outputTarget = watcher
        hub.target = watcher.target
        StartupTimeline.mark("output target")
    }

    /// Sends a sound to the companion in front; false when there is none.
    func playInSession(_ sound: AudioFeedback) -> Bool {
        guard configuration.feedback.isAudioEnabled else { return false }
        return hub.play(sound, volume: configuration.feedback.audioVolume)
    }

    /// The layout keystrokes are typed with: the desktop's, as its companion reported it (also
    /// after the companion has gone); else the configured or system one.
    var activeLayout: KeyboardLayout { hub.layout?.layout ?? layout }
    var activeLayoutName: String { hub.layout?.name ?? "\(layoutNames)" }

    /// Where the keys go, its companion, its layout or its focus changed: the engine types the way
    /// that session understands, with its layout, under the rules of the application in front.
    /// Nothing of the focus is logged: `keyhold status` shows it.
    func applySession() {
        // (a new engine for other settings already types the session's way: said all the same)
        let methodBefore = engine.services.unicodeMethod
        applyPersonalSettings()
        let settings = hub.settings
        if let before = appliedSettings, settings != before {
            appliedSettings = settings
            engine.focusChanged(to: settings)
            if settings.rule != before.rule || settings.forwardsEverything != before.forwardsEverything || settings.callouts != before.callouts {
                control?.monitor.publishNotice("application", detail: settings.reason, activity: true)
            }
        }
        if engine.services.layout !== activeLayout {
            engine.services.layout = activeLayout
            Log.info("layout \(activeLayoutName)")
        }
        let (method, reason) = hub.unicodeMethod
        guard methodBefore != method else { return }
        engine.services.unicodeMethod = method
        Log.info("unicode method \(method.rawValue) (\(reason))")
        control?.monitor.publishNotice("unicode method", detail: "\(method.rawValue) (\(reason))")
    }
}

extension KeyholdDaemon: CompanionHubDelegate {
    public func companionHubChanged(_ hub: CompanionHub) { applySession() }

    public func companionHub(_ hub: CompanionHub, picked index: Int) { engine.pickCallout(index) }

    public func companionHub(_ hub: CompanionHub, picks: [String: Int]) { self.picks.replace(with: picks) }

    public func companionHubDismissedCallout(_ hub: CompanionHub) {
        guard engine.services.calloutContext.isOpen || engine.services.searchContext.isOpen else { return }
        Log.info("the session closed the callout (a click elsewhere, another window focused, or another session in front)")
        engine.dismissCallout()
    }
}

// MARK: - Control socket and suspend

extension KeyholdDaemon: ControlHandler {
    public func status(activity: Bool) -> ControlStatus {
        let application = activity
            ? [("application", (hub.focus.name ?? "unknown") + " (\(hub.focus.textField.rawValue) text field): " + hub.settings.reason)] : []
        return ControlStatus(
            paused: paused, configuration: configurationSource, layout: activeLayoutName,
            unicodeMethod: hub.unicodeMethodLine,
            locale: engine?.services.keyboardContext.locale ?? "", virtualKeyboard: virtualKeyboard.devnode,
            keyboards: devices.summaries.map { .init(path: $0.path, name: $0.name, id: $0.id, grabbed: $0.grabbed) },
            extra: application
                 + [("session companion", control == nil ? "none (no control socket)" : hub.statusLine),
                    ("settings", hub.settingsLine),
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

    public func reloadSettings(of uid: UInt32) -> Int { hub.reloadSettings(of: uid) }

    public func session(of uid: UInt32) -> ControlSessionInfo {
        guard uid == hub.target.uid else { return ControlSessionInfo(inFront: false, paused: paused) }
        return ControlSessionInfo(inFront: true, paused: paused,
                                  unicodeMethod: hub.unicodeMethodLine,
                                  application: hub.focus.name, settings: hub.settingsLine)
    }

    public func forgetPicks(of uid: UInt32) -> Bool {
        hub.forgetPicks(of: uid)
        guard uid == hub.target.uid else { return false }
        picks.removeAll()
        return true
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
