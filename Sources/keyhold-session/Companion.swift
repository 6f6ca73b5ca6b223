import CSessionKWin
import Glibc
import KeyholdKit
import KeyholdLinux

/// keyhold-session's loop: one poll over the display connection, the daemon's socket (and
/// logind's monitor while the daemon refuses this session), IBus's word that keys passed it, and
/// GLib's main context (the picker overlay, AT-SPI, IBus, KDE's and GNOME's settings). It never
/// waits for anything but that poll: a character's waits are state (`CharacterTyper`), so the
/// daemon's requests, the picker and the desktop are served meanwhile.
///
/// It connects (`DaemonLink`), reports the desktop's keymap (again whenever the desktop changes
/// it), types what the daemon hands it and acknowledges each character, shows the picker, says
/// what has the focus and plays the key sounds.
final class Companion {
    let desktop: Desktop
    let daemon: DaemonLink
    /// The daemon's audio feedback, played through the session's sound server.
    let sound: SessionSound
    private let typer: CharacterTyper
    /// GLib's main context, run inside this loop's poll.
    private let glib = GLibLoop()
    /// A callout is open (the daemon said so), whether or not the picker shows it.
    private var calloutOpen = false
    /// The configuration's callout locales, which name the picker's candidates, and its order
    /// (the daemon says them).
    private var calloutLocales = ["en"]
    private var calloutOrder = CalloutOrder.locale
    /// Makes the names' table for the callout locales (`prepareNames`).
    private var namesPreparation: WorkerThread?
    /// The open callout's base character (nil: none, or a search): a close on another is a pick.
    private var calloutBase: String?
    /// The note the daemon has of what the companion cannot do (`reportLimitation`).
    private var toldLimitation: String?
    /// The user's picks, kept while the order is frequent (nil without a home).
    private let picks = PicksFile.path(environment: environment).map(PicksFile.init)
    /// The user's personal settings file (nil without a home), and the last error the daemon
    /// found in it that the user was shown.
    private let settingsFile = PersonalSettings.path(environment: environment)
    private var settingsErrorShown: String?
    private var reportedKeymap: String?
    private var focus = FocusReporter()
    private var keymapMayHaveChanged = true

    init(desktop: Desktop, sound: SessionSound, controlPath: String) {
        self.desktop = desktop
        self.sound = sound
        daemon = DaemonLink(controlPath: controlPath)
        typer = CharacterTyper(surface: desktop.surface, ordering: desktop.ordering)
        typer.send = { [unowned self] request in daemon.send(request) }
        typer.daemonGone = { [unowned self] in daemon.daemonClosed }
        daemon.onConnected = { [unowned self] in
            reportedKeymap = nil
            keymapMayHaveChanged = true
            focus.forget()
            Log.info("connected to \(daemon.controlPath) as the companion of this session (\(desktop.surface.backend), \(desktop.summary)"
                     + (typer.followsVirtualKeyboard ? ", waiting for Keyhold's keys before a character)" : ")"))
        }
        daemon.onLost = { [unowned self] _ in
            calloutOpen = false
            calloutBase = nil
            desktop.picker?.hide()
            typer.forget()
        }
    }

    /// Runs until `stop` is set (a signal) or the display server goes away.
    func run(until stop: () -> Bool) {
        do throws(DisplayLost) {
            try loop(until: stop)
        } catch {
            Log.notice("\(error)")
        }
        sound.close()
        desktop.restore()
    }

