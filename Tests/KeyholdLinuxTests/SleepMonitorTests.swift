import CSystemd
import Dispatch
import Foundation
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// `SleepMonitor` against a private dbus-daemon: a fake logind (an sd-bus connection owning
/// org.freedesktop.login1 on that bus) hands out sleep delay locks and emits PrepareForSleep;
/// the monitor runs on its own `EventLoop` thread, as in the daemon.
final class SleepMonitorTests: XCTestCase {
    private var directory = ""
    private var daemon: Process?
    private var address = ""
    /// dbus-daemon's standard output, kept open while it runs.
    private let printedAddress = Pipe()

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else { throw XCTSkip("no dbus-daemon") }
        var template = Array("/tmp/keyhold-dbus-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw XCTSkip("mkdtemp") }
        directory = String(cString: dir)
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        p.arguments = ["--session", "--nofork", "--nopidfile", "--print-address", "--address=" + address]
        p.standardOutput = printedAddress
        try p.run()
        daemon = p
        // Ready once it prints its address: it listens then. The socket file alone exists from
        // bind(), before listen(), and the fake logind connecting in between was refused (in CI).
        var ready = pollfd(fd: printedAddress.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 10_000) == 1, !printedAddress.fileHandleForReading.availableData.isEmpty else {
            throw XCTSkip("dbus-daemon did not start")
        }
    }

    override func tearDown() {
        daemon?.terminate()
        daemon?.waitUntilExit()
        if !directory.isEmpty { _ = try? FileManager.default.removeItem(atPath: directory) }
    }

    func testPrepareForSleepReleasesBeforeTheDelayLockIsGivenBack() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let logind = try FakeLogind(address: address)
        XCTAssertGreaterThanOrEqual(logind.own(), 0, "the fake logind owns org.freedesktop.login1")

        let events = EventLog()
        let monitor = try loop.sync { () throws -> SleepMonitor in
            var m: SleepMonitor?
            m = try SleepMonitor(loop: loop.loop, address: self.address) { sleeping in
                // the lock must still be held while the daemon releases its keys
                events.append("\(sleeping ? "sleep" : "wake") lock=\(m!.hasDelayLock)")
            }
            return m!
        }
        defer { loop.sync { monitor.close() } }

        // at start the monitor asks for a sleep delay lock
        XCTAssertTrue(logind.pump(10) { logind.inhibitors.count == 1 }, "Inhibit was called")
        XCTAssertEqual(logind.lastInhibit, ["sleep", "Keyhold", "Release held keys before the system sleeps", "delay"])
        XCTAssertTrue(waitUntil(10) { loop.sync { monitor.hasDelayLock } })
        XCTAssertTrue(logind.isHeld(0))

        // PrepareForSleep(true): the handler runs while the lock is held, then the lock is released
        logind.emit(true)
        XCTAssertTrue(logind.pump(10) { !logind.isHeld(0) }, "the lock is given back")
        XCTAssertEqual(events.entries, ["sleep lock=true"])
        XCTAssertFalse(loop.sync { monitor.hasDelayLock })

        // a look-alike signal from a connection that is not logind is ignored
        let impostor = try FakeLogind(address: address)
        impostor.emit(true)
        impostor.emit(false)
        _ = impostor.pump(0.5) { false }
        XCTAssertEqual(events.entries, ["sleep lock=true"], "only the owner of org.freedesktop.login1 counts")

        // PrepareForSleep(false): the handler resyncs, and a new lock is taken
        logind.emit(false)
        XCTAssertTrue(logind.pump(10) { logind.inhibitors.count == 2 })
        XCTAssertTrue(waitUntil(10) { loop.sync { monitor.hasDelayLock } })
        XCTAssertEqual(events.entries, ["sleep lock=true", "wake lock=false"])
        XCTAssertEqual(loop.sync { monitor.sleeps }, 1)
        XCTAssertEqual(loop.sync { monitor.wakes }, 1)

