import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// `DeviceManager` driven by exact fakes: scripted devices whose key state follows the events
/// read (as libevdev's does), a virtual clock, a hotplug source and a watcher the test fires by
/// hand. No input device, no uinput, no event loop needed.
final class DeviceManagerTests: XCTestCase {
    private let shift: UInt16 = 42, a: UInt16 = 30, b: UInt16 = 48, c: UInt16 = 46, enter: UInt16 = 28

    private var clock: VirtualClock!
    private var source: FakeDeviceSource!
    private var watcher: FakeWatcher!
    private var hotplug: FakeHotplug!
    private var recorder: Recorder!
    private var manager: DeviceManager!

    override func setUp() {
        clock = VirtualClock(at: 1_000_000)
        source = FakeDeviceSource()
        watcher = FakeWatcher()
        hotplug = FakeHotplug()
        recorder = Recorder()
    }

    private func start(ownNode: String? = nil, settings: KeyholdConfiguration.DeviceSettings = .init()) {
        manager = DeviceManager(source: source, watcher: watcher, clock: clock, settings: settings, ownNode: ownNode)
        manager.delegate = recorder
        manager.start(hotplug: hotplug)
    }

    private func at(_ us: Int64) -> Timestamp { Timestamp(microseconds: us) }
    /// The clock reaches `us` and the manager is told, as the daemon's timer does.
    private func passTime(to us: Int64) {
        clock.time = at(us)
        manager.advance(to: clock.time)
    }

    // MARK: - Grabbing

    func testGrabsAKeyboardAndPassesOnItsKeys() {
        let kb = source.add("/dev/input/event3")
        start()
        XCTAssertTrue(kb.grabbed)
        XCTAssertEqual(manager.grabbedCount, 1)
        kb.queue(.key(code: a, value: 1, time: at(1_000_100)), .frameEnd, .key(code: a, value: 2, time: at(1_000_200)),
                 .key(code: a, value: 0, time: at(1_000_300)))
        watcher.fire(kb.fd)
        XCTAssertEqual(recorder.log, ["30 down @1000100", "30 repeat @1000200", "30 up @1000300"])
    }

    func testWaitsForEveryKeyToBeUpBeforeGrabbing() {
        // Enter, pressed to start the daemon, is still down when the keyboard is opened.
        let kb = source.add("/dev/input/event3", holding: [enter])
        start()
        XCTAssertFalse(kb.grabbed)
        XCTAssertEqual(manager.grabbedCount, 0)
        kb.queue(.key(code: enter, value: 0, time: at(1_000_050)))
        clock.time = at(1_000_060)
        watcher.fire(kb.fd)
        XCTAssertTrue(kb.grabbed)
        XCTAssertEqual(recorder.log, [], "the release of a key the desktop saw go down is the desktop's, not Keyhold's")
        kb.queue(.key(code: a, value: 1, time: at(1_000_070)))
        watcher.fire(kb.fd)
        XCTAssertEqual(recorder.log, ["30 down @1000070"])
    }

    func testPressInsideTheGrabWindowGivesTheGrabUpAndHandsItsReleaseBack() {
        let kb = source.add("/dev/input/event3")
        start()   // grabbed at 1_000_000
        XCTAssertEqual(kb.grabCalls, 1)
        // Queued before the grab (the desktop saw it go down), released while still grabbed.
        kb.queue(.key(code: a, value: 1, time: at(999_990)), .key(code: a, value: 0, time: at(1_000_005)))
        clock.time = at(1_000_010)
        watcher.fire(kb.fd)
        XCTAssertEqual(kb.injected, [a], "the desktop must see the key go up")
        XCTAssertEqual(recorder.log, [], "neither half reaches the engine")
        XCTAssertEqual(kb.grabCalls, 2, "grabbed again once every key is up")
        XCTAssertTrue(kb.grabbed)
        // From the new grab on, keys are Keyhold's.
        kb.queue(.key(code: b, value: 1, time: at(1_000_020)))
        watcher.fire(kb.fd)
        XCTAssertEqual(recorder.log, ["48 down @1000020"])
    }