    private func loop(until stop: () -> Bool) throws(DisplayLost) {
        while !stop() {
            var step = StepClock()
            daemon.connectIfDue(now: Companion.now()) { hello() }
            step.lap("connecting to the daemon")
            if !typer.isBusy && !calloutOpen { desktop.overlay?.retryAccessibility(now: Companion.now()) }
            step.lap("asking AT-SPI's registry")
            // The display library may hold events it read while waiting for a reply; poll would
            // not see them.
            if try desktop.dispatch(readable: false) { keymapMayHaveChanged = true }
            _ = try typer.advance(now: Companion.nowMicroseconds())
            step.lap("the display and the character under way")
            if keymapMayHaveChanged { reportKeymap() }
            step.lap("the keymap")
            let focusChanges = desktop.takeFocusChanges()
            reportPicker(focusChanges: focusChanges)
            reportFocus(windowChanged: focusChanges > 0)
            reportLimitation()
            step.lap("the focus")
            // Again: the queries above may have read what the character waited for (an X round
            // trip reads every answer before its own), which poll would then not see.
            let typeBy = try typer.advance(now: Companion.nowMicroseconds())

            let display = desktop.display
            var fds = [pollfd(fd: display.fd, events: Int16(POLLIN) | (display.outputPending ? Int16(POLLOUT) : 0), revents: 0)]
            // The others, each at its index (nil: not polled this time).
            let others = [daemon.socketFD, daemon.loginFD, desktop.wakeFD]
            for fd in others { fds.append(pollfd(fd: fd ?? -1, events: Int16(POLLIN), revents: 0)) }   // (poll skips a negative fd)
            var until: Int64?   // monotonic ms
            for at in [daemon.retryAt, focus.retryAt, desktop.overlay?.accessibilityRetryAt, desktop.surface.retryAt,
                       typeBy.map { ($0 + 999) / 1000 }] {
                if let at { until = min(until ?? at, at) }
            }
            var timeout = until.map { Int32(clamping: max(0, $0 - Companion.now())) } ?? -1
            let ownCount = fds.count
            let glibWait = glib.prepare()
            fds += glibWait.fds
            if glibWait.timeout >= 0 { timeout = timeout < 0 ? glibWait.timeout : min(timeout, glibWait.timeout) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            let pollError = errno
            // Every prepare is followed by its dispatch, whatever the poll said, and before any
            // other GTK call: on Wayland, GDK's prepare holds a read of its display that a GTK
            // call doing a round trip would wait on forever.
            step = StepClock()
            glib.dispatch(fds[ownCount...])
            step.lap("GLib's sources")
            if ready < 0 { if pollError == EINTR { continue }; Log.error("poll: \(String(cString: strerror(pollError)))"); return }
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { throw DisplayLost() }
            if fds[0].revents & Int16(POLLOUT) != 0 { try display.flush() }
            if fds[0].revents & Int16(POLLIN) != 0, try desktop.dispatch(readable: true) { keymapMayHaveChanged = true }
            step.lap("the display's events")
            if fds[1].revents != 0 { try handleDaemon() }
            step.lap("the daemon's events")
            if fds[2].revents != 0 { daemon.loginsChanged(now: Companion.now()) }
            if fds[3].revents != 0 { desktop.surface.wake() }
        }
    }

    /// Times the loop's steps: one that takes long holds up everything else the loop serves (the
    /// daemon waits 3 s for an answer), so it is logged with its name.
    private struct StepClock {
        private var start = Companion.nowMicroseconds()
        /// `name` is made only for a step that is logged (most laps name a daemon event).
        mutating func lap(_ name: @autoclosure () -> String) {
            let now = Companion.nowMicroseconds()
            if now - start >= 250_000 { Log.info("\(name()) held the companion's loop for \((now - start) / 1000) ms") }
            start = now
        }
    }

    // MARK: - The daemon

    /// The hello, as the connection is made: counting the virtual keyboard's keys starts before
    /// it, as the daemon counts from when it takes the companion.
    private func hello() -> CompanionHello {
        typer.follow(device: VirtualKeyboard.deviceName)
        toldLimitation = desktop.limitation
        return CompanionHello(backend: desktop.surface.backend, capabilities: desktop.surface.capabilities,
                              session: SessionIdentity.find(displayFD: desktop.display.fd), note: toldLimitation)
    }

    /// Tells the daemon what the companion cannot do where that changed since the hello (fcitx5's
    /// addon answers once fcitx5 has started), for `keyhold status`.
    private func reportLimitation() {
        let limitation = desktop.limitation
        guard daemon.isConnected, limitation != toldLimitation else { return }
        if daemon.send(.note(limitation)) { toldLimitation = limitation }
    }

    private func handleDaemon() throws(DisplayLost) {
        for event in daemon.read() {
            var step = StepClock()
            try handle(event)
            step.lap("the daemon's \(event.kind) event")
        }
    }

    private func handle(_ event: CompanionEvent) throws(DisplayLost) {
        switch event {
        case .type(let id, let after, let writtenAt, let text):
            try typer.type(text, id: id, after: after, writtenAt: writtenAt, now: Companion.nowMicroseconds())
        case .sound(let feedback, let volume, let at):
            sound.play(feedback, volume: volume, at: at)
        case .callout(let callout, _):
            switch callout {
            case .opened(let base, _): calloutOpen = true; calloutBase = base
            case .search: calloutOpen = true; calloutBase = nil
            case .closed(let text):
                calloutOpen = false
                if let base = calloutBase, !text.isEmpty, text != base { recordPick(text) }
                calloutBase = nil
            case .moved: break
            }
            desktop.picker?.handle(callout, name: highlightedName(callout))
        case .active:
            // In front again: count the virtual keyboard's transitions from here, as the daemon does;
            // and say the keymap again (the daemon takes none from a session not in front).
            typer.follow(device: VirtualKeyboard.deviceName)
            reportedKeymap = nil
            keymapMayHaveChanged = true
            sendSettings()
            sendPicks()
        case .reloadSettings:
            sendSettings()
        case .settings(let file, let error):
            settingsOutcome(file: file, error: error)
        case .forgetPicks:
            do { try picks?.forget(); Log.info("callout picks forgotten (keyhold picks --clear)") } catch {
                Log.warning("cannot forget the callout picks: \(error)")
            }
        case .error(let message):
            Log.warning("the daemon: \(message)")
        case .layout(let name):
            Log.info("the daemon types with this session's keymap (\(name))")
        case .locales(let locales, let order):
            if locales != calloutLocales || namesPreparation == nil { prepareNames(locales) }
            calloutLocales = locales
            if order != calloutOrder {
                calloutOrder = order
                sendPicks()
            }
        case .accepted:
            break
        }
    }

    /// What a picker shows above the candidates: the highlighted one's name, in the first callout
    /// locale's language where CLDR has it, else English (CLDR's, else Unicode's); "" for a text
    /// the table lacks. A callout's is looked up here, off the daemon's input path, on each open
    /// and move (a scan of the table); a search's comes with it.
    private func highlightedName(_ event: CalloutEvent) -> String {
        switch event {
        case .opened(let text, _), .moved(_, let text): CharacterSearchIndex.localized(calloutLocales).name(of: text)
        case .search(_, _, _, let name): name
        case .closed: ""
        }
    }

    /// Makes the table that names the picker's candidates in the locales' languages off this loop
    /// as the daemon says them, so the first callout's picker does not wait for it here.
    private func prepareNames(_ locales: [String]) {
        namesPreparation = WorkerThread.makingSearchTable(for: locales, name: "ks-names", after: namesPreparation)
    }

    /// Hands the daemon the user's personal settings (none: the system's apply), as its session
    /// comes in front and when the user runs `keyhold reload`; read at once, so an edit applies
    /// at the next reload or session switch.
    private func sendSettings() {
        guard let settingsFile, daemon.isConnected else { return }
        var settings = PersonalSettings(file: settingsFile, text: nil)
        do throws(FileReadError) {
            settings = try PersonalSettings.read(settingsFile)
        } catch {
            settingsOutcome(file: settingsFile, error: "\(settingsFile): cannot be read: \(error)")
        }
        daemon.send(.settings(file: settingsFile, text: settings.text))
    }

    /// What became of the personal settings: in force, or not (the system's are) because of an
    /// error, which the user is shown once in a notification (their journal has every time).
    private func settingsOutcome(file: String, error: String?) {
        guard let error else {
            settingsErrorShown = nil
            Log.info("your settings in \(file) are in force")
            return
        }
        Log.warning("your settings in \(file) are not in force (the system's are): \(error)")
        guard error != settingsErrorShown else { return }
        settingsErrorShown = error
        _ = khs_notify("Keyhold: your settings have an error", "\(error)\nKeyhold uses the system's settings until it is fixed (keyhold check, then keyhold reload).")
    }

    /// The daemon's engine counts the same pick for the session; this keeps it for the next one.
    private func recordPick(_ candidate: String) {
        guard calloutOrder == .frequent, let picks else { return }
        do { try picks.record(candidate) } catch { Log.warning("cannot keep the callout picks in \(picks.path): \(error)") }
    }

    /// Hands the daemon the user's picks as its session comes in front (the daemon forgot the
    /// last user's); it takes them from the companion in front only.
    private func sendPicks() {
        guard calloutOrder == .frequent, let picks, daemon.isConnected else { return }
        picks.refresh()
        daemon.send(.picks(picks.picks.counts))
    }

    /// Sends the keymap when it differs from what the daemon has, naming the keycodes that hold
    /// this process's characters (the daemon leaves them out).
    private func reportKeymap() {
        keymapMayHaveChanged = false
        guard daemon.isConnected, let keymap = desktop.keymapText(), keymap != reportedKeymap else { return }
        if daemon.send(.keymap(keymap, temporaryKeycodes: desktop.surface.temporaryKeycodes)) { reportedKeymap = keymap }
    }

    /// A click on a candidate picks it; a click anywhere else, or another window getting the
    /// keyboard focus, closes the callout (docs/ARCHITECTURE.md, Callouts: no later key may edit another field).
    private func reportPicker(focusChanges: Int) {
        let clicks = desktop.display.takeClicks(), pick = desktop.picker?.takePick()
        guard daemon.isConnected, calloutOpen else { return }
        var request: CompanionRequest?
        if let index = pick {
            request = .pick(index: index)
        } else if focusChanges > 0 || (clicks > 0 && desktop.picker?.pointerInside != true) {
            request = .dismiss
        }
        guard let request else { return }
        calloutOpen = false   // whatever else comes before the daemon's close is not sent again
        daemon.send(request)
    }

    /// Tells the daemon which application has the focus, when that changed.
    private func reportFocus(windowChanged: Bool) {
        guard daemon.isConnected, let changed = focus.changedFocus(desktop: desktop, windowChanged: windowChanged) else { return }
        daemon.send(.focus(changed))
    }

    static func now() -> Int64 { nowMicroseconds() / 1000 }

    static func nowMicroseconds() -> Int64 { MonotonicClock.now().microseconds }
}

private extension CompanionEvent {
    /// What the event is, for the log (never what it types or shows).
    var kind: String {
        switch self {
        case .accepted: "acceptance"
        case .layout: "layout"
        case .locales: "locales"
        case .error: "error"
        case .type: "type"
        case .sound: "sound"
        case .callout(.opened, _): "callout open"
        case .callout(.moved, _): "callout move"
        case .callout(.closed, _): "callout close"
        case .callout(.search, _): "search"
        case .active: "active"
        case .forgetPicks: "forget-picks"
        case .settings: "settings"
        case .reloadSettings: "reload-settings"
        }
    }
}
