import Dispatch
import Foundation
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import KeyholdTestSupport
import XCTest

/// The control socket on a real unix socket, with the server on its own `EventLoop` thread and
/// the clients on the test thread (or in forked children running as `nobody`).
final class ControlServerTests: XCTestCase {
    private var directory = ""
    private var path: String { directory + "/control" }

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-control-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw XCTSkip("mkdtemp failed")
        }
        directory = String(cString: dir)
        chmod(directory, 0o755)   // children running as nobody must reach the socket
    }

    override func tearDown() {
        if !directory.isEmpty { _ = try? FileManager.default.removeItem(atPath: directory) }
    }

    // MARK: - Requests

    func testEveryRequest() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()
        let server = try loop.sync { () throws -> ControlServer in
            let s = try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler)
            s.version = "9.9.9"
            return s
        }
        defer { loop.sync { server.shutdown() } }

        let client = try ControlClient(path: path)
        let status = try client.request(.status)
        XCTAssertEqual(status["ok"], .bool(true))
        XCTAssertEqual(status["version"]?.stringValue, "9.9.9")
        XCTAssertEqual(status["pid"]?.intValue, Int(getpid()))
        XCTAssertEqual(status["grabbed"]?.intValue, 1)
        XCTAssertEqual(ControlStatus(reply: status), handler.status(activity: true), "the status survives the round trip")

        XCTAssertEqual(try client.request(.reload)["configuration"]?.stringValue, "/etc/keyhold/config.toml")
        loop.sync { handler.reloadResult = .failed("/etc/keyhold/config.toml:3: unknown key 'lng_press_ms' (did you mean 'long_press_ms'?)") }
        let failed = try client.request(.reload)
        XCTAssertEqual(failed["ok"], .bool(false))
        XCTAssertEqual(failed["error"]?.stringValue, "/etc/keyhold/config.toml:3: unknown key 'lng_press_ms' (did you mean 'long_press_ms'?)")
        XCTAssertEqual(loop.sync { handler.reloads }, 2)

        XCTAssertEqual(try client.request(.pause)["paused"], .bool(true))
        XCTAssertTrue(loop.sync { handler.paused })
        XCTAssertEqual(try client.request(.status)["paused"], .bool(true))
        XCTAssertEqual(try client.request(.resume)["paused"], .bool(false))
        XCTAssertFalse(loop.sync { handler.paused })

        // The sender's own callout picks: the handler is told whose, and says whether they were in front.
        XCTAssertEqual(try client.request(.forgetPicks)["in_front"], .bool(false))
        loop.sync { handler.inFront = getuid() }
        XCTAssertEqual(try client.request(.forgetPicks)["in_front"], .bool(true))
        XCTAssertEqual(loop.sync { handler.forgotten }, [getuid(), getuid()])
        // The sender's companions read its personal settings again.
        XCTAssertEqual(try client.request(.reloadSettings)["companions"]?.intValue, 1)
        XCTAssertEqual(loop.sync { handler.reloadedSettings }, [getuid()])
        // The sender's own session: how Keyhold types there and for which application, while in front
        let session = try client.request(.session)
        XCTAssertEqual(session["in_front"], .bool(true))
        XCTAssertEqual(session["unicode_method"]?.stringValue, "ibus (the session's input method)")
        XCTAssertEqual(session["application"]?.stringValue, "org.gnome.TextEditor")
        loop.sync { handler.inFront = nil }
        let away = try client.request(.session)
        XCTAssertEqual(away["in_front"], .bool(false))
        XCTAssertNil(away["application"])
        XCTAssertNil(away["unicode_method"])

        try client.sendRaw(Array("{\"cmd\":\"reboot\"}\n".utf8))
        let unknown = try client.readReply()
        XCTAssertEqual(unknown["ok"], .bool(false))
        XCTAssertEqual(unknown["error"]?.stringValue, "unknown command \"reboot\" (commands: status, reload, pause, resume, monitor, forget-picks, reload-settings, session, companion, keymap, typed, untyped, waiting, pick, dismiss, focus, picks, settings, note)")

        // monitor: root asked for content and gets it
        let monitor = try ControlClient(path: path)
        let subscribed = try monitor.request(.monitor(content: true))
        XCTAssertEqual(subscribed["monitor"], .bool(true))
        XCTAssertEqual(subscribed["content"], .bool(true))
        let plain = try ControlClient(path: path)
        XCTAssertEqual(try plain.request(.monitor(content: false))["content"], .bool(false))
        XCTAssertEqual(loop.sync { server.monitor.count }, 2)

        let t = Timestamp.milliseconds(1500)
        loop.sync {
            server.monitor.publish(.input(KeyEvent(KeyCode(name: "e")!, .down, at: t)))
            server.monitor.publish(.gesture(KeyCode(name: "e")!, .longPress, .character("e"), t))
            server.monitor.publish(.callout(.opened(base: "e", candidates: ["è", "é", "ê"]), t))
            server.monitor.publish(.callout(.moved(index: 2, shown: "é"), t + 100))
        }
        XCTAssertEqual(String(decoding: try XCTUnwrap(monitor.readLine(timeout: 5000)), as: UTF8.self),
                       #"{"event":"input","t":1500,"key":"e","state":"down"}"#)
        XCTAssertEqual(String(decoding: try XCTUnwrap(monitor.readLine(timeout: 5000)), as: UTF8.self),
                       #"{"event":"gesture","t":1500,"gesture":"longPress","action":"character","key":"e","value":"character:e"}"#)
        XCTAssertEqual(String(decoding: try XCTUnwrap(monitor.readLine(timeout: 5000)), as: UTF8.self),
                       #"{"event":"callout","t":1500,"action":"open","index":0,"count":3,"base":"e","candidates":["è","é","ê"]}"#)
        XCTAssertEqual(String(decoding: try XCTUnwrap(monitor.readLine(timeout: 5000)), as: UTF8.self),
                       #"{"event":"callout","t":1600,"action":"move","index":2,"shown":"é"}"#)
        // without content: nothing of the keys (testMonitorsWithoutContentGetNoticesOnly)
        XCTAssertThrowsError(try plain.readLine(timeout: 200))

        // a monitor connecting while the callout is open sees it, with the shown candidate
        let late = try ControlClient(path: path)
        _ = try late.request(.monitor(content: true))
        XCTAssertEqual(try late.readReply(timeout: 5000)["candidates"], .array([.string("è"), .string("é"), .string("ê")]))
        XCTAssertEqual(try late.readReply(timeout: 5000)["index"]?.intValue, 2)

        // pause from another client is announced to the monitors
        XCTAssertEqual(try client.request(.pause)["ok"], .bool(true))
        let notice = try monitor.readReply(timeout: 5000)
        XCTAssertEqual(notice["event"]?.stringValue, "notice")
        XCTAssertEqual(notice["notice"]?.stringValue, "paused")
        XCTAssertEqual(try plain.readReply(timeout: 5000)["notice"]?.stringValue, "paused", "notices go to every monitor")

        // the monitor view renders the open callout as numbered candidates, the shown one marked
        var view = MonitorViewProbe()
        XCTAssertEqual(view.render(#"{"event":"callout","t":1500,"action":"open","count":3,"index":0,"base":"e","candidates":["è","é","ê"]}"#),
                       "[e]  1 è  2 é  3 ê")
        XCTAssertEqual(view.render(#"{"event":"callout","t":1600,"action":"move","index":2,"shown":"é"}"#), "e  1 è  [2 é]  3 ê")

        // a client that goes away is forgotten; shutdown removes the socket file
        monitor.closeForTest()
        XCTAssertTrue(waitUntil(5) { loop.sync { server.monitor.count } == 2 })
        XCTAssertEqual(try late.readReply(timeout: 5000)["notice"]?.stringValue, "paused")
        // the daemon's last words: published after its loop ended, delivered by shutdown
        loop.sync {
            server.monitor.publishNotice("stopping", detail: "SIGTERM")
            server.shutdown()
        }
        XCTAssertEqual(try late.readReply(timeout: 5000)["notice"]?.stringValue, "stopping")
        XCTAssertNil(try late.readLine(timeout: 5000), "connections are closed at shutdown")
        XCTAssertNotEqual(access(path, F_OK), 0, "the socket file is removed")
    }

    /// A monitor without content (group keyhold) gets the daemon's notices and nothing per key:
    /// no key, gesture, callout or locale event (each would say when a key went down and how long
    /// it was held), and no notice of what the user in front is doing.
    func testMonitorsWithoutContentGetNoticesOnly() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()   // the server does not retain its handler
        let server = try loop.sync { try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler) }
        defer { loop.sync { server.shutdown() } }
        let plain = try ControlClient(path: path), content = try ControlClient(path: path)
        XCTAssertEqual(try plain.request(.monitor(content: false))["content"], .bool(false))
        XCTAssertEqual(try content.request(.monitor(content: true))["content"], .bool(true))
        let t = Timestamp.milliseconds(7), key = KeyCode(name: "e")!
        loop.sync {
            for entry: TraceEntry in [.input(KeyEvent(key, .down, at: t)), .forwarded(key, .up, t), .output(key, .down, t),
                                      .gesture(key, .longPress, .character("e"), t), .callout(.opened(base: "e", candidates: ["é"]), t),
                                      .callout(.moved(index: 1, shown: "é"), t), .callout(.closed(text: "é"), t), .locale("fr", t)] {
                server.monitor.publish(entry)
            }
            server.monitor.publishNotice("application", detail: "rule apps.\"foot\"", activity: true)
            server.monitor.publishNotice("paused", detail: "by uid 0")
        }
        let notice = try plain.readReply()
        XCTAssertEqual(notice["notice"]?.stringValue, "paused", "the first line it gets is the notice: \(notice)")
        XCTAssertThrowsError(try plain.readLine(timeout: 200), "and nothing else")
        var kinds: [String] = []
        for _ in 0..<10 { kinds.append(try content.readReply()["event"]?.stringValue ?? "?") }
        XCTAssertEqual(kinds, ["input", "forwarded", "output", "gesture", "callout", "callout", "callout", "locale", "notice", "notice"],
                       "root sees everything")
    }

    func testJSONParserAndWriter() throws {
        let v = try JSONValue.parse(#" {"cmd":"monitor","content":true,"n":-1.5e2,"a":[null,false,"\u00e9\ud83d\ude00\n"],"o":{}} "#)
        XCTAssertEqual(v["cmd"]?.stringValue, "monitor")
        XCTAssertEqual(v["n"]?.doubleValue, -150)
        XCTAssertEqual(v["a"], .array([.null, .bool(false), .string("é😀\n")]))
        XCTAssertEqual(v.description, #"{"cmd":"monitor","content":true,"n":-150,"a":[null,false,"é😀\n"],"o":{}}"#)
        XCTAssertEqual(try JSONValue.parse(v.description), v)
        for bad in ["", "{", "{\"a\"}", "{\"a\":}", "[1,]", "01", "\"\\x\"", "\"\u{1}\"", "{} x", "\"\\ud800\"", "nul",
                    String(repeating: "[", count: 40) + String(repeating: "]", count: 40), "{\"a\":1,}", "1.", "-", "tru"] {
            XCTAssertThrowsError(try JSONValue.parse(bad), bad)
        }
        var w = JSONWriter()
        w.milliseconds(1_234_567); w.milliseconds(5); w.milliseconds(-1500)
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "1234.567,0.005,-1.500")
    }

    // MARK: - Permissions

    func testSocketIsOpenAndTheServerRefusesOthers() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root: creates sockets for other users and forks clients as nobody") }
        guard let group = ControlServerTests.testGroup() else { throw XCTSkip("no group that nobody is not in") }
        // With the companions' hub, as in the daemon: the session in front is root's.
        let rig = try HubRig(path: path, group: group.name)
        defer { rig.stop() }
        let (loop, server, handler) = (rig.loop, rig.server, rig.admin)

        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFSOCK)
        XCTAssertEqual(st.st_mode & 0o7777, 0o666, "mode 0666: the companion of any user in front of the seat must reach it")
        XCTAssertEqual(st.st_uid, 0, "owner root")
        XCTAssertEqual(st.st_gid, group.gid, "group \(group.name)")

        let nobody: uid_t = 65534, nogroup: gid_t = 65534
        // nobody outside the group: the server refuses every request, and says why
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: []), .refusedByServer)
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [], request: ControlRequest.pause.line), .refusedByServer)
        // ...also as a companion, as the session in front is not nobody's
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [], request: ControlRequest.companion(.hello(CompanionHello(backend: "x11"))).line),
                       .refusedAsCompanion)
        // ...but may have its own callout picks forgotten (its own only: the handler is told whose)
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [], request: ControlRequest.forgetPicks.line), .ok)
        XCTAssertEqual(loop.sync { handler.forgotten }, [nobody])
        // ...and have its companions read its personal settings again
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [], request: ControlRequest.reloadSettings.line), .ok)
        XCTAssertEqual(loop.sync { handler.reloadedSettings }, [nobody])
        // ...and learn what Keyhold does in its own session (the handler is told whose)
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [], request: ControlRequest.session.line), .ok)
        XCTAssertEqual(loop.sync { handler.sessionsAsked }, [nobody])
        // nobody in the group: allowed, a status reply
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [group.gid]), .ok)
        // ...but a group member who asks for key content does not get it
        XCTAssertEqual(runClient(uid: nobody, gid: nogroup, groups: [group.gid], request: ControlRequest.monitor(content: true).line),
                       .okWithoutContent)
        // primary group only (no supplementary groups) counts too
        XCTAssertEqual(runClient(uid: nobody, gid: group.gid, groups: []), .ok)

        // Each client has exited; the loop closes its end once it reads the end of the stream.
        XCTAssertTrue(waitUntil(5) { loop.sync { server.clientCount } == 0 }, "\(loop.sync { server.clientCount }) left open")
        XCTAssertFalse(loop.sync { handler.paused })
    }

    // MARK: - Abuse

    func testMalformedAndOversizedRequestsNeverAffectTyping() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()
        let server = try loop.sync { try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler) }
        defer { loop.sync { server.shutdown() } }
        let typing = try TypingRig(loop: loop, observer: server.monitor)

        var malformed: [String] = [
            "not json", "{", "}", "[]", "\"status\"", "42", "null", "{\"cmd\":}", "{\"cmd\":status}", "{'cmd':'status'}",
            "{\"cmd\":42}", "{\"cmd\":null}", "{\"cmd\":[\"status\"]}", "{\"command\":\"status\"}", "{\"cmd\":\"STATUS\"}",
            "{\"cmd\":\"pause\",}", "{\"cmd\":\"monitor\",\"content\":\"yes\"}", "{\"cmd\":\"\\ud800\"}", "{\"cmd\":\"pau\\u0000se\"}",
            String(repeating: "[", count: 100), String(repeating: "{\"a\":", count: 50), "\u{FEFF}{\"cmd\":\"status\"}",
            "{\"cmd\":\"status\"} trailing", "{\"cmd\":\"" + String(repeating: "x", count: 3000) + "\"}",
        ]
        malformed.append(String(decoding: [0xFF, 0xFE, 0x7B, 0x80], as: UTF8.self))
        // Each gets an error reply, and the connection stays for a few more tries.
        for line in malformed {
            let client = try ControlClient(path: path)
            try client.sendRaw(Array(line.utf8) + [0x0A])
            let reply = try client.readReply(timeout: 10_000)
            XCTAssertEqual(reply["ok"], .bool(false), line)
            XCTAssertFalse(reply["error"]?.stringValue?.isEmpty ?? true, line)
            XCTAssertEqual(try client.request(.status)["ok"], .bool(true), "the connection stays after one error")
        }
        // A thousand, pipelined, while the engine types on the loop thread: an error for the
        // first four, then the connection is closed; typing never notices.
        let client = try ControlClient(path: path)
        var batch: [UInt8] = []
        for k in 0..<1000 { batch += Array(malformed[k % malformed.count].utf8) + [0x0A] }
        try? client.sendRaw(batch)
        var maxRoundTrip = 0.0
        while true {
            let t0 = DispatchTime.now()
            let more = typing.typeChunk()
            maxRoundTrip = max(maxRoundTrip, Double(DispatchTime.now().uptimeNanoseconds - t0.uptimeNanoseconds) / 1e6)
            if !more { break }
        }
        var replies: [JSONValue] = []
        while let line = try client.readLine(timeout: 10_000) { replies.append(try JSONValue.parse(line)) }
        XCTAssertEqual(replies.count, ControlServer.maximumErrors)
        XCTAssertTrue(replies.allSatisfy { $0["ok"] == .bool(false) })
        XCTAssertTrue(replies.last?["error"]?.stringValue?.hasSuffix("closing the connection after 4 refused requests") ?? false,
                      "\(replies.last.map { "\($0)" } ?? "none")")
        XCTAssertEqual(loop.sync { handler.reloads }, 0)
        typing.finish()
        XCTAssertEqual(typing.output, typing.baseline, "the typed output is exactly the output without the control socket")
        print("ControlServerTests: 1000 malformed requests; a typing chunk on the loop took at most \(String(format: "%.2f", maxRoundTrip)) ms meanwhile")

        // exactly 4096 bytes is fine
        let padded = "{\"cmd\":\"status\"}" + String(repeating: " ", count: ControlServer.maximumRequestBytes - 16)
        XCTAssertEqual(padded.utf8.count, ControlServer.maximumRequestBytes)
        let exact = try ControlClient(path: path)
        try exact.sendRaw(Array(padded.utf8) + [0x0A])
        XCTAssertEqual(try exact.readReply()["ok"], .bool(true))
        // one byte more: an error, then the connection is closed
        try exact.sendRaw(Array((padded + " ").utf8) + [0x0A])
        let tooLong = try exact.readReply()
        XCTAssertEqual(tooLong["ok"], .bool(false))
        XCTAssertEqual(tooLong["error"]?.stringValue, "request too long (over 4096 bytes); closing the connection")
        XCTAssertNil(try exact.readLine(timeout: 5000), "closed after the error")
        // a stream with no newline at all
        let endless = try ControlClient(path: path)
        try? endless.sendRaw([UInt8](repeating: 0x61, count: 64 * 1024))
        XCTAssertEqual(try endless.readReply()["ok"], .bool(false))
        XCTAssertNil(try endless.readLine(timeout: 5000))
        XCTAssertTrue(waitUntil(5) { loop.sync { server.clientCount } == 0 })
        XCTAssertFalse(loop.sync { handler.paused })
    }

    func testHundredMonitorsWhileEventsArePublished() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()
        let server = try loop.sync { () throws -> ControlServer in
            let s = try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler)
            s.maximumPendingBytes = 64 * 1024
            return s
        }
        defer { loop.sync { server.shutdown() } }

        // 100 monitors: half with content; 20 never read (those with content must be dropped, not
        // waited for; those without are sent nothing)
        var readers: [(client: ControlClient, content: Bool)] = []
        var sleepers: [(client: ControlClient, content: Bool)] = []
        for i in 0..<100 {
            let c = try ControlClient(path: path)
            let content = i % 2 == 0
            XCTAssertEqual(try c.request(.monitor(content: content))["content"], .bool(content))
            if i % 5 == 4 { sleepers.append((c, content)) } else { readers.append((c, content)) }
        }
        XCTAssertEqual(loop.sync { server.monitor.count }, 100)
        let collector = StreamCollector(fds: readers.map(\.client.fd))
        collector.start()

        let timing = TimingObserver(server: server)
        let typing = try TypingRig(loop: loop, observer: timing, repetitions: 400)
        while typing.typeChunk() {}
        typing.finish()

        // every reading monitor got exactly the events, in order (one without content: none);
        // the sleepers with content were dropped
        let expectedContent = timing.contentBytes, expectedPlain: [UInt8] = []
        let complete = waitUntil(30) {
            readers.enumerated().allSatisfy { i, r in collector.count(i) >= (r.content ? expectedContent.count : expectedPlain.count) }
        }
        collector.stop()
        XCTAssertTrue(complete, "every reading monitor received everything")
        for (i, r) in readers.enumerated() {
            XCTAssertTrue(collector.bytes(i) == (r.content ? expectedContent : expectedPlain), "monitor \(i) stream")
        }
        XCTAssertEqual(loop.sync { server.monitor.count }, readers.count + sleepers.filter { !$0.content }.count,
                       "the 10 clients with content that never read were dropped (the others were sent nothing)")
        for (s, _) in sleepers.filter(\.content) {
            // what was sent before the drop, then EOF
            var lines = 0
            while let line = try s.readLine(timeout: 5000) { XCTAssertNoThrow(try JSONValue.parse(line)); lines += 1 }
            XCTAssertGreaterThan(lines, 0)
        }
        XCTAssertEqual(typing.output, typing.baseline, "monitors do not change what the engine types")
        let durations = timing.durations.sorted()
        let p = { (q: Double) in durations[min(durations.count - 1, Int(Double(durations.count) * q))] }
        print("ControlServerTests: \(durations.count) publishes to 100 monitors (\(expectedContent.count) bytes with content each): "
              + "p50 \(Int(p(0.5) * 1e6)) µs, p99 \(Int(p(0.99) * 1e6)) µs, max \(String(format: "%.3f", durations.last! * 1e3)) ms")
        XCTAssertGreaterThan(durations.count, 10_000)
        // Printed, not asserted (a loaded machine moves them); a publish that waited for a
        // monitor that does not read would take the whole test's time.
        XCTAssertLessThan(durations.last!, 1, "no publish call waits for a monitor")
    }

    /// The engine builds every key's trace entries only while a `keyhold monitor` granted content
    /// watches: the server says when that changes, as the first one connects and the last one
    /// goes. A monitor without content costs the keys nothing.
    func testKeysAreRecordedOnlyWhileAMonitorWithContentWatches() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()
        final class Changes: @unchecked Sendable { var count = 0 }
        let changes = Changes()
        let server = try loop.sync { () throws -> ControlServer in
            let s = try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler)
            s.monitor.onRecordsKeysChanged = { changes.count += 1 }
            return s
        }
        defer { loop.sync { server.shutdown() } }
        XCTAssertFalse(loop.sync { server.monitor.recordsKeys })
        var plain: ControlClient? = try ControlClient(path: path)
        XCTAssertEqual(try plain?.request(.monitor(content: false))["content"], .bool(false))
        XCTAssertFalse(loop.sync { server.monitor.recordsKeys }, "a monitor without content is sent no key")
        var first: ControlClient? = try ControlClient(path: path)
        _ = try first?.request(.monitor(content: true))
        XCTAssertTrue(loop.sync { server.monitor.recordsKeys })
        XCTAssertEqual(loop.sync { changes.count }, 1)
        var second: ControlClient? = try ControlClient(path: path)
        _ = try second?.request(.monitor(content: true))
        XCTAssertEqual(loop.sync { changes.count }, 1, "a second monitor changes nothing")
        first = nil
        XCTAssertTrue(waitUntil(5) { loop.sync { server.monitor.count } == 2 })
        XCTAssertTrue(loop.sync { server.monitor.recordsKeys })
        second = nil
        XCTAssertTrue(waitUntil(5) { loop.sync { server.monitor.count } == 1 })
        XCTAssertFalse(loop.sync { server.monitor.recordsKeys })
        XCTAssertEqual(loop.sync { changes.count }, 2)
        XCTAssertNil(first ?? second)
        plain = nil
        XCTAssertTrue(waitUntil(5) { loop.sync { server.monitor.count } == 0 })
    }

    func testStaleSocketIsReplacedButLiveSocketAndOtherFilesAreNot() throws {
        let loop = try LoopThread()
        defer { loop.stop() }
        let handler = FakeHandler()   // the server does not retain its handler
        // a stale socket: bound, never listening (its daemon died)
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertEqual(ControlServer.withAddress(path) { bind(stale, $0, $1) }, 0)
        close(stale)
        let first = try loop.sync { try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: handler) }
        XCTAssertEqual(try ControlClient(path: path).request(.status)["ok"], .bool(true))
        // a live one is left alone
        XCTAssertThrowsError(try loop.sync { try ControlServer(path: self.path, group: nil, loop: loop.loop, handler: FakeHandler()) }) {
            XCTAssertEqual(($0 as? SystemError)?.code, EADDRINUSE)
        }
        XCTAssertEqual(try ControlClient(path: path).request(.status)["ok"], .bool(true), "the first server still answers")
        loop.sync { first.shutdown() }
        // so is a file that is not a socket
        let file = directory + "/file"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        XCTAssertThrowsError(try loop.sync { try ControlServer(path: file, group: nil, loop: loop.loop, handler: FakeHandler()) })
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "keep")
        // a missing directory is created, mode 0755 (the companion of any user must reach the socket)
        let nested = directory + "/run/control"
        let server = try loop.sync { try ControlServer(path: nested, group: nil, loop: loop.loop, handler: FakeHandler()) }
        var st = stat()
        XCTAssertEqual(stat(directory + "/run", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o755)
        loop.sync { server.shutdown() }
        XCTAssertThrowsError(try ControlClient(path: "/nonexistent/keyhold/control")) {
            XCTAssertTrue(($0 as? ControlClientError)?.description.contains("keyhold is not running") == true)
        }
    }

    func testSocketPathFromEnvironment() {
        XCTAssertEqual(ControlSocketPath.forDaemon(environment: [:]), "/run/keyhold/control")
        XCTAssertEqual(ControlSocketPath.forDaemon(environment: ["KEYHOLD_CONTROL": "/tmp/x"]), "/tmp/x")
        XCTAssertEqual(ControlSocketPath.forClient(environment: [:]), "/run/keyhold/control")
        XCTAssertEqual(ControlSocketPath.forClient(environment: ["KEYHOLD_CONTROL": "/tmp/y"]), "/tmp/y")
    }

    // MARK: - Helpers

    /// A group that exists and that nobody (65534) is not a member of.
    static func testGroup() -> (name: String, gid: gid_t)? {
        for name in ["keyhold", "input", "audio", "video", "users", "daemon"] {
            guard let g = getgrnam(name), g.pointee.gr_gid != 65534, g.pointee.gr_gid != 0 else { continue }
            var members: [String] = []
            var p = g.pointee.gr_mem
            while let m = p?.pointee { members.append(String(cString: m)); p = p! + 1 }
            if !members.contains("nobody") { return (name, g.pointee.gr_gid) }
        }
        return nil
    }

    enum ChildResult: Equatable { case ok, okWithoutContent, refusedByServer, refusedAsCompanion, connectRefused(Int32), other(Int32) }

    /// Forks a child that drops to `uid`/`gid`/`groups`, connects and sends `request`. The child
    /// uses only system calls on buffers prepared before the fork.
    func runClient(uid: uid_t, gid: gid_t, groups: [gid_t], request: String = ControlRequest.status.line) -> ChildResult {
        let requestBytes = Array(request.utf8)
        var reply = [UInt8](repeating: 0, count: 4096)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let ok = Array(#"{"ok":true"#.utf8), denied = Array(#"{"ok":false,"error":"permission denied"#.utf8)
        let noContent = Array(#""content":false"#.utf8), refused = Array(#"{"ok":false,"error":"refused: "#.utf8)
        let pid = fork()
        if pid == 0 {
            _ = groups.withUnsafeBufferPointer { setgroups($0.count, $0.baseAddress) }
            guard setgid(gid) == 0, setuid(uid) == 0 else { _exit(90) }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc != 0 { _exit(errno == EACCES ? 10 : 11) }
            _ = requestBytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var total = 0
            reply.withUnsafeMutableBytes { raw in
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                while total < raw.count, poll(&pfd, 1, 5000) > 0 {
                    let n = read(fd, raw.baseAddress! + total, raw.count - total)
                    if n <= 0 { break }
                    total += n
                    if raw[total - 1] == 0x0A { break }
                }
            }
            func has(_ pattern: [UInt8]) -> Bool {
                guard total >= pattern.count else { return false }
                for s in 0...(total - pattern.count) {
                    var k = 0
                    while k < pattern.count && reply[s + k] == pattern[k] { k += 1 }
                    if k == pattern.count { return true }
                }
                return false
            }
            if has(denied) { _exit(21) }
            if has(refused) { _exit(24) }
            if has(ok) { _exit(has(noContent) ? 22 : 20) }
            _exit(23)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if status & 0x7F != 0 { return .other(1000 + (status & 0x7F)) }   // killed by a signal
        let code = (status >> 8) & 0xFF
        switch code {
        case 20: return .ok
        case 22: return .okWithoutContent
        case 21: return .refusedByServer
        case 24: return .refusedAsCompanion
        case 10: return .connectRefused(EACCES)
        default: return .other(code)
        }
    }

}

private struct MonitorViewProbe {
    // The CLI's MonitorView lives in the executable target; this mirrors its callout line so
    // the protocol fields it needs are checked here.
    var base = "", candidates: [String] = []
    mutating func render(_ line: String) -> String? {
        guard let e = try? JSONValue.parse(line) else { return nil }
        if e["action"]?.stringValue == "open" {
            base = e["base"]?.stringValue ?? ""
            candidates = (e["candidates"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        let index = e["index"]?.intValue ?? 0
        var parts = [index == 0 ? "[\(base)]" : base]
        for (i, c) in candidates.enumerated() { parts.append(i + 1 == index ? "[\(i + 1) \(c)]" : "\(i + 1) \(c)") }
        return parts.joined(separator: "  ")
    }
}

extension ControlClient {
    func closeForTest() { shutdown(fd, Int32(SHUT_RDWR)) }
}

final class FakeHandler: ControlHandler, @unchecked Sendable {
    var paused = false
    var reloads = 0
    var reloadResult = ControlReloadResult.reloaded(source: "/etc/keyhold/config.toml")
    func status(activity: Bool) -> ControlStatus {
        ControlStatus(paused: paused, configuration: "/etc/keyhold/config.toml", layout: "us", unicodeMethod: "console",
                      locale: "en", virtualKeyboard: "/dev/input/event9",
                      keyboards: [.init(path: "/dev/input/event3", name: "AT Translated Set 2 keyboard", id: "0001:0001", grabbed: true),
                                  .init(path: "/dev/input/event4", name: "Keychron \"K2\"", id: "05ac:024f", grabbed: false)],
                      extra: [("sleep monitor", "on")])
    }
    func reload() -> ControlReloadResult { reloads += 1; return reloadResult }
    func pause() { paused = true }
    func resume() { paused = false }
    /// Whose picks were to be forgotten; `inFront` is the user in front.
    var forgotten: [UInt32] = []
    var inFront: UInt32?
    func forgetPicks(of uid: UInt32) -> Bool { forgotten.append(uid); return uid == inFront }
    /// Whose companions were to read their settings again.
    var reloadedSettings: [UInt32] = []
    func reloadSettings(of uid: UInt32) -> Int { reloadedSettings.append(uid); return 1 }
    /// Whose sessions were asked about; only `inFront`'s says more than that it is not in front.
    var sessionsAsked: [UInt32] = []
    func session(of uid: UInt32) -> ControlSessionInfo {
        sessionsAsked.append(uid)
        guard uid == inFront else { return ControlSessionInfo(inFront: false, paused: paused) }
        return ControlSessionInfo(inFront: true, paused: paused, unicodeMethod: "ibus (the session's input method)",
                                  application: "org.gnome.TextEditor", settings: "the system's")
    }
}

/// An engine on the loop thread typing a script with callouts, in chunks, with an observer;
/// `baseline` is the same script through an engine without one.
final class TypingRig: @unchecked Sendable {
    let loop: LoopThread
    let engine: KeyholdEngine
    let recorder = KeyEventRecorder()
    let events: [KeyEvent]
    let end: Timestamp
    private var next = 0
    private(set) var baseline: [String] = []
    private(set) var output: [String] = []

    init(loop: LoopThread, observer: EngineObserver, repetitions: Int = 50) throws {
        self.loop = loop
        // words with accents picked by number and by arrows, type-through, plain typing
        let word = "d:h u:h d:e t:600 u:e t:40 d:2 t:30 u:2 d:l u:l d:o t:650 u:o d:right u:right d:right u:right d:enter u:enter "
            + "d:space u:space d:a t:700 u:a d:esc u:esc d:leftshift d:u t:620 u:u d:3 u:3 u:leftshift d:t u:t t:250 "
        let script = try SimulationScript(String(repeating: word, count: repetitions))
        (events, end) = script.events(startingAt: .milliseconds(1000))
        let reference = KeyEventRecorder()
        let plain = KeyholdEngine(configuration: KeyholdConfiguration(), output: reference, layout: USLayout())
        for e in events { plain.handle(e) }
        plain.advance(to: end)
        baseline = reference.events
        engine = KeyholdEngine(configuration: KeyholdConfiguration(), output: recorder, layout: USLayout())
        engine.addObserver(observer)
    }

    /// Feeds the next 200 events on the loop thread; false when all are fed.
    @discardableResult
    func typeChunk() -> Bool {
        loop.sync {
            let stop = min(self.next + 200, self.events.count)
            while self.next < stop { self.engine.handle(self.events[self.next]); self.next += 1 }
            return self.next < self.events.count
        }
    }

    func finish() {
        while typeChunk() {}
        output = loop.sync {
            self.engine.advance(to: self.end)
            return self.recorder.events
        }
    }
}

/// Times every publish and keeps the lines each kind of monitor should receive.
final class TimingObserver: EngineObserver, @unchecked Sendable {
    let server: ControlServer
    var durations: [Double] = []
    var contentBytes: [UInt8] = []
    private var w = JSONWriter()
    init(server: ControlServer) { self.server = server; durations.reserveCapacity(200_000) }
    func record(_ entry: TraceEntry) {
        let t0 = DispatchTime.now().uptimeNanoseconds
        server.monitor.publish(entry)
        durations.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        MonitorEvent.encode(entry, into: &w)
        contentBytes += w.bytes
    }
}

/// Reads many sockets on one thread (poll) and keeps every byte per socket.
final class StreamCollector: @unchecked Sendable {
    private let fds: [Int32]
    private var buffers: [[UInt8]]
    private let lock = NSLock()
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(fds: [Int32]) { self.fds = fds; buffers = Array(repeating: [], count: fds.count) }

    func start() {
        Thread { [self] in
            var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                lock.lock(); let stop = stopped; lock.unlock()
                if stop { break }
                guard poll(&pfds, nfds_t(pfds.count), 50) > 0 else { continue }
                for i in pfds.indices where pfds[i].revents != 0 {
                    let n = read(pfds[i].fd, &chunk, chunk.count)
                    if n > 0 {
                        lock.lock(); buffers[i] += chunk[0..<n]; lock.unlock()
                    } else {
                        pfds[i].fd = -1   // EOF or error: poll ignores negative fds
                    }
                }
            }
            done.signal()
        }.start()
    }

    func stop() { lock.lock(); stopped = true; lock.unlock(); done.wait() }
    func count(_ i: Int) -> Int { lock.lock(); defer { lock.unlock() }; return buffers[i].count }
    func bytes(_ i: Int) -> [UInt8] { lock.lock(); defer { lock.unlock() }; return buffers[i] }
}
