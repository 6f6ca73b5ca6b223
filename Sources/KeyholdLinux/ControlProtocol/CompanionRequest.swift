import KeyholdKit

/// What a session companion (`keyhold-session`) sends the daemon: one JSON object per line on
/// the control socket, encoded (`line`) and decoded (`init(json:)`) here and nowhere else. The
/// daemon's answers are `CompanionEvent`s.
///
///     {"cmd":"companion","backend":"ibus","capabilities":["commits-text"],"session":"2","note":"..."}
///     {"cmd":"keymap","keymap":"xkb_keymap {...}","temporary":[255,254]}
///     {"cmd":"typed","id":7,"delivered":false}   {"cmd":"typed","id":7}   {"cmd":"untyped","id":7}
///     {"cmd":"waiting","id":7}   {"cmd":"pick","index":3}   {"cmd":"dismiss"}
///     {"cmd":"focus","app":["xterm","XTerm"],"field":"terminal"}
///     {"cmd":"picks","picks":{"é":12,"ñ":3}}
///     {"cmd":"settings","file":"/home/ana/.config/keyhold/config.toml","text":"[gestures]\n..."}
///     {"cmd":"note","note":"..."}
public enum CompanionRequest: Equatable, Sendable {
    /// Takes the companion role; answered `accepted` or `refused`.
    case hello(CompanionHello)
    /// The desktop's keymap, as xkbcommon wrote it; `temporaryKeycodes`: X keycodes that hold the
    /// companion's own characters (not to be typed with). Answered `layout` or `error`.
    case keymap(String, temporaryKeycodes: [Int])
    /// Character `id` written to the desktop (`delivered` false), then delivered (true): what
    /// follows it may go.
    case typed(id: UInt64, delivered: Bool)
    /// Character `id` cannot be typed here now (no program takes text): the daemon types it.
    case untyped(id: UInt64)
    /// The desktop is busy and has not yet taken the keys before character `id`: wait on.
    case waiting(id: UInt64)
    /// The picker was clicked: candidate `index` (1...n; 0 the base character).
    case pick(index: Int)
    /// A click elsewhere, or another window took the focus: the callout closes keeping what it shows.
    case dismiss
    /// Another application (or text field) has the keyboard focus.
    case focus(ApplicationFocus)
    /// The user's callout picks, as their companion keeps them (`CalloutPicks`; sent when taken
    /// and when its session comes in front): at most `CalloutPicks.capacity` candidates.
    case picks([String: Int])
    /// The user's personal settings file and its text (nil: there is none), sent when its session
    /// comes in front and when the user reloads them: at most `maximumPersonalFileSize` bytes.
    case settings(file: String, text: String?)
    /// What it cannot do in its session now and why (nil: nothing), where that changed since its
    /// hello (fcitx5's addon answering once fcitx5 has started).
    case note(String?)

    /// The `cmd` names a companion sends.
    public static let commands = ["companion", "keymap", "typed", "untyped", "waiting", "pick", "dismiss", "focus", "picks", "settings", "note"]

