import Glibc
import KeyholdKit

/// What the device manager tells its owner: the merged key events of every grabbed keyboard,
/// keys let go because their device went away, and how many keyboards are grabbed.
public protocol DeviceManagerDelegate: AnyObject {
    func deviceManager(_ manager: DeviceManager, key event: KeyEvent)
    /// Keys held only on a device that was closed (unplugged, no longer matched, a read error).
    func deviceManager(_ manager: DeviceManager, released keys: [KeyCode], at time: Timestamp)
    func deviceManagerGrabsChanged(_ manager: DeviceManager)
}

/// Opens the keyboards `[devices]` selects, grabs each once no key is held on it, and merges
/// their key events into one stream: one down and one up per key even when two keyboards hold
/// it. Keeps that stream true to the hardware across a press inside the grab window, SYN_DROPPED
/// resyncs, unplugging, hotplug and `[devices]` changes; retries nodes udev has not finished with.
///
/// Everything it touches is behind a seam (`DeviceSource`, `HotplugSource`, `FileWatcher`,
/// `TimeSource`), so unit tests drive it with exact fakes on a host without input devices.
public final class DeviceManager {
    /// Its owner, which must outlive it (the daemon owns its manager). Not weak: an object
    /// referenced weakly gets a side table, and each of its retains and releases then takes the
    /// runtime's slow path, twice for every key event that goes through here.
    public unowned var delegate: DeviceManagerDelegate?
    public var settings: KeyholdConfiguration.DeviceSettings
    /// The virtual keyboard's own node: never opened.
    public var ownNode: String?
    /// The LEDs every grabbed keyboard shows (the virtual keyboard's, mirrored).
    public var leds = LEDState() {
        didSet { if leds != oldValue { for managed in devices.values where managed.grabbedAt != nil { managed.device.setLEDs(leds) } } }
    }

    private let source: DeviceSource
    private let watcher: FileWatcher
    private let clock: TimeSource
    private var hotplug: HotplugSource?
    private var hotplugToken: EventLoop.Token?
    /// Set by `freeze()`: events read from then on are dropped, nothing is opened or grabbed.
    private var stopped = false

    private final class ManagedDevice {
        let device: any KeyboardDevice
        var token: EventLoop.Token = 0
        /// Keys down on this device as passed on (only while grabbed). A bit set: a hashed Set
        /// cost about 185 instructions per key event.
        var keysDown = OutputKeyState()
        /// When the grab started (nil: waiting for every key to be up before grabbing).
        var grabbedAt: Timestamp?
        /// A grab given up because a key went down just before it: events stamped in this window
        /// reached only Keyhold, so their releases must be sent back to everyone else.
        var abandonedGrab: Range<Timestamp>?
        var announcedWaiting = false
        /// SYN_DROPPED warnings are rate-limited: one line, then a count every 10 s at most. A
        /// count still unreported when the 10 s are up is logged then (`advance(to:)`), so a
        /// drop is never left out of the log because no later one came.
        var lastDropLog: Timestamp?
        var dropsSinceLog = 0
        /// When the next line may be logged: 10 s after the last.
        var nextDropLog: Timestamp? { lastDropLog?.adding(microseconds: DeviceManager.dropLogIntervalMilliseconds * 1000) }
        /// Closed: a read its watch still delivers is ignored.
        var closed = false
        init(_ device: any KeyboardDevice) { self.device = device }
    }
    private var devices: [String: ManagedDevice] = [:]
    /// Nodes that appeared but could not be opened yet (udev may still be applying permissions).
    private var pendingOpens: [String: (attempts: Int, due: Timestamp)] = [:]
    /// When the earliest unreported SYN_DROPPED count is due in the log; nil: none waits.
    private var dropLogDue: Timestamp?
    static let dropLogIntervalMilliseconds = 10_000
    static let openRetryMilliseconds = 100, openRetryAttempts = 30
    /// How many grabbed devices hold each key.
    private var heldCount = PerKeyCode<UInt8>(repeating: 0)

    public init(source: DeviceSource = SystemDeviceSource(), watcher: FileWatcher, clock: TimeSource = SystemTimeSource(),
                settings: KeyholdConfiguration.DeviceSettings, ownNode: String? = nil) {
        self.source = source
        self.watcher = watcher
        self.clock = clock
        self.settings = settings
        self.ownNode = ownNode
    }

    /// One row of `keyhold status`.
    public struct Summary: Equatable {
        public var path: String, name: String, id: String, grabbed: Bool
    }

    public var summaries: [Summary] {
        devices.values.sorted { $0.device.path < $1.device.path }.map {
            Summary(path: $0.device.path, name: $0.device.name, id: $0.device.identity.idString, grabbed: $0.grabbedAt != nil)
        }
    }

