import Dispatch
import Foundation
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest
import CLinuxShim

/// The control socket and the companion channel under a local user who tries (docs/SECURITY.md),
/// with the real server on its own `EventLoop` thread: one test per hole a review found, each
/// written to fail on the code that had the hole.
final class HostileClientTests: XCTestCase {
    private var directory = ""
    private var path: String { directory + "/control" }

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-hostile-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw XCTSkip("mkdtemp failed") }
        directory = String(cString: dir)
        chmod(directory, 0o755)
    }

    override func tearDown() {
        if !directory.isEmpty { _ = try? FileManager.default.removeItem(atPath: directory) }
    }

    private func server(_ loop: LoopThread, _ handler: ControlHandler) throws -> ControlServer {
        try loop.sync { try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler) }
    }

    // MARK: - 1. A companion's keymap

    /// A keymap that includes files (1,000 includes of five layouts took 1.75 s to compile on the
    /// input thread) is refused unread; one over the bound too; what is compiled is compiled off
    /// the input thread, and a session not in front is not listened to.
    func testAKeymapIsBoundedCheckedAndCompiledOffTheInputThread() throws {
        let rig = try HubRig(path: path)
        defer { rig.stop() }
        let companion = try ControlClient(path: path)
        XCTAssertEqual(try CompanionEvent(json: companion.request(.companion(.hello(CompanionHello(backend: "wayland"))))), .accepted)
        XCTAssertEqual(try rig.event(companion), .locales(["en"]), "the callout locales, which name the picker's candidates")
        XCTAssertEqual(try rig.event(companion), .active)
        func keymap(_ text: String) -> ControlRequest { .companion(.keymap(text, temporaryKeycodes: [])) }

        let bomb = "xkb_keymap {\n" + String(repeating: "  xkb_symbols { include \"pc+us+de+fr+ru+inet(evdev)\" };\n", count: 1000) + "};\n"
        let refused = try companion.request(keymap(bomb), timeout: 1_000)
        XCTAssertEqual(refused["ok"], .bool(false))
        XCTAssertEqual(refused["error"]?.stringValue, "keymap names files to include: send the keymap as xkbcommon writes it")
        XCTAssertNil(rig.loop.sync { rig.hub.layout })
        // Hidden where xkbcommon's scanner would still find it: after an escaped quote, in upper case.
        XCTAssertTrue(CompanionHub.includesFiles(#"xkb_symbols { name[1] = "a\" b"; INCLUDE "pc" };"#))
        XCTAssertTrue(CompanionHub.includesFiles("// a comment\r\naugment \"us\""))
        XCTAssertFalse(CompanionHub.includesFiles("// include \"pc\"\nname = \"include\";"))
        XCTAssertFalse(CompanionHub.includesFiles(try XCTUnwrap(XKBLayout.keymapText(for: XKBNames(layout: "us,de", options: "ctrl:nocaps")))))

        let huge = "xkb_keymap {" + String(repeating: " ", count: CompanionHub.maximumKeymapBytes) + "};"
        XCTAssertEqual(try companion.request(keymap(huge))["error"]?.stringValue, "keymap too large (over 256 KiB)")

        // A real one compiles on another thread than the loop's, and the loop answers meanwhile.
        let german = try XCTUnwrap(XKBLayout.keymapText(for: XKBNames(layout: "de")))
        try companion.sendRaw(Array(keymap(german).line.utf8))
        let other = try ControlClient(path: path)
        XCTAssertEqual(try other.request(.status)["ok"], .bool(true))
        XCTAssertEqual(try rig.event(companion), .layout("German"))
        XCTAssertEqual(rig.loop.sync { rig.hub.layout?.layout.name }, "German")

        // Its session goes to the background (a switch of user): nothing it says is taken.
        rig.loop.sync { rig.hub.target = OutputTarget(kind: .graphical, session: "9", uid: getuid() &+ 1, source: "test") }
        let french = try XCTUnwrap(XKBLayout.keymapText(for: XKBNames(layout: "fr")))
        XCTAssertEqual(try companion.request(keymap(french))["error"]?.stringValue, "this session is not in front of the seat now")
        try companion.sendRaw(Array((CompanionRequest.pick(index: 2).line
                                     + CompanionRequest.focus(ApplicationFocus(ids: ["evil"], textField: .normal)).line).utf8))
        XCTAssertEqual(try other.request(.status)["ok"], .bool(true))   // (its lines were taken by now)
        rig.loop.sync { rig.hub.target = HubRig.ownSession }
        XCTAssertEqual(try rig.event(companion), .active)
        XCTAssertEqual(rig.loop.sync { rig.hub.layout?.layout.name }, "German", "the French keymap was not taken")
        XCTAssertEqual(rig.loop.sync { rig.picks }, [])
        XCTAssertEqual(rig.loop.sync { rig.hub.focus }, .unknown)
    }

    // MARK: - 3. One client's bytes, another's request

    /// While an admin's two lines are handled, a monitor that cannot keep up is dropped, with a
    /// line of its own unread: that line must not be read as the admin's second one (it was: the
    /// server read every client into one buffer, and dropping the monitor read its bytes into it).
    func testAClientDroppedMidBatchNeverSpeaksForAnother() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()
        let server = try server(loop, handler)
        defer { loop.sync { server.shutdown() } }
        let monitor = try ControlClient(path: path)
        XCTAssertEqual(try monitor.request(.monitor(content: true))["ok"], .bool(true))
        let admin = try ControlClient(path: path)
        XCTAssertEqual(try admin.request(.status)["ok"], .bool(true))
        // The next notice overflows the monitor: it is dropped while the first pause is handled.
        loop.sync { server.maximumPendingBytes = 8 }
        // Both send while the loop is busy, the admin first: the loop reads the admin first.
        let busy = DispatchSemaphore(value: 0), sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { loop.sync { busy.signal(); sent.wait() } }
        busy.wait()
        // Two pauses, each 18 bytes; the monitor's "resume" lies where the second pause lay.
        let pause = "{\"cmd\":\"pause\"}  \n"
        try admin.sendRaw(Array((pause + pause).utf8))
        try monitor.sendRaw(Array((String(repeating: " ", count: 18) + " {\"cmd\":\"resume\"}\n").utf8))
        sent.signal()
        XCTAssertEqual(try admin.readReply()["paused"], .bool(true))
        XCTAssertEqual(try admin.readReply()["paused"], .bool(true), "the second line is the admin's own pause")
        XCTAssertTrue(loop.sync { handler.paused })
    }

    // MARK: - 4. Any local user slows every key

    /// Eight connections flood the socket with garbage while another descriptor on the loop (a
    /// keyboard's, in the daemon) is written to every millisecond: each flooder is closed after a
    /// few refusals, and the other descriptor's wait is printed beside the idle loop's. A
    /// connection that says nothing is closed after the idle time; root always finds one free.
    func testFloodingClientsAreClosedAndTheLoopKeepsServingKeys() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()
        let server = try server(loop, handler)
        defer { loop.sync { server.shutdown() } }
        // The loop at the service's priority (SCHED_FIFO 49), where the system lets it be: a
        // flooder then waits for it, not it for the flooders' time slices.
        let realTime = loop.sync { () -> Bool in
            var param = sched_param(sched_priority: 49)
            return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0
        }
        let idle = try measureKeyWaits(loop, samples: 2_000) {}
        var flooders: [ControlClient] = []
        let flooded = try measureKeyWaits(loop, samples: 2_000) {
            // (re)connect and flood: a closed flooder comes back, as a hostile one would
            if flooders.count < 8 || flooders.contains(where: { $0.peerClosed }) {
                flooders.removeAll { $0.peerClosed }
                while flooders.count < 8, let c = try? ControlClient(path: self.path) { flooders.append(c) }
            }
            for f in flooders { try? f.sendRaw(Array(String(repeating: "x\n", count: 2048).utf8)) }
        }
        let p = { (w: [Double], q: Double) in w.sorted()[min(w.count - 1, Int(Double(w.count) * q))] }
        print(String(format: "HostileClientTests: a key's wait on the loop (%@), idle p50 %.3f ms p99 %.3f ms; with 8 flooding clients p50 %.3f ms p99 %.3f ms",
                     realTime ? "SCHED_FIFO 49" : "default scheduling", p(idle, 0.5) * 1e3, p(idle, 0.99) * 1e3,
                     p(flooded, 0.5) * 1e3, p(flooded, 0.99) * 1e3))
        XCTAssertGreaterThan(loop.sync { server.rejectedRequests }, 0)
        for flooder in flooders {
            var replies = 0
            while let _ = try flooder.readLine(timeout: 5_000) { replies += 1 }
            XCTAssertLessThanOrEqual(replies, ControlServer.maximumErrors, "closed after a few refusals, not after 2,048")
        }

        // A connection that sends nothing is closed after the idle time (shortened here).
        loop.sync { server.idleMicroseconds = 1_000_000 }
        let silent = try ControlClient(path: path)
        let reply = try silent.readReply(timeout: 5_000)
        XCTAssertEqual(reply["error"]?.stringValue, "no request for 1 s; closing the connection")
        XCTAssertNil(try silent.readLine(timeout: 5_000))
        // A monitor waits for events, not requests: it stays.
        let monitor = try ControlClient(path: path)
        XCTAssertEqual(try monitor.request(.monitor(content: true))["ok"], .bool(true))
        usleep(1_500_000)
        XCTAssertEqual(loop.sync { server.monitor.count }, 1)
    }

    /// Waits of a pipe's reader on the loop (as a keyboard's would be): the time from writing a
    /// byte to its handler running, `samples` times, `disturb` run before each.
    private func measureKeyWaits(_ loop: LoopThread, samples: Int, disturb: () throws -> Void) throws -> [Double] {
        var pipeFDs: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeFDs), 0)
        defer { close(pipeFDs[0]); close(pipeFDs[1]) }
        final class Seen: @unchecked Sendable { var at: UInt64 = 0; let signal = DispatchSemaphore(value: 0) }
        let seen = Seen()
        let token = try loop.sync { () throws -> EventLoop.Token in
            try loop.loop.watch(pipeFDs[0]) {
                var byte: UInt8 = 0
                while read(pipeFDs[0], &byte, 1) > 0 {}
                seen.at = DispatchTime.now().uptimeNanoseconds
                seen.signal.signal()
            }
        }
        defer { loop.sync { loop.loop.unwatch(token) } }
        var waits: [Double] = []
        for _ in 0..<samples {
            try disturb()
            var byte: UInt8 = 1
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = write(pipeFDs[1], &byte, 1)
            seen.signal.wait()
            waits.append(Double(seen.at - t0) / 1e9)
            usleep(500)
        }
        return waits
    }

    // MARK: - 6. Escape sequences

    /// What a companion names (an application, its note) cannot carry control characters, and
    /// what `keyhold status` prints of names others chose is made safe for the terminal.
    func testControlCharactersNeverReachATerminal() throws {
        XCTAssertThrowsError(try ControlRequest(line: Array(#"{"cmd":"focus","app":["evil\u001b]0;owned\u0007"]}"#.utf8)))
        XCTAssertThrowsError(try ControlRequest(line: Array(#"{"cmd":"companion","backend":"x11","note":"\u009b2J"}"#.utf8)))
        XCTAssertThrowsError(try ControlRequest(line: Array(#"{"cmd":"companion","backend":"x\u001b11"}"#.utf8)))
        XCTAssertEqual("USB \u{1B}[2J Keyboard\u{9B}1m".terminalSafe, "USB \\x1b[2J Keyboard\\u{9b}1m")
        XCTAssertEqual("Zürich — déjà".terminalSafe, "Zürich — déjà")
        let keymap = try XCTUnwrap(XKBLayout.keymapText(for: XKBNames(layout: "us")))
            .replacingOccurrences(of: "name[Group1]=\"English (US)\"", with: "name[Group1]=\"Evil\\033]0;owned\\007\"")
        XCTAssertTrue(keymap.contains("Evil"))
        let layout = try XKBLayout(keymapText: keymap, source: "test")
        XCTAssertEqual(layout.name, "Evil\\x1b]0;owned\\x07")
    }

    // MARK: - 7. Per session, not per user

    /// A companion serves one logind session: another session of the same user (xrdp, Xvnc,
    /// `ssh -X`) is not the one in front, even though its user is.
    func testACompanionServesItsSessionNotItsUser() {
        let front = OutputTarget(kind: .graphical, session: "2", uid: 1000, vt: 7, type: "x11", source: "logind")
        let own = SessionCompanion(uid: 1000, pid: 10, session: "2", hello: CompanionHello(backend: "x11"), hub: nil)
        let remote = SessionCompanion(uid: 1000, pid: 11, session: "5", hello: CompanionHello(backend: "x11"), hub: nil)
        XCTAssertTrue(own.serves(front))
        XCTAssertFalse(remote.serves(front), "the same user's other session")
        XCTAssertFalse(own.serves(OutputTarget(kind: .textConsole, session: "2", uid: 1000, source: "logind")), "a text console")
        // Without logind: the active VT's owner.
        XCTAssertTrue(SessionCompanion(uid: 1000, pid: 12, session: nil, hello: CompanionHello(backend: "x11"), hub: nil)
                        .serves(OutputTarget(kind: .graphical, uid: 1000, vt: 7, source: "active VT")))
    }

    // MARK: - 8. A stuck companion

    /// One miss drops the companion; a second in a row benches its session for 30 s, doubling
    /// after, up to 5 minutes; an answer in between forgives a miss.
    func testACompanionThatKeepsMissingIsBenched() {
        var misses = CompanionMisses()
        let t = Timestamp(microseconds: 1_000_000)
        XCTAssertNil(misses.missed("session 2", at: t), "a first miss: dropped, not benched")
        misses.answered("session 2")
        XCTAssertNil(misses.missed("session 2", at: t), "the answer in between forgave the first")
        let until = misses.missed("session 2", at: t)
        XCTAssertEqual(until, t.adding(microseconds: 30_000_000))
        XCTAssertEqual(misses.benchedUntil("session 2", at: t.adding(microseconds: 29_000_000)), until)
        XCTAssertNil(misses.benchedUntil("session 3", at: t), "one session's companion benches no other")
        XCTAssertEqual(misses.expire(at: t.adding(microseconds: 1_000)), until)
        XCTAssertNil(misses.expire(at: t.adding(microseconds: 30_000_000)))
        XCTAssertNil(misses.benchedUntil("session 2", at: t.adding(microseconds: 30_000_000)))
        XCTAssertEqual(misses.missed("session 2", at: t), t.adding(microseconds: 60_000_000), "the third in a row: twice as long")
        for _ in 0..<10 { _ = misses.missed("session 2", at: t) }
        XCTAssertEqual(misses.benchedUntil("session 2", at: t), t.adding(microseconds: 300_000_000), "five minutes at most")
    }

    // MARK: - 9. The rest

    /// The daemon refuses itself netlink sockets but udev's and the sound card control calls
    /// playback never makes (systemd's filters cannot look at arguments): in a child, as the
    /// daemon is.
    func testTheDaemonRefusesItselfWhatItNeverNeeds() {
        let pid = fork()
        if pid == 0 {
            guard keyhold_refuse_unneeded_calls() == 0 else { _exit(10) }
            let route = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue), 0)   // NETLINK_ROUTE
            if route >= 0 || errno != EPERM { _exit(11) }
            let uevent = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue), 15)   // NETLINK_KOBJECT_UEVENT
            if uevent < 0 { _exit(12) }
            let unix = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            if unix < 0 { _exit(13) }
            // a control's removal on any descriptor: refused before a driver is asked; others pass
            if keyhold_ioctl_errno(unix, keyhold_mixer_remove_request()) != EPERM { _exit(14) }
            if keyhold_ioctl_errno(unix, UInt(FIONREAD)) == EPERM { _exit(15) }
            _exit(0)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        XCTAssertEqual(status & 0x7F, 0, "killed by signal \(status & 0x7F)")
        XCTAssertEqual((status >> 8) & 0xFF, 0, "the child's check that failed (see the exits above)")
    }

    /// A reload that reopens feedback while the last reopen is still opening a slow sound card:
    /// the input thread does not wait for it (it joined that thread).
    func testAReopenNeverWaitsForTheOneUnderWay() {
        let feedback = FeedbackSwitch()
        let opening = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        feedback.reopen { opening.signal(); release.wait(); return (SilentAudioEngine(), SilentHapticEngine()) }
        opening.wait()
        let t0 = DispatchTime.now().uptimeNanoseconds
        feedback.reopen { (SilentAudioEngine(), SilentHapticEngine()) }
        let took = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        release.signal()
        feedback.waitUntilOpen()
        XCTAssertLessThan(took, 0.5, "the second reopen returned while the first still opened")
        feedback.close()
    }
}

