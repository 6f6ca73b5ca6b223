import CSystemd
import Glibc
import KeyholdKit

/// Tells the daemon when the system is about to suspend and when it has resumed, from logind's
/// `PrepareForSleep(b)` signal on the system D-Bus (sd-bus). A key held when the machine goes to
/// sleep would otherwise stay down on the virtual keyboard until it next wakes up, and keyboards
/// may be reset or re-enumerated meanwhile.
///
///     sleepMonitor = SleepMonitor.start(loop: loop) { [unowned self] goingToSleep in
///         if goingToSleep { engine.releaseAll(); virtualKeyboard.flush() } else { resyncDevices() }
///     }
///
/// While running it holds a logind "delay" inhibitor lock for sleep, so logind waits (at most
/// InhibitDelayMaxSec, 5 s by default) until the handler has run with `true`; the lock is given
/// back right after the handler returns and taken again after resume. The handler therefore must
/// finish the release synchronously (write the key-ups to uinput before returning).
///
/// The bus connection runs on the daemon's event loop: the bus fd (POLLIN/POLLOUT as sd-bus asks)
/// and a timerfd for sd-bus's timeout are watched by the loop itself. No thread, no polling.
/// Only signals sent by the owner of org.freedesktop.login1 count: another local process cannot
/// make the daemon release keys by emitting a look-alike signal.
public final class SleepMonitor {
    public typealias Handler = (_ goingToSleep: Bool) -> Void
    public static let logind = "org.freedesktop.login1"

    /// Whether a sleep delay lock is held now.
    public var hasDelayLock: Bool { inhibitorFD >= 0 }
    /// Whether the bus connection is up (false after it was lost).
    public var isActive: Bool { bus != nil }
    /// PrepareForSleep signals received (true, false), for status and tests.
    public private(set) var sleeps = 0, wakes = 0

    private var bus: OpaquePointer?
    private let loop: EventLoop
    private let handler: Handler
    private let timer: DeadlineTimer
    private var busToken: EventLoop.Token?, timerToken: EventLoop.Token?
    private var busFD: Int32 = -1
    private let sender: String
    private let takeDelayLock: Bool
    private var inhibitorFD: Int32 = -1
    private var inhibitPending = false
    private var inhibitFailures = 0

    /// Starts monitoring on the system bus; when there is no D-Bus (or no sd-bus), logs one
    /// line and returns nil: the daemon runs on without suspend handling.
    public static func start(loop: EventLoop, handler: @escaping Handler) -> SleepMonitor? {
        do {
            return try SleepMonitor(loop: loop, handler: handler)
        } catch {
            Log.info("suspend: \(error); keys held when the system sleeps are not released")
            return nil
        }
    }

    /// `address`: a D-Bus address ("unix:path=/run/dbus/system_bus_socket"); nil for the system
    /// bus. `sender`: the bus name whose signals count (tests use a private bus).
    public init(loop: EventLoop, address: String? = nil, sender: String = SleepMonitor.logind,
                takeDelayLock: Bool = true, handler: @escaping Handler) throws(SleepMonitorError) {
        self.loop = loop
        self.handler = handler
        self.sender = sender
        self.takeDelayLock = takeDelayLock
        do {
            timer = try DeadlineTimer()
        } catch {
            throw .system(error.description)
        }
        var bus: OpaquePointer?
        var rc: Int32
        if let address {
            rc = sd_bus_new(&bus)
            if rc >= 0 { rc = sd_bus_set_address(bus, address) }
            if rc >= 0 { rc = sd_bus_set_bus_client(bus, 1) }
            if rc >= 0 { rc = sd_bus_start(bus) }
        } else {
            rc = sd_bus_open_system_with_description(&bus, "keyhold-sleep")
        }
        guard rc >= 0, let bus else {
            if let bus { sd_bus_unref(bus) }
            throw .noBus(address ?? "system bus", -rc)
        }
        self.bus = bus
        busFD = sd_bus_get_fd(bus)
        guard busFD >= 0 else { close(); throw .noBus(address ?? "system bus", -busFD) }

        let userdata = Unmanaged.passUnretained(self).toOpaque()
        let sleepRule = "type='signal',sender='\(sender)',path='/org/freedesktop/login1',"
            + "interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
        rc = sd_bus_add_match_async(bus, nil, sleepRule, SleepMonitor.onPrepareForSleep, SleepMonitor.onMatchInstalled, userdata)
        guard rc >= 0 else { close(); throw .system("sd_bus_add_match_async: \(errorString(-rc))") }
        if takeDelayLock {
            // logind (re)starting after us: take the lock from the new instance.
            let ownerRule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(sender)'"
            rc = sd_bus_add_match_async(bus, nil, ownerRule, SleepMonitor.onNameOwnerChanged, SleepMonitor.onMatchInstalled, userdata)
            if rc < 0 { Log.warning("suspend: cannot watch \(sender) restarts: \(errorString(-rc))") }
            takeInhibitor()
        }
        do {
            timerToken = try loop.watch(timer.fd) { [unowned self] in
                self.timer.acknowledge()
                self.process()
            }
            busToken = try loop.watch(busFD, for: .readable) { [unowned self] _ in self.process() }
        } catch {
            close()
            throw .system(error.description)
        }
        update()
        Log.info("suspend: watching \(sender) PrepareForSleep on the \(address == nil ? "system bus" : address!)")
    }

    deinit { close() }

    /// Disconnects (gives back the delay lock).
    public func close() {
        for token in [busToken, timerToken] { if let token { loop.unwatch(token) } }
        busToken = nil
        timerToken = nil
        busFD = -1
        if let bus {
            sd_bus_close(bus)
            sd_bus_unref(bus)
        }
        bus = nil
        releaseInhibitor()
    }