    func testAGrabRefusedClosesTheDevice() {
        let kb = source.add("/dev/input/event3")
        kb.grabResult = -EBUSY
        start()
        XCTAssertFalse(kb.grabbed)
        XCTAssertEqual(manager.summaries, [])
        XCTAssertEqual(watcher.watched, [hotplug.fd], "only the hotplug source is still watched")
    }

    func testNeverOpensItsOwnVirtualKeyboardOrNonKeyboards() {
        source.add("/dev/input/event9")
        let mouse = source.add("/dev/input/event4", lettersAndSpace: false)
        start(ownNode: "/dev/input/event9")
        XCTAssertFalse(source.opened.contains("/dev/input/event9"))
        XCTAssertFalse(mouse.grabbed)
        XCTAssertEqual(manager.summaries, [])
    }

    func testLEDsAreMirroredOnEveryGrabbedKeyboard() {
        let kb1 = source.add("/dev/input/event3"), kb2 = source.add("/dev/input/event5", holding: [a])
        start()
        manager.leds = LEDState(capsLock: true)
        XCTAssertEqual(kb1.leds.last, LEDState(capsLock: true))
        XCTAssertEqual(kb2.leds, [], "not grabbed yet")
        kb2.queue(.key(code: a, value: 0, time: at(1_000_100)))
        watcher.fire(kb2.fd)
        XCTAssertEqual(kb2.leds.last, LEDState(capsLock: true), "a keyboard grabbed later shows the LEDs too")
    }

    // MARK: - Resync

    func testAReleaseLostToSynDroppedComesFromTheResync() {
        let kb = source.add("/dev/input/event3")
        start()
        kb.queue(.key(code: a, value: 1, time: at(1_000_100)))
        watcher.fire(kb.fd)
        // The buffer overflowed and the release was lost: the kernel's key state says A is up.
        clock.time = at(1_000_900)
        kb.held = []
        kb.queue(.dropped, .resynced)
        watcher.fire(kb.fd)
        XCTAssertEqual(recorder.log, ["30 down @1000100", "30 up @1000900"])
        XCTAssertEqual(manager.keysHeld, [])
    }

    func testEveryDropReachesTheLogEvenWhenNoLaterOneComes() {
        let kb = source.add("/dev/input/event3")
        start()
        let first = loggedLines {
            clock.time = at(2_000_000)
            kb.queue(.dropped, .resynced)
            watcher.fire(kb.fd)
            // Two more within 10 s: counted, not logged yet.
            clock.time = at(3_000_000)
            kb.queue(.dropped, .resynced, .dropped, .resynced)
            watcher.fire(kb.fd)
        }
        XCTAssertEqual(first.filter { $0.contains("SYN_DROPPED") },
                       ["<4>keyhold: /dev/input/event3: the kernel dropped events (SYN_DROPPED, 1 time(s)); resyncing"])
        XCTAssertEqual(manager.nextDeadline, at(12_000_000), "the count is due 10 s after the line before")
        // No drop follows: the count still reaches the log when its 10 s are up.
        let later = loggedLines {
            passTime(to: 11_999_999)
            passTime(to: 12_000_000)
        }
        XCTAssertEqual(later, ["<4>keyhold: /dev/input/event3: the kernel dropped events (SYN_DROPPED, 2 time(s) in the last 10 s); resynced"])
        XCTAssertNil(manager.nextDeadline)
        // A count still open when the keyboard goes is logged with it.
        let atClose = loggedLines {
            clock.time = at(13_000_000)
            kb.queue(.dropped, .resynced)
            watcher.fire(kb.fd)
            manager.hotplugged(.removed("/dev/input/event3"))
        }
        XCTAssertEqual(atClose.first, "<4>keyhold: /dev/input/event3: the kernel dropped events (SYN_DROPPED, 1 time(s) in the last 10 s); resynced")
    }