    public var grabbedCount: Int { devices.values.filter { $0.grabbedAt != nil }.count }

    /// The keys held on grabbed keyboards, as passed on.
    public var keysHeld: [KeyCode] { (1..<KeyCode.count).filter { heldCount[$0] > 0 }.map { KeyCode(UInt16($0)) } }

    /// When a node that could not be opened is tried again or a SYN_DROPPED count is due in the
    /// log; nil: nothing waits.
    public var nextDeadline: Timestamp? {
        // (asked after every batch: an empty dictionary is not mapped)
        guard !pendingOpens.isEmpty else { return dropLogDue }
        return .earliest(dropLogDue, pendingOpens.values.map(\.due).min())
    }

    // MARK: - Starting and stopping

    /// Follows `hotplug` (nil: only nodes present now and at `rescan`) and opens every node present.
    public func start(hotplug: HotplugSource?) {
        if let hotplug {
            do {
                hotplugToken = try watcher.watch(hotplug.fd) { [unowned self, unowned hotplug] in
                    for change in hotplug.changes() { self.hotplugged(change) }
                }
                self.hotplug = hotplug
                Log.info("hotplug: \(hotplug.summary)")
            } catch {
                Log.warning("hotplug disabled: \(error); only keyboards present at start are used")
            }
        }
        rescan(retry: false)
    }

    /// Opens the nodes present that are not open yet (after a `[devices]` change, after resume).
    public func rescan(retry: Bool) {
        for node in source.eventNodes() { open(node, retry: retry) }
    }

    /// `[devices]` changed: lets go of keyboards no longer wanted (releasing what they held),
    /// takes new ones. Keys held on a keyboard that stays stay held.
    public func apply(_ settings: KeyholdConfiguration.DeviceSettings) {
        self.settings = settings
        for (path, managed) in devices where !DevicePolicy.decide(managed.device.identity, settings: settings).grab {
            close(path, why: "no longer matched by [devices]")
        }
        rescan(retry: false)
    }

    /// From now on events are dropped and nothing is opened or grabbed (the daemon is stopping).
    public func freeze() { stopped = true }

    /// Ungrabs and closes everything without passing on releases (the owner releases every key
    /// itself at shutdown); events still queued are dropped.
    public func stop() {
        stopped = true
        if let hotplugToken { watcher.unwatch(hotplugToken) }
        hotplugToken = nil
        hotplug = nil
        for (_, managed) in devices {
            managed.closed = true
            watcher.unwatch(managed.token)
            managed.device.ungrab()
        }
        devices.removeAll()
        pendingOpens.removeAll()
        for i in heldCount.indices { heldCount[i] = 0 }
    }

    /// Brings every grabbed keyboard's keys back in line with what its device state says is held
    /// (after resume from sleep, when events may have been lost without a SYN_DROPPED).
    public func resyncAll() {
        for managed in devices.values.sorted(by: { $0.device.path < $1.device.path }) where managed.grabbedAt != nil {
            // What is queued first: asking the key state empties the kernel's queue of the key
            // events it counts, and a tap still queued would be lost.
            read(managed)
            if !managed.closed && managed.grabbedAt != nil { reconcile(managed) }
        }
    }

    /// Retries the nodes whose retry is due and logs the SYN_DROPPED counts that are.
    public func advance(to now: Timestamp) {
        // (called at every deadline, the engine's too: an empty dictionary is not filtered)
        if !pendingOpens.isEmpty {
            let due = pendingOpens.filter { $0.value.due <= now }.map(\.key).sorted()
            for node in due { open(node, retry: true) }
        }
        if let due = dropLogDue, due <= now { logDueDropCounts(at: now) }
    }

    public func hotplugged(_ change: HotplugChange) {
        switch change {
        case .added(let node) where devices[node] != nil:
            // A change to a node it has (udev: "change"): still seat0's? `loginctl attach` moves it.
            if let seat = source.seat(node), seat != DevicePolicy.seat {
                close(node, why: "moved to \(seat): Keyhold serves \(DevicePolicy.seat)'s keyboards only")
            }
        case .added(let node): open(node, retry: true)
        case .removed(let node):
            pendingOpens[node] = nil
            close(node, why: "removed")
        }
    }

    // MARK: - Opening and grabbing