    // MARK: - Event loop integration

    private func process() {
        guard let bus else { return }
        while true {
            let rc = sd_bus_process(bus, nil)
            if rc < 0 {
                Log.warning("suspend: D-Bus connection lost (\(errorString(-rc))); suspend handling is off")
                close()
                return
            }
            if rc == 0 || self.bus == nil { break }
        }
        update()
    }

    /// Waits for what sd-bus wants next: input, output, and its timeout.
    private func update() {
        guard let bus else { return }
        let events = sd_bus_get_events(bus)
        if events >= 0, let busToken {
            // Always input (a signal may come at any time); output while sd-bus has some queued.
            let wanted = EventLoop.Events(rawValue: UInt32(events)).intersection(.writable)
            loop.change(busToken, to: wanted.union(.readable))
        }
        var usec: UInt64 = 0
        if sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max {
            timer.arm(at: Timestamp(microseconds: Int64(min(usec, UInt64(Int64.max)))))
        } else {
            timer.arm(at: nil)
        }
    }

    // MARK: - Signals

    private func prepareForSleep(_ goingToSleep: Bool) {
        if goingToSleep {
            sleeps += 1
            Log.info("suspend: the system is going to sleep; releasing every key")
            handler(true)
            releaseInhibitor()   // logind may go on now
        } else {
            wakes += 1
            Log.info("suspend: the system woke up; resyncing keyboards")
            handler(false)
            takeInhibitor()
        }
    }

    private func takeInhibitor() {
        guard takeDelayLock, inhibitorFD < 0, !inhibitPending, let bus else { return }
        var message: OpaquePointer?
        var rc = sd_bus_message_new_method_call(bus, &message, sender, "/org/freedesktop/login1",
                                                "org.freedesktop.login1.Manager", "Inhibit")
        guard rc >= 0, let message else { return }
        defer { sd_bus_message_unref(message) }
        for argument in ["sleep", "Keyhold", "Release held keys before the system sleeps", "delay"] where rc >= 0 {
            rc = argument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        }
        guard rc >= 0 else { return }
        rc = sd_bus_call_async(bus, nil, message, SleepMonitor.onInhibitReply, Unmanaged.passUnretained(self).toOpaque(), 0)
        if rc >= 0 { inhibitPending = true }
    }

    private func releaseInhibitor() {
        if inhibitorFD >= 0 { Glibc.close(inhibitorFD) }
        inhibitorFD = -1
    }

    private func inhibitReply(_ message: OpaquePointer) {
        inhibitPending = false
        if sd_bus_message_is_method_error(message, nil) != 0 {
            let error = sd_bus_message_get_error(message)
            let name = error?.pointee.name.map { String(cString: $0) } ?? "error"
            let text = error?.pointee.message.map { String(cString: $0) } ?? ""
            inhibitFailures += 1
            if inhibitFailures == 1 {
                Log.info("suspend: no sleep delay lock from \(sender) (\(name)\(text.isEmpty ? "" : ": \(text)")); "
                         + "keys are still released when the sleep signal arrives")
            }
            return
        }
        var fd: Int32 = -1
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "h")), &fd) > 0, fd >= 0 else { return }
        // The fd belongs to the message: keep a copy of our own.
        let own = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard own >= 0 else { return }
        releaseInhibitor()
        inhibitorFD = own
        Log.debug("suspend: holding a sleep delay lock")
    }

    private func nameOwnerChanged(_ message: OpaquePointer) {
        var name: UnsafePointer<CChar>?, old: UnsafePointer<CChar>?, new: UnsafePointer<CChar>?
        let s = CChar(UInt8(ascii: "s"))
        guard sd_bus_message_read_basic(message, s, &name) > 0, sd_bus_message_read_basic(message, s, &old) > 0,
              sd_bus_message_read_basic(message, s, &new) > 0, let name, String(cString: name) == sender else { return }
        let owner = new.map { String(cString: $0) } ?? ""
        if owner.isEmpty {
            releaseInhibitor()   // that logind is gone; its lock means nothing now
        } else {
            releaseInhibitor()
            takeInhibitor()
        }
    }

    // MARK: - C callbacks (userdata is the monitor, unretained: the bus never outlives it)

    private static let onPrepareForSleep: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        var value: Int32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 else { return 0 }
        Unmanaged<SleepMonitor>.fromOpaque(userdata).takeUnretainedValue().prepareForSleep(value != 0)
        return 0
    }

    private static let onNameOwnerChanged: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<SleepMonitor>.fromOpaque(userdata).takeUnretainedValue().nameOwnerChanged(message)
        return 0
    }

    private static let onInhibitReply: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<SleepMonitor>.fromOpaque(userdata).takeUnretainedValue().inhibitReply(message)
        return 0
    }

    private static let onMatchInstalled: sd_bus_message_handler_t = { message, _, _ in
        guard let message, sd_bus_message_is_method_error(message, nil) != 0 else { return 0 }
        let error = sd_bus_message_get_error(message)
        Log.warning("suspend: cannot subscribe to D-Bus signals: \(error?.pointee.message.map { String(cString: $0) } ?? "error")")
        return 0
    }
}

public enum SleepMonitorError: Error, CustomStringConvertible {
    case noBus(String, Int32)
    case system(String)
    public var description: String {
        switch self {
        case .noBus(let bus, let code): return "no D-Bus (\(bus): \(errorString(code)))"
        case .system(let message): return message
        }
    }
}