    func testResyncMakesHeldKeysMatchTheDevice() {
        let kb = source.add("/dev/input/event3")
        start()
        kb.queue(.key(code: a, value: 1, time: at(1_000_100)), .key(code: b, value: 1, time: at(1_000_110)))
        watcher.fire(kb.fd)
        // Nothing synthesized, but the device's state says A is up and C is down.
        clock.time = at(1_000_500)
        kb.held = [b, c]
        kb.queue(.dropped, .resynced)
        watcher.fire(kb.fd)
        XCTAssertEqual(recorder.log.suffix(2), ["30 up @1000500", "46 down @1000500"])
        // After resume from sleep the same reconciling runs on every keyboard.
        kb.held = []
        clock.time = at(1_000_800)
        manager.resyncAll()
        XCTAssertEqual(recorder.log.suffix(2), ["46 up @1000800", "48 up @1000800"])
        XCTAssertEqual(manager.keysHeld, [])
    }

    /// After resume, a tap still queued is read before the state is asked (which would flush it).
    func testResyncAfterResumeReadsWhatIsQueuedFirst() {
        let kb = source.add("/dev/input/event3")
        start()
        clock.time = at(1_000_100)
        kb.queue(.key(code: c, value: 1, time: at(1_000_050)), .key(code: c, value: 0, time: at(1_000_060)))
        manager.resyncAll()
        XCTAssertEqual(recorder.log.suffix(2), ["46 down @1000050", "46 up @1000060"])
        XCTAssertEqual(manager.keysHeld, [])
    }

    // MARK: - Several keyboards

    func testTwoKeyboardsHoldingTheSameModifierMakeOneDownAndOneUp() {
        let kb1 = source.add("/dev/input/event3"), kb2 = source.add("/dev/input/event5")
        start()
        kb1.queue(.key(code: shift, value: 1, time: at(1_000_100)))
        watcher.fire(kb1.fd)
        kb2.queue(.key(code: shift, value: 1, time: at(1_000_200)), .key(code: shift, value: 2, time: at(1_000_300)))
        watcher.fire(kb2.fd)
        kb1.queue(.key(code: shift, value: 0, time: at(1_000_400)))
        watcher.fire(kb1.fd)
        XCTAssertEqual(manager.keysHeld, [KeyCode(shift)], "still held on the second keyboard")
        kb2.queue(.key(code: shift, value: 0, time: at(1_000_500)))
        watcher.fire(kb2.fd)
        XCTAssertEqual(recorder.log, ["42 down @1000100", "42 repeat @1000300", "42 up @1000500"])
    }

    /// A press the device repeats (as a resync can) is one press: one release lets the key go.
    func testASecondPressOfAKeyAlreadyDownIsNotCountedTwice() {
        let kb = source.add("/dev/input/event3")
        start()
        kb.queue(.key(code: a, value: 1, time: at(1_000_100)), .key(code: a, value: 1, time: at(1_000_200)),
                 .key(code: a, value: 0, time: at(1_000_300)))
        watcher.fire(kb.fd)
        XCTAssertEqual(manager.keysHeld, [])
        XCTAssertEqual(recorder.log, ["30 down @1000100", "30 up @1000300"])
    }

    // MARK: - Seats and the panic escape (docs/SECURITY.md)

    /// Keyhold types into seat0's session: a keyboard of another seat is not grabbed (its keys
    /// would reach seat0's session, and its panic chord stop the daemon for everyone), and one
    /// moved to another seat while grabbed (`loginctl attach`: udev says the node changed) is let
    /// go, its held keys released.
    func testAKeyboardOfAnotherSeatIsLeftToThatSeat() {
        let seat0 = source.add("/dev/input/event3"), other = source.add("/dev/input/event4")
        source.seats["/dev/input/event4"] = "seat1"
        start()
        XCTAssertTrue(seat0.grabbed)
        XCTAssertFalse(other.grabbed, "seat1's keyboard is seat1's")
        XCTAssertEqual(manager.grabbedCount, 1)
        seat0.queue(.key(code: a, value: 1, time: at(1_000_100)))
        watcher.fire(seat0.fd)
        source.seats["/dev/input/event3"] = "seat1"
        clock.time = at(1_000_200)
        hotplug.fire(.added("/dev/input/event3"), watcher: watcher)
        XCTAssertFalse(seat0.grabbed, "moved to seat1: let go")
        XCTAssertEqual(recorder.log.last, "released [30] @1000200")
        XCTAssertEqual(manager.grabbedCount, 0)
    }

