import CSystemd
import Glibc
import KeyholdKit
import KeyholdLinux

/// The companion's connection to the daemon's control socket: it connects, says hello
/// (`CompanionHello`) and reads the answer without waiting for it; it connects again, later and
/// later, while the daemon cannot be reached; while the daemon refuses it (another session is in
/// front) it watches logind and tries again when the active session changes.
final class DaemonLink {
    let controlPath: String
    /// Open once the daemon took the companion role.
    private(set) var connection: ControlClient?
    /// Connected, the hello sent, its answer not read yet.
    private var greeting: ControlClient?
    /// When to try connecting again (monotonic ms); nil: not waiting on a timer.
    private(set) var retryAt: Int64? = 0
    private var retryDelay: Int64 = 500
    /// logind's monitor, while the daemon says another session is in front.
    private var loginMonitor: OpaquePointer?

    /// The daemon took the companion role.
    var onConnected: () -> Void = {}
    /// The connection ended (why); it connects again soon.
    var onLost: (String) -> Void = { _ in }

    init(controlPath: String) { self.controlPath = controlPath }

    var isConnected: Bool { connection != nil }

    /// Connects and says hello when it is time to (`now`: monotonic ms).
    func connectIfDue(now: Int64, hello: () -> CompanionHello) {
        guard let at = retryAt, now >= at, connection == nil, greeting == nil else { return }
        retryAt = nil
        let client: ControlClient
        do { client = try ControlClient(path: controlPath) } catch {
            scheduleRetry("cannot reach the daemon: \(error)")
            return
        }
        do { try client.send(.companion(.hello(hello()))) } catch {
            scheduleRetry("the daemon did not take the companion: \(error)")
            return
        }
        greeting = client
    }

    /// The socket to poll: the connection, or the one greeting.
    var socketFD: Int32? { (connection ?? greeting)?.fd }
    /// logind's monitor's fd, while the daemon refuses this session.
    var loginFD: Int32? { loginMonitor.map { sd_login_monitor_get_fd($0) } }

    /// What came from the daemon (its fd polled readable): the events, in order.
    func read() -> [CompanionEvent] {
        if let client = greeting {
            var closed: String?
            var events = readLines(client) { closed = $0 }
            guard !events.isEmpty else {
                if let closed { greeting = nil; scheduleRetry("the daemon did not take the companion: \(closed)") }
                return []
            }
            greeting = nil
            let answer = events.removeFirst()
            if answer == .accepted, let closed {
                scheduleRetry("the daemon closed the connection: \(closed)")
                return []
            }
            guard answer == .accepted else {
                let why = if case .error(let message) = answer { message } else { "\(answer)" }
                Log.notice("the daemon refused: \(why); trying again when the active session changes")
                watchLogins()
                return []
            }
            connection = client
            retryDelay = 500
            stopWatchingLogins()
            onConnected()
            return events   // what the daemon sent after taking it (its session in front: `active`)
        }
        guard let client = connection else { return [] }
        var closed: String?
        let events = readLines(client) { closed = $0 }
        if let closed { drop(closed) }   // after what came before the end
        return events
    }

    /// logind's monitor was readable: the active session may have changed.
    func loginsChanged(now: Int64) {
        guard let loginMonitor else { return }
        sd_login_monitor_flush(loginMonitor)
        retryAt = now
    }

    private func readLines(_ client: ControlClient, lost: (String) -> Void) -> [CompanionEvent] {
        var events: [CompanionEvent] = []
        while true {
            let line: [UInt8]
            do throws(ControlClientError) {
                guard let read = try client.readLine(timeout: 0) else { lost("closed by the daemon"); return events }
                line = read
            } catch .timeout {
                return events
            } catch {
                lost("\(error)")
                return events
            }
            do { events.append(try CompanionEvent(line: line)) } catch { Log.warning("a line from the daemon it cannot read: \(error)") }
        }
    }

    /// Sends a request; false (and the connection is dropped) when the daemon is gone.
    @discardableResult
    func send(_ request: CompanionRequest) -> Bool {
        guard let connection else { return false }
        do {
            try connection.send(.companion(request))
            return true
        } catch {
            drop("\(error)")
            return false
        }
    }

    /// Whether the daemon has closed its end (asked without waiting).
    var daemonClosed: Bool { connection?.peerClosed ?? true }

    /// Ends the connection (it is gone or unusable); connects again soon.
    func drop(_ why: String) {
        guard connection != nil else { return }
        connection = nil
        Log.notice("daemon connection closed (\(why)); reconnecting")
        onLost(why)
        retryDelay = 500
        scheduleRetry("reconnecting")
    }

    private func scheduleRetry(_ why: String) {
        if retryDelay <= 500 { Log.notice("\(why); retrying") }
        retryAt = Companion.now() + retryDelay
        retryDelay = min(retryDelay * 2, 30_000)
    }

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
}
