import CSystemd
import Glibc
import KeyholdKit
import KeyholdLinux

/// keyhold-session's loop: one poll over the display connection, the control socket and, while the
/// daemon refuses this user (another session is in front), logind's monitor. It connects,
/// takes the companion role, reports the keymap (again whenever the desktop changes it), types
/// what the daemon hands it and acknowledges each character.
final class Companion {
    let typist: SessionTypist
    let controlPath: String
    /// What it cannot do in this session and why, told the daemon (`keyhold status` shows it).
    let limitation: String?
    /// Where the picker shows; nil where the session cannot show one.
    let picker: CandidatePicker?
    /// The companion's own picker overlay, which also says through AT-SPI what has the focus.
    let overlay: PickerOverlay?
    /// GLib's main context (the overlay, AT-SPI, IBus), run inside this loop's poll.
    private let glib = GLibLoop()
    /// The daemon's audio feedback, played through the session's sound server.
    let sound: SessionSound
    private var connection: ControlClient?
    /// A callout is open (the daemon said so), whether or not the picker shows it.
    private var calloutOpen = false
    private var reportedKeymap: String?
    private var focus = FocusReporter()
    private var keymapMayHaveChanged = true
    /// When to try connecting again (monotonic ms); nil: not waiting on a timer.
    private var retryAt: Int64? = 0
    private var retryDelay: Int64 = 500
    /// logind's monitor, while the daemon says another session is in front.
    private var loginMonitor: OpaquePointer?
    /// Whether the display server's deliveries of the virtual keyboard's keys can be counted (X11:
    /// XInput 2), so a character is typed only after the keys before it.
    private var followsVirtualKeyboard = false
    /// How long to wait for the keys typed before a character to reach the desktop (the daemon
    /// waits 3 s for the acknowledgement, or for word that the companion still waits).
    static let orderTimeoutMilliseconds: Int64 = 1_000

    init(typist: SessionTypist, picker: CandidatePicker?, overlay: PickerOverlay?, sound: SessionSound, controlPath: String,
         limitation: String? = nil) {
        self.typist = typist
        self.limitation = limitation
        self.picker = picker
        self.overlay = overlay
        self.sound = sound
        self.controlPath = controlPath
    }

    /// Runs until `stop` is set (a signal) or the display server goes away.
    func run(until stop: () -> Bool) {
        do throws(DisplayLost) {
            try loop(until: stop)
        } catch {
            Log.notice("\(error)")
        }
        sound.close()
        typist.restore()
    }