    /// Backspace, Escape and Enter end the daemon when one keyboard holds them, and it has been
    /// grabbed for a moment: not three keys on three devices, not a device plugged in a moment
    /// ago (anything can say it is a keyboard).
    func testThePanicChordCountsOnOneKeyboardThatHasBeenThere() {
        let backspace: UInt16 = 14, esc: UInt16 = 1
        let kb1 = source.add("/dev/input/event3"), kb2 = source.add("/dev/input/event4")
        start()   // grabbed at 1 s
        passTime(to: 5_000_000)
        kb1.queue(.key(code: backspace, value: 1, time: at(5_000_000)), .key(code: esc, value: 1, time: at(5_000_001)))
        watcher.fire(kb1.fd)
        kb2.queue(.key(code: enter, value: 1, time: at(5_000_002)))
        watcher.fire(kb2.fd)
        XCTAssertFalse(manager.panicChordIsHeldOnOneKeyboard(), "the three keys, on two keyboards")
        kb1.queue(.key(code: enter, value: 1, time: at(5_000_003)))
        watcher.fire(kb1.fd)
        XCTAssertTrue(manager.panicChordIsHeldOnOneKeyboard(), "on one keyboard grabbed 4 s ago")
        // A keyboard plugged in now: its chord counts once it has been there 3 s.
        let late = source.add("/dev/input/event6", present: false)
        hotplug.fire(.added("/dev/input/event6"), watcher: watcher)
        for (i, code) in [backspace, esc, enter].enumerated() { late.queue(.key(code: code, value: 1, time: at(5_000_010 + Int64(i)))) }
        kb1.queue(.key(code: enter, value: 0, time: at(5_000_004)))
        watcher.fire(kb1.fd)
        watcher.fire(late.fd)
        XCTAssertFalse(manager.panicChordIsHeldOnOneKeyboard(), "plugged in a moment ago")
        passTime(to: 8_000_000)
        XCTAssertTrue(manager.panicChordIsHeldOnOneKeyboard())
    }

    func testUnpluggingMidHoldReleasesWhatOnlyThatKeyboardHeld() {
        let kb1 = source.add("/dev/input/event3"), kb2 = source.add("/dev/input/event5")
        start()
        kb1.queue(.key(code: shift, value: 1, time: at(1_000_100)), .key(code: a, value: 1, time: at(1_000_110)))
        watcher.fire(kb1.fd)
        kb2.queue(.key(code: shift, value: 1, time: at(1_000_120)))
        watcher.fire(kb2.fd)
        clock.time = at(1_000_200)
        hotplug.fire(.removed("/dev/input/event3"), watcher: watcher)
        XCTAssertEqual(recorder.log.last, "released [30] @1000200", "Shift stays down: the other keyboard holds it")
        XCTAssertFalse(kb1.grabbed)
        XCTAssertFalse(watcher.watched.contains(kb1.fd))
        // The second one vanishes without a hotplug event: its read says ENODEV.
        kb2.end = .gone
        clock.time = at(1_000_300)
        watcher.fire(kb2.fd)
        XCTAssertEqual(recorder.log.last, "released [42] @1000300")
        XCTAssertEqual(manager.grabbedCount, 0)
        // Plugged in again: grabbed again.
        kb2.end = .drained
        kb2.held = []
        hotplug.fire(.added("/dev/input/event5"), watcher: watcher)
        XCTAssertTrue(kb2.grabbed)
        XCTAssertEqual(manager.grabbedCount, 1)
    }

    // MARK: - Reload

