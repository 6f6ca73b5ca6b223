import Glibc
import KeyholdKit

// The control socket protocol: newline-delimited JSON over a unix stream socket.
//
// Requests (one object per line, at most 4096 bytes):
//   {"cmd":"status"}                  -> {"ok":true,"pid":..,"paused":false,"keyboards":[...],...}
//   {"cmd":"reload"}                  -> {"ok":true,"configuration":"/etc/keyhold/config.toml"}
//                                        or {"ok":false,"error":"file:3: unknown key ..."}
//   {"cmd":"pause"} / {"cmd":"resume"} -> {"ok":true,"paused":true|false}
//   {"cmd":"monitor","content":true}  -> {"ok":true,"monitor":true,"content":true|false}, then
//                                        one event object per line until the client goes away.
//   {"cmd":"companion","backend":"x11"} -> {"ok":true,"companion":true}: the connection becomes
//                                        the session companion's (keyhold-session); then:
//   {"cmd":"keymap","keymap":"xkb_keymap {...}","temporary":[255,254]} -> {"ok":true,"layout":"..."}
//                                        (the desktop's keymap; "temporary": X keycodes holding
//                                        the companion's own characters, not to be typed with)
//   daemon: {"event":"type","id":7,"after":120,"text":"é"}
//   companion: {"cmd":"typed","id":7,"delivered":false} (written to the desktop), then
//              {"cmd":"typed","id":7} (the desktop has delivered it: what follows may go)
//   ("after": type only once the desktop has delivered that many of the virtual keyboard's key
//   transitions since the previous character, or since {"event":"active"}, which the daemon
//   sends when the companion's session comes in front; on Wayland, where nothing can be
//   counted, the companion makes a round trip to the compositor instead)
//   daemon: {"event":"callout","t":..,"action":"open","index":0,"count":7,"base":"e",
//            "candidates":["è",...]}, then "move" (with "index", "shown") and "close": the open
//            callout, for the picker overlay, to the companion of the session in front only
//   companion: {"cmd":"pick","index":3} (a click on candidate 3 of the picker: as if 3 were
//              pressed; 0: the base character) and {"cmd":"dismiss"} (a click elsewhere, a focus
//              change: the callout closes keeping what it shows); no reply to either
// Errors: {"ok":false,"error":"..."}; a line over 4096 bytes (1 MiB for a companion, whose
// keymap is one line) gets the error and the connection is closed. Events carry key names and characters only with "content":true, which is granted
// only to root (SO_PEERCRED) or the user the daemon runs as; everyone else sees gestures,
// action kinds and callout positions, never what was typed.

/// What the daemon lets the control socket do. All calls happen on the event loop's thread.
public protocol ControlHandler: AnyObject {
    func status() -> ControlStatus
    /// Loads the configuration again and applies it only if valid.
    func reload() -> ControlReloadResult
    /// Every key passes through unchanged until `resume()`.
    func pause()
    func resume()
    /// Why `uid` may not be the session companion now; nil: it may.
    func companionRefusal(uid: UInt32) -> String?
    func companionConnected(_ companion: SessionCompanion)
    func companionDisconnected(_ companion: SessionCompanion)
    /// The desktop's keymap (XKB text); returns the layout's name, or throws why it is unusable.
    func companion(_ companion: SessionCompanion, reportedKeymap keymap: String, temporaryKeycodes: [Int]) throws(ControlProtocolError) -> String
    /// `delivered`: false when the companion has written the character to the desktop, true when
    /// the desktop has delivered it.
    func companion(_ companion: SessionCompanion, typed id: UInt64, delivered: Bool)
    /// The companion's picker was clicked on candidate `index` (0: the base character).
    func companion(_ companion: SessionCompanion, picked index: Int)
    /// The companion saw a click elsewhere or a focus change.
    func companionDismissedCallout(_ companion: SessionCompanion)
}

extension ControlHandler {
    public func companionRefusal(uid: UInt32) -> String? { "this daemon takes no session companion" }
    public func companionConnected(_ companion: SessionCompanion) {}
    public func companionDisconnected(_ companion: SessionCompanion) {}
    public func companion(_ companion: SessionCompanion, reportedKeymap keymap: String, temporaryKeycodes: [Int]) throws(ControlProtocolError) -> String {
        throw .malformed("this daemon takes no keymap")
    }
    public func companion(_ companion: SessionCompanion, typed id: UInt64, delivered: Bool) {}
    public func companion(_ companion: SessionCompanion, picked index: Int) {}
    public func companionDismissedCallout(_ companion: SessionCompanion) {}
}

