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
//                                        the session companion's (keyhold-session; an optional
//                                        "note" says what it cannot do there and why, which
//                                        `keyhold status` shows; "session": the logind session it
//                                        serves, for a companion outside one, checked to be its
//                                        user's); then:
//   {"cmd":"keymap","keymap":"xkb_keymap {...}","temporary":[255,254]} -> {"ok":true,"layout":"..."}
//                                        (the desktop's keymap; "temporary": X keycodes holding
//                                        the companion's own characters, not to be typed with)
//   daemon: {"event":"type","id":7,"after":120,"written_at":81234567890,"text":"é"}
//   companion: {"cmd":"typed","id":7,"delivered":false} (written to the desktop), then
//              {"cmd":"typed","id":7} (the desktop has delivered it: what follows may go), or
//              {"cmd":"untyped","id":7} (it cannot: no program takes text from it now; the daemon
//              types the character with its own method, in its place); before either, any number
//              of {"cmd":"waiting","id":7} (the desktop is busy and has not delivered the keys
//              before it yet: the daemon waits on, acknowledgementLimitMicroseconds at most)
//   ("after": type only once the desktop has delivered that many of the virtual keyboard's key
//   transitions since the previous character, or since {"event":"active"}, which the daemon
//   sends when the companion's session comes in front; on Wayland, where nothing can be
//   counted, the companion makes a round trip to the compositor instead; "written_at", with
//   "after" above 0: when the daemon wrote the last of those keys, CLOCK_MONOTONIC µs)
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

public enum ControlRequest: Equatable, Sendable {
    case status, reload, pause, resume
    case monitor(content: Bool)
    /// The session companion's requests. `session`: the logind session it serves, where the
    /// daemon cannot tell from its process (a user service's).
    case companion(backend: String, note: String? = nil, session: String? = nil)
    case keymap(String, temporaryKeycodes: [Int])
    case typed(id: UInt64, delivered: Bool)
    /// The companion cannot type character `id` (IBus: no program's text input has the focus).
    case untyped(id: UInt64)
    /// The companion is alive and still waits for a busy desktop to deliver the keys before `id`.
    case waiting(id: UInt64)
    /// The picker was clicked: candidate `index` (1...n; 0 the base character).
    case pick(index: Int)
    /// The user clicked elsewhere or focus moved: the callout closes, keeping what it shows.
    case dismiss
    /// Another application (or text field) has the keyboard focus.
    case focus(ApplicationFocus)

    public static let commands = ["status", "reload", "pause", "resume", "monitor", "companion", "keymap", "typed", "untyped", "waiting", "pick", "dismiss", "focus"]

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
            guard let backend = value["backend"]?.stringValue, !backend.isEmpty, backend.count <= 40, backend.isPrintable else {
                throw .malformed("malformed request: \"backend\" must be a short string")
            }
            let note = value["note"]
            guard note == nil || note == .null || (note?.stringValue.map { $0.count <= 400 && $0.isPrintable } ?? false) else {
                throw .malformed("malformed request: \"note\" must be a string of at most 400 printable characters")
            }
            let session = value["session"]
            guard session == nil || session == .null
                    || (session?.stringValue.map { !$0.isEmpty && $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } } ?? false) else {
                throw .malformed("malformed request: \"session\" must be a logind session id")
            }
            self = .companion(backend: backend, note: note?.stringValue, session: session?.stringValue)
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
        case "untyped", "waiting":
            guard let id = value["id"]?.intValue, id > 0 else { throw .malformed("malformed request: \"id\" must be a positive integer") }
            self = name == "untyped" ? .untyped(id: UInt64(id)) : .waiting(id: UInt64(id))
        case "pick":
            guard let index = value["index"]?.intValue, (0...1000).contains(index) else {
                throw .malformed("malformed request: \"index\" must be a candidate's number (0 to 1000)")
            }
            self = .pick(index: index)
        case "dismiss": self = .dismiss
        case "focus":
            let ids = value["app"]?.arrayValue ?? []
            let names = ids.compactMap(\.stringValue).filter { $0.utf8.count <= 256 && $0.isPrintable }
            guard names.count == ids.count, names.count <= 4 else {
                throw .malformed("malformed request: \"app\" must be up to 4 application ids (printable, 256 bytes each)")
            }
            let field = value["field"]?.stringValue ?? "unknown"
            guard let textField = ApplicationFocus.TextField(rawValue: field) else {
                let fields = ApplicationFocus.TextField.allCases.map(\.rawValue).joined(separator: ", ")
                throw .malformed("malformed request: \"field\" must be one of \(fields)")
            }
            self = .focus(ApplicationFocus(ids: names, textField: textField))
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
        case .companion(let backend, let note, let session):
            var w = JSONWriter()
            w.beginObject()
            w.key("cmd"); w.string("companion")
            w.key("backend"); w.string(backend)
            if let note { w.key("note"); w.string(note) }
            if let session { w.key("session"); w.string(session) }
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
        case .untyped(let id): return "{\"cmd\":\"untyped\",\"id\":\(id)}\n"
        case .waiting(let id): return "{\"cmd\":\"waiting\",\"id\":\(id)}\n"
        case .pick(let index): return "{\"cmd\":\"pick\",\"index\":\(index)}\n"
        case .dismiss: return "{\"cmd\":\"dismiss\"}\n"
        case .focus(let focus):
            var w = JSONWriter()
            w.beginObject()
            w.key("cmd"); w.string("focus")
            w.key("app"); w.beginArray(); for id in focus.ids { w.string(id) }; w.endArray()
            w.key("field"); w.string(focus.textField.rawValue)
            w.endObject()
            w.newline()
            return String(decoding: w.bytes, as: UTF8.self)
        }
    }
}

extension String {
    /// Without control characters (C0, DEL, C1): text a client sends that `keyhold status` may
    /// print to a terminal, where those would be commands to it.
    var isPrintable: Bool { unicodeScalars.allSatisfy { !($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) } }
}

public enum ControlProtocolError: Error, Equatable, CustomStringConvertible {
    case malformed(String), unknownCommand(String)
    public var description: String {
        switch self { case .malformed(let m), .unknownCommand(let m): return m }
    }
}