    func testReloadKeepsKeysHeldOnKeyboardsThatStayAndReleasesTheRest() {
        let kb = source.add("/dev/input/event3", name: "Desk Keyboard")
        start()
        kb.queue(.key(code: shift, value: 1, time: at(1_000_100)))
        watcher.fire(kb.fd)
        manager.apply(KeyholdConfiguration.DeviceSettings())
        XCTAssertTrue(kb.grabbed)
        XCTAssertEqual(manager.keysHeld, [KeyCode(shift)])
        XCTAssertEqual(recorder.log, ["42 down @1000100"])
        var excluding = KeyholdConfiguration.DeviceSettings()
        excluding.exclude = [DevicePattern("Desk*")]
        clock.time = at(1_000_400)
        manager.apply(excluding)
        XCTAssertFalse(kb.grabbed)
        XCTAssertEqual(recorder.log.last, "released [42] @1000400")
        XCTAssertEqual(manager.summaries, [])
        XCTAssertEqual(source.opened.filter { $0 == "/dev/input/event3" }.count, 2, "opened again to ask, then left alone")
    }

    // MARK: - Opening

    func testANodeNotReadableYetIsRetriedOnTheClock() {
        source.failures["/dev/input/event7"] = [EACCES, EACCES]
        source.add("/dev/input/event7", present: false)
        start()
        hotplug.fire(.added("/dev/input/event7"), watcher: watcher)
        XCTAssertEqual(manager.nextDeadline, at(1_100_000), "retried 100 ms later")
        passTime(to: 1_050_000)
        XCTAssertEqual(source.opened.count, 1)
        passTime(to: 1_100_000)
        XCTAssertEqual(source.opened.count, 2)
        XCTAssertEqual(manager.nextDeadline, at(1_200_000))
        passTime(to: 1_150_000)
        XCTAssertEqual(source.opened.count, 2)
        passTime(to: 1_200_000)
        XCTAssertEqual(source.opened.count, 3)
        XCTAssertNil(manager.nextDeadline)
        XCTAssertEqual(manager.grabbedCount, 1)
    }

    func testANodeUdevSaysIsNoKeyboardIsNotRetried() {
        source.failures["/dev/input/event8"] = [EACCES]
        source.udevKeyboard["/dev/input/event8"] = false
        start()
        hotplug.fire(.added("/dev/input/event8"), watcher: watcher)
        XCTAssertNil(manager.nextDeadline)
        XCTAssertEqual(source.opened, ["/dev/input/event8"])
    }

    func testStopUngrabsEverythingAndDropsLaterEvents() {
        let kb = source.add("/dev/input/event3")
        start()
        kb.queue(.key(code: a, value: 1, time: at(1_000_100)))
        manager.freeze()
        watcher.fire(kb.fd)
        XCTAssertEqual(recorder.log, [])
        manager.stop()
        XCTAssertFalse(kb.grabbed)
        XCTAssertEqual(watcher.watched, [])
    }
}

// MARK: - Fakes

final class VirtualClock: TimeSource {
    var time: Timestamp
    init(at us: Int64) { time = Timestamp(microseconds: us) }
    func now() -> Timestamp { time }
}

/// A device whose key state is the kernel's: it changes as the device sends (`queue`), not as
/// events are read, and asking it (EVIOCGKEY) empties the queue of the key events it counts.
final class FakeKeyboard: KeyboardDevice {
    let path: String, name: String, fd: Int32
    let lettersAndSpace: Bool
    var held: Set<UInt16>
    var end = DeviceReadEnd.drained
    var grabResult: Int32 = 0
    private(set) var grabbed = false, grabCalls = 0
    private(set) var injected: [UInt16] = []
    private(set) var leds: [LEDState] = []
    private var pending: [DeviceEvent] = []

    init(path: String, name: String, fd: Int32, held: Set<UInt16>, lettersAndSpace: Bool) {
        self.path = path; self.name = name; self.fd = fd; self.held = held; self.lettersAndSpace = lettersAndSpace
    }

    var identity: DeviceIdentity {
        DeviceIdentity(path: path, name: name, vendor: 1, product: 2, bustype: 3, phys: "", hasLettersAndSpace: lettersAndSpace,
                       hasPointerAxes: false)
    }
    var keysHeld: [UInt16] {
        pending.removeAll { if case .key = $0 { return true } else { return false } }
        return held.sorted()
    }
    var anyKeyHeld: Bool { !keysHeld.isEmpty }
    func useMonotonicClock() -> Bool { true }
    func grab() -> Int32 {
        grabCalls += 1
        if grabResult == 0 { grabbed = true }
        return grabResult
    }
    func ungrab() { grabbed = false }
    func setLEDs(_ leds: LEDState) { self.leds.append(leds) }
    func injectRelease(_ code: UInt16) -> Bool {
        guard !grabbed else { return false }
        injected.append(code)
        return true
    }