public enum ControlReloadResult: Sendable, Equatable {
    /// Applied; `source` is the file it came from (or "(embedded default)").
    case reloaded(source: String)
    /// Not applied (the running configuration stays); the error names file, line and key.
    case failed(String)
}

/// The daemon's state as `keyhold status` shows it.
public struct ControlStatus: Sendable, Equatable {
    public struct Keyboard: Sendable, Equatable {
        public var path: String
        public var name: String
        /// "vvvv:pppp"
        public var id: String
        public var grabbed: Bool
        public init(path: String, name: String, id: String, grabbed: Bool) {
            self.path = path; self.name = name; self.id = id; self.grabbed = grabbed
        }
    }

    public var paused = false
    /// Where the running configuration came from.
    public var configuration = ""
    public var layout = ""
    public var unicodeMethod = ""
    public var locale = ""
    /// /dev/input/eventN of the virtual keyboard.
    public var virtualKeyboard: String?
    public var keyboards: [Keyboard] = []
    /// Anything else worth showing (`"sleep monitor": "on"`), in order.
    public var extra: [(key: String, value: String)] = []

    public init(paused: Bool = false, configuration: String = "", layout: String = "", unicodeMethod: String = "",
                locale: String = "", virtualKeyboard: String? = nil, keyboards: [Keyboard] = [],
                extra: [(key: String, value: String)] = []) {
        self.paused = paused; self.configuration = configuration; self.layout = layout
        self.unicodeMethod = unicodeMethod; self.locale = locale; self.virtualKeyboard = virtualKeyboard
        self.keyboards = keyboards; self.extra = extra
    }

    public static func == (a: ControlStatus, b: ControlStatus) -> Bool {
        a.paused == b.paused && a.configuration == b.configuration && a.layout == b.layout
            && a.unicodeMethod == b.unicodeMethod && a.locale == b.locale && a.virtualKeyboard == b.virtualKeyboard
            && a.keyboards == b.keyboards && a.extra.map(\.key) == b.extra.map(\.key) && a.extra.map(\.value) == b.extra.map(\.value)
    }

    /// The members of the status reply after `"ok":true`.
    func write(to w: inout JSONWriter) {
        w.key("paused"); w.bool(paused)
        w.key("configuration"); w.string(configuration)
        w.key("layout"); w.string(layout)
        w.key("unicode_method"); w.string(unicodeMethod)
        w.key("locale"); w.string(locale)
        w.key("virtual_keyboard"); if let virtualKeyboard { w.string(virtualKeyboard) } else { w.null() }
        w.key("grabbed"); w.int(keyboards.filter(\.grabbed).count)
        w.key("keyboards")
        w.beginArray()
        for k in keyboards {
            w.beginObject()
            w.key("path"); w.string(k.path)
            w.key("name"); w.string(k.name)
            w.key("id"); w.string(k.id)
            w.key("grabbed"); w.bool(k.grabbed)
            w.endObject()
        }
        w.endArray()
        if !extra.isEmpty {
            w.key("extra")
            w.beginObject()
            for (k, v) in extra { w.key(k); w.string(v) }
            w.endObject()
        }
    }

    /// Reads a status reply back (the client side).
    public init?(reply: JSONValue) {
        guard reply["ok"]?.boolValue == true else { return nil }
        paused = reply["paused"]?.boolValue ?? false
        configuration = reply["configuration"]?.stringValue ?? ""
        layout = reply["layout"]?.stringValue ?? ""
        unicodeMethod = reply["unicode_method"]?.stringValue ?? ""
        locale = reply["locale"]?.stringValue ?? ""
        virtualKeyboard = reply["virtual_keyboard"]?.stringValue
        keyboards = (reply["keyboards"]?.arrayValue ?? []).map {
            Keyboard(path: $0["path"]?.stringValue ?? "", name: $0["name"]?.stringValue ?? "",
                     id: $0["id"]?.stringValue ?? "", grabbed: $0["grabbed"]?.boolValue ?? false)
        }
        if case .object(let o)? = reply["extra"] {
            extra = o.members.map { ($0.key, $0.value.stringValue ?? $0.value.description) }
        }
    }
}

public enum ControlRequest: Equatable, Sendable {
    case status, reload, pause, resume
    case monitor(content: Bool)
    /// The session companion's requests.
    case companion(backend: String)
    case keymap(String, temporaryKeycodes: [Int])
    case typed(id: UInt64, delivered: Bool)
    /// The picker was clicked: candidate `index` (1...n; 0 the base character).
    case pick(index: Int)
    /// The user clicked elsewhere or focus moved: the callout closes, keeping what it shows.
    case dismiss