    /// Opens a node, decides whether to take it, and grabs it once no key is held on it.
    private func open(_ path: String, retry: Bool) {
        guard !stopped, devices[path] == nil, path != ownNode else { pendingOpens[path] = nil; return }
        let device: any KeyboardDevice
        do {
            device = try source.open(path)
        } catch {
            // A node this user may not open that udev says is no keyboard (a mouse, a power
            // button) is none of Keyhold's business: no retry, no warning.
            if [EACCES, EPERM].contains(error.code), source.isKeyboard(path) == false {
                pendingOpens[path] = nil
                Log.debug("not opening \(path): not a keyboard (udev), and not ours to open")
                return
            }
            let transient = [ENOENT, EACCES, EPERM, ENXIO, EBUSY].contains(error.code)
            let attempts = (pendingOpens[path]?.attempts ?? 0) + 1
            if retry && transient && attempts < DeviceManager.openRetryAttempts {
                pendingOpens[path] = (attempts, clock.now() + DeviceManager.openRetryMilliseconds)
            } else {
                pendingOpens[path] = nil
                if error.code != ENOENT && error.code != ENODEV { Log.warning("cannot open \(path): \(error)") }
            }
            return
        }
        pendingOpens[path] = nil
        var identity = device.identity
        identity.seat = source.seat(path) ?? DevicePolicy.seat
        let decision = DevicePolicy.decide(identity, settings: settings)
        guard decision.grab else {
            Log.debug("not grabbing \(path) \"\(device.name)\": \(decision.reason)")
            return
        }
        if !device.useMonotonicClock() { Log.warning("\(path): cannot set CLOCK_MONOTONIC; gesture timing may be off") }
        let managed = ManagedDevice(device)
        do {
            managed.token = try watcher.watch(device.fd) { [unowned self, managed] in self.read(managed) }
        } catch {
            Log.error("cannot watch \(path): \(error)")
            return
        }
        devices[path] = managed
        read(managed)
    }

    private func tryGrab(_ managed: ManagedDevice) {
        let device = managed.device
        guard managed.grabbedAt == nil else { return }
        if device.anyKeyHeld {
            if !managed.announcedWaiting {
                managed.announcedWaiting = true
                Log.info("waiting for every key to be released on \(device.path) \"\(device.name)\" before grabbing it")
            }
            return
        }
        let rc = device.grab()
        // Stamped after the grab: an event from the instant of grabbing counts as seen by the
        // whole system (a spurious release later is harmless; a press seen twice would stick).
        let start = clock.now()
        guard rc == 0 else {
            Log.warning("cannot grab \(device.path) \"\(device.name)\": \(errorString(-rc)) (another program grabs it?)")
            close(device.path, why: nil)
            return
        }
        managed.grabbedAt = start
        managed.abandonedGrab = nil
        managed.announcedWaiting = false
        device.setLEDs(leds)
        Log.info("grabbed \(device.path) \"\(device.name)\" (\(device.identity.idString))")
        delegate?.deviceManagerGrabsChanged(self)
    }

    // MARK: - Reading

    /// Reads what the device has queued (the loop found its fd readable).
    private func read(_ managed: ManagedDevice) {
        guard !managed.closed else { return }
        let end = managed.device.readAvailable { event in
            guard !stopped else { return }
            switch event {
            case .key(let code, let value, let time):
                guard let grabbedAt = managed.grabbedAt else {
                    // Read after giving a grab up: a release that only Keyhold saw goes back to
                    // the other readers, so the key they saw go down goes up there too.
                    if value == 0, let window = managed.abandonedGrab, window.contains(time) { managed.device.injectRelease(code) }
                    return
                }
                if time < grabbedAt {
                    // Queued before the grab: the rest of the system saw it too. A key that went
                    // down then must also go up there: let go and grab again once all are up.
                    if value == 1 {
                        managed.device.ungrab()
                        managed.grabbedAt = nil
                        managed.abandonedGrab = grabbedAt..<clock.now()
                        Log.info("released the grab of \(managed.device.path): a key went down just before it")
                        delegate?.deviceManagerGrabsChanged(self)
                    }
                    return
                }
                key(managed, code: code, value: value, time: time)
            case .frameEnd:
                break
            case .dropped:
                let now = clock.now()
                managed.dropsSinceLog += 1
                if let due = managed.nextDropLog, now < due { scheduleDropLog(at: due) } else { logDrops(managed, at: now, resyncing: true) }
            case .resynced:
                if managed.grabbedAt != nil { reconcile(managed) }
            }
        }
        switch end {
        case .drained:
            if managed.grabbedAt == nil && !stopped && !managed.closed { tryGrab(managed) }
        case .gone:
            close(managed.device.path, why: "removed")
        case .failed(let code):
            close(managed.device.path, why: "read error: \(errorString(code))")
        }
    }