    private func loop(until stop: () -> Bool) throws(DisplayLost) {
        while !stop() {
            let now = Companion.now()
            if let at = retryAt, now >= at { retryAt = nil; connect() }
            // The display library may hold events it read while waiting for a reply; poll would
            // not see them.
            if try typist.dispatch(readable: false) { keymapMayHaveChanged = true }
            if keymapMayHaveChanged { reportKeymap() }
            let focusChanges = typist.takeFocusChanges()
            reportPicker(focusChanges: focusChanges)
            reportFocus(windowChanged: focusChanges > 0)

            var fds = [pollfd(fd: typist.fd, events: Int16(POLLIN), revents: 0)]
            if let connection { fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)) }
            if let loginMonitor { fds.append(pollfd(fd: sd_login_monitor_get_fd(loginMonitor), events: Int16(POLLIN), revents: 0)) }
            var timeout = retryAt.map { Int32(clamping: max(0, $0 - Companion.now())) } ?? -1
            if let at = focus.retryAt {
                let wait = Int32(clamping: max(0, at - Companion.now()))
                timeout = timeout < 0 ? wait : min(timeout, wait)
            }
            let ownCount = fds.count
            let glibWait = glib.prepare()
            fds += glibWait.fds
            if glibWait.timeout >= 0 { timeout = timeout < 0 ? glibWait.timeout : min(timeout, glibWait.timeout) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            let pollError = errno
            // Every prepare is followed by its dispatch, whatever the poll said, and before any
            // other GTK call: on Wayland, GDK's prepare holds a read of its display that a GTK
            // call doing a round trip would wait on forever.
            glib.dispatch(fds[ownCount...])
            if ready < 0 { if pollError == EINTR { continue }; Log.error("poll: \(String(cString: strerror(pollError)))"); return }
            if fds[0].revents != 0 {
                if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { throw DisplayLost() }
                if try typist.dispatch(readable: true) { keymapMayHaveChanged = true }
            }
            var i = 1
            if connection != nil {
                if fds[i].revents != 0 { try readDaemon() }
                i += 1
            }
            if let loginMonitor, i < ownCount, fds[i].revents != 0 {
                sd_login_monitor_flush(loginMonitor)
                retryAt = Companion.now()
            }
        }
    }

    // MARK: - The daemon

    private func connect() {
        let client: ControlClient
        do { client = try ControlClient(path: controlPath) } catch {
            scheduleRetry("cannot reach the daemon: \(error)")
            return
        }
        // Counting starts before the request: the daemon counts from when it takes it.
        followsVirtualKeyboard = typist.follow(device: VirtualKeyboard.deviceName)
        let reply: JSONValue
        let hello = CompanionHello(backend: typist.backend, capabilities: typist.capabilities,
                                   session: SessionIdentity.find(displayFD: typist.fd), note: limitation)
        do { reply = try client.request(.companion(.hello(hello)), timeout: 5_000) } catch {
            scheduleRetry("the daemon did not take the companion: \(error)")
            return
        }
        guard (try? CompanionEvent(json: reply)) == .accepted else {
            let why = reply["error"]?.stringValue ?? "\(reply)"
            Log.notice("the daemon refused: \(why); trying again when the active session changes")
            watchLogins()
            return
        }
        connection = client
        retryDelay = 500
        stopWatchingLogins()
        reportedKeymap = nil
        keymapMayHaveChanged = true
        focus.forget()
        Log.info("connected to \(controlPath) as the companion of this session (\(typist.backend), \(typist.summary)"
                 + (followsVirtualKeyboard ? ", waiting for Keyhold's keys before a character)" : ")"))
    }

    private func scheduleRetry(_ why: String) {
        if retryDelay <= 500 { Log.notice("\(why); retrying") }
        retryAt = Companion.now() + retryDelay
        retryDelay = min(retryDelay * 2, 30_000)
    }

    private func disconnected(_ why: String) {
        connection = nil
        calloutOpen = false
        picker?.hide()
        Log.notice("daemon connection closed (\(why)); reconnecting")
        retryDelay = 500
        scheduleRetry("reconnecting")
    }

    private func readDaemon() throws(DisplayLost) {
        while let connection = self.connection {
            let line: [UInt8]
            do throws(ControlClientError) {
                guard let read = try connection.readLine(timeout: 0) else { disconnected("closed by the daemon"); return }
                line = read
            } catch .timeout {
                return
            } catch {
                disconnected("\(error)")
                return
            }
            try handle(line)
        }
    }

    private func handle(_ line: [UInt8]) throws(DisplayLost) {
        let event: CompanionEvent
        do { event = try CompanionEvent(line: line) } catch { Log.warning("a line from the daemon it cannot read: \(error)"); return }
        switch event {
        case .type(let id, let after, let writtenAt, let text):
            try type(text, id: id, after: after, writtenAt: writtenAt)
        case .sound(let feedback, let volume, let at):
            sound.play(feedback, volume: volume, at: at)
        case .callout(let callout, _):
            switch callout {
            case .opened: calloutOpen = true
            case .closed: calloutOpen = false
            case .moved: break
            }
            picker?.handle(callout)
        case .active:
            // In front again: count the virtual keyboard's transitions from here, as the daemon does;
            // and say the keymap again (the daemon takes none from a session not in front).
            followsVirtualKeyboard = typist.follow(device: VirtualKeyboard.deviceName)
            reportedKeymap = nil
            keymapMayHaveChanged = true
        case .error(let message):
            Log.warning("the daemon: \(message)")
        case .layout(let name):
            Log.info("the daemon types with this session's keymap (\(name))")
        case .accepted:
            break
        }
    }

    /// Types character `id` once the keys before it have reached the desktop, and says so.
    private func type(_ text: String, id: UInt64, after: UInt64, writtenAt: Int64?) throws(DisplayLost) {
        Log.debug("type request \(id)")   // never what it is
        if followsVirtualKeyboard, after > 0 {
            let waited = try typist.waitForTransitions(after, writtenAt: writtenAt, timeoutMilliseconds: Companion.orderTimeoutMilliseconds) {
                do { try connection?.send(.companion(.waiting(id: id))) } catch { Log.debug("cannot say the character still waits: \(error)") }
            }
            if waited.keymapChanged { keymapMayHaveChanged = true }
            if !waited.reached {
                Log.warning("the display server had not delivered the keys before a character in time (\(Companion.orderTimeoutMilliseconds) ms, more while it was busy);"
                            + " typing it anyway")
            }
        }
        // The daemon gives up on a companion that answers late and types the character
        // itself: once it has closed the connection, typing it too would type it twice.
        if let connection, connection.peerClosed {
            disconnected("closed by the daemon")
            return
        }
        // Written to the display server, then said so at once: killed now, the daemon knows
        // the character is on its way and does not type it again. Then, once the server has
        // handled it, the acknowledgement that lets the keys after it go.
        // Not typed (IBus: no application's text input has the focus): the daemon types it
        // with its own method, in order.
        guard try typist.type(text) else {
            do { try connection?.send(.companion(.untyped(id: id))) } catch { disconnected("\(error)") }
            return
        }
        do { try connection?.send(.companion(.typed(id: id, delivered: false))) } catch { disconnected("\(error)"); return }
        try typist.sync()
        // The daemon writes nothing until it has the answer: the next count starts here.
        if try typist.resetCount() { keymapMayHaveChanged = true }
        do { try connection?.send(.companion(.typed(id: id, delivered: true))) } catch { disconnected("\(error)") }
    }

    /// Sends the keymap when it differs from what the daemon has, naming the keycodes that hold
    /// this process's characters (the daemon leaves them out).
    private func reportKeymap() {
        keymapMayHaveChanged = false
        guard let connection, let keymap = typist.keymapText(), keymap != reportedKeymap else { return }
        do {
            try connection.send(.companion(.keymap(keymap, temporaryKeycodes: typist.temporaryKeycodes)))
            reportedKeymap = keymap
        } catch {
            disconnected("\(error)")
        }
    }

    /// A click on a candidate picks it; a click anywhere else, or another window getting the
    /// keyboard focus, closes the callout (docs/ARCHITECTURE.md, Callouts: no later key may edit another field).
    private func reportPicker(focusChanges: Int) {
        let clicks = typist.takeClicks(), pick = picker?.takePick()
        guard let connection, calloutOpen else { return }
        var request: CompanionRequest?
        if let index = pick {
            request = .pick(index: index)
        } else if focusChanges > 0 || (clicks > 0 && picker?.pointerInside != true) {
            request = .dismiss
        }
        guard let request else { return }
        calloutOpen = false   // whatever else comes before the daemon's close is not sent again
        do { try connection.send(.companion(request)) } catch { disconnected("\(error)") }
    }

    /// Tells the daemon which application has the focus, when that changed.
    private func reportFocus(windowChanged: Bool) {
        guard let connection, let changed = focus.changedFocus(typist: typist, overlay: overlay, windowChanged: windowChanged) else { return }
        do { try connection.send(.companion(.focus(changed))) } catch { disconnected("\(error)") }
    }

    // MARK: - logind

    private func watchLogins() {
        guard loginMonitor == nil else { return }
        var monitor: OpaquePointer?
        if sd_login_monitor_new("session", &monitor) >= 0, let monitor {
            loginMonitor = monitor
        } else {
            scheduleRetry("cannot watch logind")
        }
    }

    private func stopWatchingLogins() {
        if let loginMonitor { sd_login_monitor_unref(loginMonitor) }
        loginMonitor = nil
    }

    static func now() -> Int64 { nowMicroseconds() / 1000 }

    static func nowMicroseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }
}