    /// Reads a request whose `cmd` is one of `commands`.
    public init(json value: JSONValue, command: String) throws(ControlProtocolError) {
        switch command {
        case "companion": self = .hello(try CompanionHello(json: value))
        case "keymap":
            guard let keymap = value["keymap"]?.stringValue else { throw .malformed("malformed request: \"keymap\" must be a string") }
            let temporary = value["temporary"]?.arrayValue ?? []
            let codes = temporary.compactMap(\.intValue).filter { (8...255).contains($0) }
            guard codes.count == temporary.count, codes.count <= 256 else {
                throw .malformed("malformed request: \"temporary\" must be X keycodes (8 to 255)")
            }
            self = .keymap(keymap, temporaryKeycodes: codes)
        case "typed":
            let id = try Self.id(value)
            let delivered = value["delivered"]
            guard delivered == nil || delivered?.boolValue != nil else { throw .malformed("malformed request: \"delivered\" must be true or false") }
            self = .typed(id: id, delivered: delivered?.boolValue ?? true)
        case "untyped": self = .untyped(id: try Self.id(value))
        case "waiting": self = .waiting(id: try Self.id(value))
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
        case "picks":
            guard case .object(let object)? = value["picks"], object.members.count <= CalloutPicks.capacity else {
                throw .malformed("malformed request: \"picks\" must be an object of up to \(CalloutPicks.capacity) candidates")
            }
            var picks: [String: Int] = [:]
            for (candidate, count) in object.members {
                guard CalloutPicks.key(of: candidate) != nil, let n = count.intValue, (1...CalloutPicks.maximumCount).contains(n) else {
                    throw .malformed("malformed request: each pick must be a candidate (up to \(CalloutPicks.maximumCandidateBytes) bytes) "
                                     + "and its count (1 to \(CalloutPicks.maximumCount))")
                }
                picks[candidate] = n
            }
            self = .picks(picks)
        case "note": self = .note(try CompanionHello.note(value))
        case "settings":
            guard let file = value["file"]?.stringValue, file.hasPrefix("/"), file.utf8.count <= 4096, file.isPrintable else {
                throw .malformed("malformed request: \"file\" must be the settings file's absolute path")
            }
            let text = value["text"]
            guard text == nil || text?.stringValue != nil else { throw .malformed("malformed request: \"text\" must be a string") }
            guard (text?.stringValue?.utf8.count ?? 0) <= ConfigurationLoader.maximumPersonalFileSize else {
                throw .malformed("malformed request: the settings are larger than \(ConfigurationLoader.maximumPersonalFileSize / 1024) KiB")
            }
            self = .settings(file: file, text: text?.stringValue)
        default:
            throw .unknownCommand("not a companion request: \"\(command)\"")
        }
    }

    private static func id(_ value: JSONValue) throws(ControlProtocolError) -> UInt64 {
        guard let id = value["id"]?.intValue, id > 0 else { throw .malformed("malformed request: \"id\" must be a positive integer") }
        return UInt64(id)
    }

    /// The request line, newline included.
    public var line: String {
        var w = JSONWriter()
        w.beginObject()
        switch self {
        case .hello(let hello): hello.write(to: &w)
        case .keymap(let keymap, let temporary):
            w = JSONWriter(capacity: keymap.utf8.count + 64)
            w.beginObject()
            w.key("cmd"); w.rawString("keymap")
            w.key("keymap"); w.string(keymap)
            w.key("temporary"); w.beginArray(); for code in temporary { w.int(code) }; w.endArray()
        case .typed(let id, let delivered):
            w.key("cmd"); w.rawString("typed")
            w.key("id"); w.int(Int(id))
            if !delivered { w.key("delivered"); w.bool(false) }
        case .untyped(let id):
            w.key("cmd"); w.rawString("untyped")
            w.key("id"); w.int(Int(id))
        case .waiting(let id):
            w.key("cmd"); w.rawString("waiting")
            w.key("id"); w.int(Int(id))
        case .pick(let index):
            w.key("cmd"); w.rawString("pick")
            w.key("index"); w.int(index)
        case .dismiss:
            w.key("cmd"); w.rawString("dismiss")
        case .focus(let focus):
            w.key("cmd"); w.rawString("focus")
            w.key("app"); w.beginArray(); for id in focus.ids { w.string(id) }; w.endArray()
            w.key("field"); w.string(focus.textField.rawValue)
        case .picks(let picks):
            w.key("cmd"); w.rawString("picks")
            w.key("picks"); w.beginObject()
            for (candidate, count) in CalloutPicks(counts: picks).sorted { w.key(candidate); w.int(count) }
            w.endObject()
        case .settings(let file, let text):
            w = JSONWriter(capacity: (text?.utf8.count ?? 0) + file.utf8.count + 64)
            w.beginObject()
            w.key("cmd"); w.rawString("settings")
            w.key("file"); w.string(file)
            if let text { w.key("text"); w.string(text) }
        case .note(let note):
            w.key("cmd"); w.rawString("note")
            if let note { w.key("note"); w.string(note) }
        }
        w.endObject()
        w.newline()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