        // logind restarts: the old lock is dropped and one is taken from the new instance
        logind.disconnect()
        let restarted = try FakeLogind(address: address)
        XCTAssertGreaterThanOrEqual(restarted.own(), 0)
        XCTAssertTrue(restarted.pump(10) { restarted.inhibitors.count == 1 }, "a lock from the restarted logind")
        XCTAssertTrue(waitUntil(10) { loop.sync { monitor.hasDelayLock } })
        restarted.emit(true)
        XCTAssertTrue(restarted.pump(10) { !restarted.isHeld(0) })
        XCTAssertEqual(events.entries.last, "sleep lock=true")
        XCTAssertTrue(loop.sync { monitor.isActive })
    }

    func testWorksWithoutDelayLockWhenLogindRefuses() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let logind = try FakeLogind(address: address, answersInhibit: false)
        XCTAssertGreaterThanOrEqual(logind.own(), 0)
        let events = EventLog()
        let monitor = try loop.sync { try SleepMonitor(loop: loop.loop, address: self.address) { events.append("\($0)") } }
        defer { loop.sync { monitor.close() } }
        _ = logind.pump(1) { false }
        XCTAssertFalse(loop.sync { monitor.hasDelayLock })
        logind.emit(true)
        logind.emit(false)
        XCTAssertTrue(logind.pump(10) { events.entries.count == 2 })
        XCTAssertEqual(events.entries, ["true", "false"])
    }

    func testBusGoingAwayTurnsTheFeatureOff() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let monitor = try loop.sync { try SleepMonitor(loop: loop.loop, address: self.address, takeDelayLock: false) { _ in } }
        XCTAssertTrue(loop.sync { monitor.isActive })
        daemon?.terminate()
        daemon?.waitUntilExit()
        XCTAssertTrue(waitUntil(10) { !loop.sync { monitor.isActive } }, "connection loss is noticed through the event loop")
        loop.sync { monitor.close() }
    }

    func testNoBusIsOneLogLineAndNil() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        XCTAssertThrowsError(try loop.sync { try SleepMonitor(loop: loop.loop, address: "unix:path=/nonexistent/bus") { _ in } }) {
            XCTAssertTrue("\($0)".hasPrefix("no D-Bus"), "\($0)")
        }
        if access("/run/dbus/system_bus_socket", F_OK) != 0 {
            XCTAssertNil(loop.sync { SleepMonitor.start(loop: loop.loop) { _ in } }, "no system bus on this host: off")
        }
    }

}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var entries: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

/// logind's part of the protocol on a test bus: owns the name, answers Inhibit with a pipe's
/// write end (the lock is held while the client keeps it open), emits PrepareForSleep.
final class FakeLogind {
    private var bus: OpaquePointer?
    /// Read ends of the pipes handed out, in order.
    private(set) var inhibitors: [Int32] = []
    private(set) var lastInhibit: [String] = []
    private let answersInhibit: Bool

    init(address: String, answersInhibit: Bool = true) throws {
        self.answersInhibit = answersInhibit
        var bus: OpaquePointer?
        var rc = sd_bus_new(&bus)
        if rc >= 0 { rc = sd_bus_set_address(bus, address) }
        if rc >= 0 { rc = sd_bus_set_bus_client(bus, 1) }
        if rc >= 0 { rc = sd_bus_start(bus) }
        guard rc >= 0, let bus else { throw SystemError("sd_bus_start", -rc) }
        self.bus = bus
        if answersInhibit {
            sd_bus_add_object(bus, nil, "/org/freedesktop/login1", { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                return Unmanaged<FakeLogind>.fromOpaque(userdata).takeUnretainedValue().methodCall(message)
            }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    deinit {
        disconnect()
        for fd in inhibitors { close(fd) }
    }

    func own() -> Int32 { sd_bus_request_name(bus, SleepMonitor.logind, 0) }

    func disconnect() {
        if let bus { sd_bus_flush(bus); sd_bus_close(bus); sd_bus_unref(bus) }
        bus = nil
    }

    func emit(_ sleeping: Bool) {
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &message, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep") >= 0,
              let message else { return }
        var value: Int32 = sleeping ? 1 : 0
        sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &value)
        sd_bus_send(bus, message, nil)
        sd_bus_message_unref(message)
        sd_bus_flush(bus)
    }

    /// Processes the bus until `condition` holds or `seconds` pass.
    func pump(_ seconds: Double, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while true {
            while let bus, sd_bus_process(bus, nil) > 0 {}
            if condition() { return true }
            if Date() >= end { return false }
            if let bus { sd_bus_wait(bus, 20_000) } else { usleep(20_000) }
        }
    }

    /// Whether the lock handed out `index`-th is still held by the client.
    func isHeld(_ index: Int) -> Bool {
        var pfd = pollfd(fd: inhibitors[index], events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) == 0
    }

    private func methodCall(_ message: OpaquePointer) -> Int32 {
        guard sd_bus_message_is_method_call(message, "org.freedesktop.login1.Manager", "Inhibit") > 0 else { return 0 }
        var args: [String] = []
        for _ in 0..<4 {
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &p) > 0, let p else { break }
            args.append(String(cString: p))
        }
        lastInhibit = args
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return -errno }
        var reply: OpaquePointer?
        sd_bus_message_new_method_return(message, &reply)
        var writeEnd = fds[1]
        sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "h")), &writeEnd)
        sd_bus_send(bus, reply, nil)
        sd_bus_message_unref(reply)
        close(fds[1])
        inhibitors.append(fds[0])
        return 1
    }
}