    public static let commands = ["status", "reload", "pause", "resume", "monitor", "companion", "keymap", "typed", "pick", "dismiss"]

    /// Parses one request line (without its newline).
    public init<C: Collection>(line: C) throws(ControlProtocolError) where C.Element == UInt8 {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch { throw .malformed("malformed request: \(error)") }
        guard case .object = value else { throw .malformed("malformed request: expected a JSON object") }
        guard let cmd = value["cmd"] else { throw .malformed("malformed request: no \"cmd\"") }
        guard let name = cmd.stringValue else { throw .malformed("malformed request: \"cmd\" must be a string") }
        switch name {
        case "status": self = .status
        case "reload": self = .reload
        case "pause": self = .pause
        case "resume": self = .resume
        case "monitor":
            let content = value["content"]
            guard content == nil || content?.boolValue != nil || content == .null else {
                throw .malformed("malformed request: \"content\" must be true or false")
            }
            self = .monitor(content: content?.boolValue ?? false)
        case "companion":
            guard let backend = value["backend"]?.stringValue, !backend.isEmpty, backend.count <= 40 else {
                throw .malformed("malformed request: \"backend\" must be a short string")
            }
            self = .companion(backend: backend)
        case "keymap":
            guard let keymap = value["keymap"]?.stringValue else { throw .malformed("malformed request: \"keymap\" must be a string") }
            let temporary = value["temporary"]?.arrayValue ?? []
            let codes = temporary.compactMap(\.intValue).filter { (8...255).contains($0) }
            guard codes.count == temporary.count, codes.count <= 256 else {
                throw .malformed("malformed request: \"temporary\" must be X keycodes (8 to 255)")
            }
            self = .keymap(keymap, temporaryKeycodes: codes)
        case "typed":
            guard let id = value["id"]?.intValue, id > 0 else { throw .malformed("malformed request: \"id\" must be a positive integer") }
            let delivered = value["delivered"]
            guard delivered == nil || delivered?.boolValue != nil else { throw .malformed("malformed request: \"delivered\" must be true or false") }
            self = .typed(id: UInt64(id), delivered: delivered?.boolValue ?? true)
        case "pick":
            guard let index = value["index"]?.intValue, (0...1000).contains(index) else {
                throw .malformed("malformed request: \"index\" must be a candidate's number (0 to 1000)")
            }
            self = .pick(index: index)
        case "dismiss": self = .dismiss
        default:
            let shown = name.count > 40 ? String(name.prefix(40)) + "..." : name
            throw .unknownCommand("unknown command \"\(shown)\" (commands: \(ControlRequest.commands.joined(separator: ", ")))")
        }
    }

    /// The request line, newline included.
    public var line: String {
        switch self {
        case .status: return "{\"cmd\":\"status\"}\n"
        case .reload: return "{\"cmd\":\"reload\"}\n"
        case .pause: return "{\"cmd\":\"pause\"}\n"
        case .resume: return "{\"cmd\":\"resume\"}\n"
        case .monitor(let content): return "{\"cmd\":\"monitor\",\"content\":\(content)}\n"
        case .companion(let backend):
            var w = JSONWriter()
            w.beginObject()
            w.key("cmd"); w.string("companion")
            w.key("backend"); w.string(backend)
            w.endObject()
            w.newline()
            return String(decoding: w.bytes, as: UTF8.self)
        case .keymap(let keymap, let temporary):
            var w = JSONWriter(capacity: keymap.utf8.count + 64)
            w.beginObject()
            w.key("cmd"); w.string("keymap")
            w.key("keymap"); w.string(keymap)
            w.key("temporary"); w.beginArray(); for code in temporary { w.int(code) }; w.endArray()
            w.endObject()
            w.newline()
            return String(decoding: w.bytes, as: UTF8.self)
        case .typed(let id, let delivered):
            return delivered ? "{\"cmd\":\"typed\",\"id\":\(id)}\n" : "{\"cmd\":\"typed\",\"id\":\(id),\"delivered\":false}\n"
        case .pick(let index): return "{\"cmd\":\"pick\",\"index\":\(index)}\n"
        case .dismiss: return "{\"cmd\":\"dismiss\"}\n"
        }
    }
}

public enum ControlProtocolError: Error, Equatable, CustomStringConvertible {
    case malformed(String), unknownCommand(String)
    public var description: String {
        switch self { case .malformed(let m), .unknownCommand(let m): return m }
    }
}