    /// One warning line with the drops counted since the last (the first: "1 time(s)").
    private func logDrops(_ managed: ManagedDevice, at now: Timestamp, resyncing: Bool) {
        Log.warning("\(managed.device.path): the kernel dropped events (SYN_DROPPED, \(managed.dropsSinceLog) time(s)"
                    + "\(managed.lastDropLog == nil ? "" : " in the last \(Self.dropLogIntervalMilliseconds / 1000) s")); \(resyncing ? "resyncing" : "resynced")")
        managed.lastDropLog = now
        managed.dropsSinceLog = 0
    }

    /// Logs the counts whose 10 s are up; arms the next for the counts still within theirs.
    private func logDueDropCounts(at now: Timestamp) {
        dropLogDue = nil
        for managed in devices.values.sorted(by: { $0.device.path < $1.device.path }) where managed.dropsSinceLog > 0 {
            guard let due = managed.nextDropLog else { continue }
            if due <= now { logDrops(managed, at: now, resyncing: false) } else { scheduleDropLog(at: due) }
        }
    }

    /// A count waits to be logged at `due`: the timer wakes for the earliest.
    private func scheduleDropLog(at due: Timestamp) {
        dropLogDue = .earliest(dropLogDue, due)
    }

    private func key(_ managed: ManagedDevice, code: UInt16, value: Int32, time: Timestamp) {
        let i = Int(code)
        guard i > 0 && i < KeyCode.count else { return }
        let key = KeyCode(code)
        switch value {
        case 1:
            guard !managed.keysDown.isDown(key) else { return }
            managed.keysDown.set(key, down: true)
            heldCount[i] &+= 1
            if heldCount[i] == 1 { delegate?.deviceManager(self, key: KeyEvent(key, .down, at: time)) }
        case 0:
            guard managed.keysDown.isDown(key) else { return }
            managed.keysDown.set(key, down: false)
            heldCount[i] &-= 1
            if heldCount[i] == 0 { delegate?.deviceManager(self, key: KeyEvent(key, .up, at: time)) }
        case 2:
            if managed.keysDown.isDown(key) { delegate?.deviceManager(self, key: KeyEvent(key, .autoRepeat, at: time)) }
        default:
            break
        }
    }

    /// A keyboard grabbed this long may end the daemon with the panic escape: not one plugged in
    /// a moment ago, which could be anything that says it is a keyboard (docs/SECURITY.md).
    public static let panicMinimumGrabbedMilliseconds = 3_000

    /// Whether one keyboard, grabbed for `panicMinimumGrabbedMilliseconds` at least, holds
    /// Backspace, Escape and Enter now: the panic escape counts only so (three keys held on
    /// different devices are not a person at one keyboard).
    public func panicChordIsHeldOnOneKeyboard() -> Bool {
        let since = clock.now().adding(microseconds: -Self.panicMinimumGrabbedMilliseconds * 1000)
        return devices.values.contains { managed in
            guard let grabbedAt = managed.grabbedAt, grabbedAt <= since else { return false }
            return managed.keysDown.isDown(.backspace) && managed.keysDown.isDown(.esc) && managed.keysDown.isDown(.enter)
        }
    }

    /// After a resync, makes the keys passed on match what the device says is held.
    private func reconcile(_ managed: ManagedDevice) {
        let now = clock.now()
        var held = OutputKeyState()
        for code in managed.device.keysHeld { held.set(KeyCode(code), down: true) }
        for down in managed.keysDown.downKeys where !held.isDown(down) { key(managed, code: down.rawValue, value: 0, time: now) }
        for down in held.downKeys where !managed.keysDown.isDown(down) { key(managed, code: down.rawValue, value: 1, time: now) }
    }

    /// Stops using a device; every key only it held is released.
    private func close(_ path: String, why: String?) {
        guard let managed = devices.removeValue(forKey: path) else { return }
        managed.closed = true
        watcher.unwatch(managed.token)
        if managed.dropsSinceLog > 0 { logDrops(managed, at: clock.now(), resyncing: false) }
        var released: [KeyCode] = []
        for down in managed.keysDown.downKeys {
            let i = Int(down.rawValue)
            heldCount[i] &-= 1
            if heldCount[i] == 0 { released.append(down) }
        }
        managed.keysDown = OutputKeyState()
        if !released.isEmpty { delegate?.deviceManager(self, released: released, at: clock.now()) }
        let wasGrabbed = managed.grabbedAt != nil
        managed.device.ungrab()
        if let why {
            Log.info("\(wasGrabbed ? "released" : "closed") \(path) \"\(managed.device.name)\" (\(why))"
                     + (released.isEmpty ? "" : ", \(released.count) held key(s) released"))
        }
        delegate?.deviceManagerGrabsChanged(self)
    }
}