    func queue(_ events: DeviceEvent...) {
        for case .key(let code, let value, _) in events {
            if value == 1 { held.insert(code) } else if value == 0 { held.remove(code) }
        }
        pending += events
    }

    func readAvailable(_ body: (DeviceEvent) -> Void) -> DeviceReadEnd {
        while !pending.isEmpty { body(pending.removeFirst()) }
        return end
    }
}

final class FakeDeviceSource: DeviceSource {
    private(set) var devices: [String: FakeKeyboard] = [:]
    private var present: [String] = []
    var failures: [String: [Int32]] = [:]
    var udevKeyboard: [String: Bool] = [:]
    private(set) var opened: [String] = []
    private var nextFD: Int32 = 100

    @discardableResult
    func add(_ path: String, name: String = "Test Keyboard", holding: Set<UInt16> = [], lettersAndSpace: Bool = true,
             present: Bool = true) -> FakeKeyboard {
        nextFD += 1
        let device = FakeKeyboard(path: path, name: name, fd: nextFD, held: holding, lettersAndSpace: lettersAndSpace)
        devices[path] = device
        if present { self.present.append(path) }
        return device
    }

    func eventNodes() -> [String] { present.sorted() }

    func open(_ path: String) throws(DeviceOpenError) -> any KeyboardDevice {
        opened.append(path)
        if var errors = failures[path], !errors.isEmpty {
            let code = errors.removeFirst()
            failures[path] = errors
            throw .open(code)
        }
        guard let device = devices[path] else { throw .open(ENOENT) }
        return device
    }

    func isKeyboard(_ path: String) -> Bool? { udevKeyboard[path] }
    /// ID_SEAT as udev would say it (`loginctl attach` sets it); none: seat0.
    var seats: [String: String] = [:]
    func seat(_ path: String) -> String? { seats[path] }
}

final class FakeHotplug: HotplugSource {
    let fd: Int32 = 50
    var pending: [HotplugChange] = []
    var summary: String { "fake" }
    func changes() -> [HotplugChange] { defer { pending.removeAll() }; return pending }
    func fire(_ change: HotplugChange, watcher: FakeWatcher) {
        pending.append(change)
        watcher.fire(fd)
    }
}

final class FakeWatcher: FileWatcher {
    private var handlers: [EventLoop.Token: (fd: Int32, handler: () -> Void)] = [:]
    private var next: EventLoop.Token = 1
    var watched: [Int32] { handlers.values.map(\.fd).sorted() }

    func watch(_ fd: Int32, handler: @escaping () -> Void) throws(SystemError) -> EventLoop.Token {
        defer { next += 1 }
        handlers[next] = (fd, handler)
        return next
    }
    func unwatch(_ token: EventLoop.Token) { handlers[token] = nil }

    /// Runs the handler of `fd` as the loop does when it is readable.
    func fire(_ fd: Int32) {
        guard let entry = handlers.values.first(where: { $0.fd == fd }) else { return XCTFail("fd \(fd) is not watched") }
        entry.handler()
    }
}

final class Recorder: DeviceManagerDelegate {
    var log: [String] = []
    func deviceManager(_ manager: DeviceManager, key event: KeyEvent) {
        let state: String
        switch event.state {
        case .down: state = "down"
        case .up: state = "up"
        case .autoRepeat: state = "repeat"
        }
        log.append("\(event.code.rawValue) \(state) @\(event.time.microseconds)")
    }
    func deviceManager(_ manager: DeviceManager, released keys: [KeyCode], at time: Timestamp) {
        log.append("released \(keys.map(\.rawValue)) @\(time.microseconds)")
    }
    func deviceManagerGrabsChanged(_ manager: DeviceManager) {}
}