/// Monitor events: one JSON object per line.
///
///     {"event":"gesture","t":1234.5,"gesture":"longPress","action":"character","key":"e","value":"character:e"}
///     {"event":"callout","t":..,"action":"open","count":7,"base":"e","candidates":["è","é",...]}
///     {"event":"callout","t":..,"action":"move","index":2,"shown":"é"}
///     {"event":"callout","t":..,"action":"close","text":"é"}
///     {"event":"input"|"forwarded"|"output","t":..,"key":"e","state":"down"}      (content only)
///     {"event":"locale","t":..,"locale":"fr"}   {"event":"panic","t":..}
///     {"event":"notice","notice":"paused"|"resumed"|"reloaded"|"sleep"|"wake"|...,"detail":"..."}
///
/// Fields marked content ("key", "value", "base", "candidates", "shown", "text" and the key
/// events) are only sent to clients granted content.
enum MonitorEvent {
    /// Writes the event line for `entry` (with the newline) and returns true, or returns false
    /// when a client without content gets nothing for it.
    static func encode(_ entry: TraceEntry, content: Bool, into w: inout JSONWriter) -> Bool {
        w.reset()
        switch entry {
        case .input(let e):
            guard content else { return false }
            keyEvent(&w, "input", e.code, e.state, e.time)
        case .forwarded(let key, let state, let t):
            guard content else { return false }
            keyEvent(&w, "forwarded", key, state, t)
        case .output(let key, let state, let t):
            guard content else { return false }
            keyEvent(&w, "output", key, state, t)
        case .gesture(let key, let gesture, let action, let t):
            begin(&w, "gesture", t)
            w.key("gesture"); w.string(gesture.rawValue)
            w.key("action"); w.string(kind(of: action))
            if content {
                w.key("key"); w.string(key.name)
                w.key("value"); w.string(action.configString)
            }
        case .callout(let event, let t):
            begin(&w, "callout", t)
            switch event {
            case .opened(let base, let candidates):
                w.key("action"); w.rawString("open")
                w.key("index"); w.int(0)
                if content {
                    // The count is content too: it differs per letter, so it tells which was held.
                    w.key("count"); w.int(candidates.count)
                    w.key("base"); w.string(base)
                    w.key("candidates")
                    w.beginArray()
                    for c in candidates { w.string(c) }
                    w.endArray()
                }
            case .moved(let index, let shown):
                w.key("action"); w.rawString("move")
                w.key("index"); w.int(index)
                if content { w.key("shown"); w.string(shown) }
            case .closed(let text):
                w.key("action"); w.rawString("close")
                if content { w.key("text"); w.string(text) }
            }
        case .locale(let id, let t):
            begin(&w, "locale", t)
            w.key("locale"); w.string(id)
        case .panic(let t):
            begin(&w, "panic", t)
        }
        w.endObject()
        w.newline()
        return true
    }

    static func notice(_ name: String, detail: String?, into w: inout JSONWriter) {
        w.reset()
        w.beginObject()
        w.key("event"); w.string("notice")
        w.key("notice"); w.string(name)
        if let detail { w.key("detail"); w.string(detail) }
        w.endObject()
        w.newline()
    }

    private static func begin(_ w: inout JSONWriter, _ event: StaticString, _ t: Timestamp) {
        w.beginObject()
        w.key("event"); w.rawString(event)
        w.key("t"); w.milliseconds(t.microseconds)
    }

    private static func keyEvent(_ w: inout JSONWriter, _ event: StaticString, _ key: KeyCode, _ state: KeyState, _ t: Timestamp) {
        begin(&w, event, t)
        w.key("key"); w.string(key.name)
        w.key("state")
        switch state {
        case .down: w.rawString("down")
        case .up: w.rawString("up")
        case .autoRepeat: w.rawString("repeat")
        }
    }

    /// The action without its payload: "character", "backspace", "key", "keyboardType", ...
    static func kind(of action: KeyboardAction) -> String {
        let s = action.configString
        if let colon = s.firstIndex(of: ":") { return String(s[..<colon]) }
        return s
    }
}

/// Where the control socket lives: `$KEYHOLD_CONTROL`, else `/run/keyhold/control`.
public enum ControlSocketPath {
    public static let system = "/run/keyhold/control"

    /// The path a daemon listens on.
    public static func forDaemon(environment env: [String: String] = currentEnvironment()) -> String {
        if let p = env["KEYHOLD_CONTROL"], !p.isEmpty { return p }
        return system
    }

    /// The path a client connects to (the same).
    public static func forClient(environment env: [String: String] = currentEnvironment()) -> String {
        forDaemon(environment: env)
    }

    public static func currentEnvironment() -> [String: String] {
        getenv("KEYHOLD_CONTROL").map { ["KEYHOLD_CONTROL": String(cString: $0)] } ?? [:]
    }
}
