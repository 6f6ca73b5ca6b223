/// A companion's first request, `{"cmd":"companion",...}`: how it types, what it can do, and
/// which session it serves. What it can do is declared here, never inferred from its backend's
/// name.
public struct CompanionHello: Equatable, Sendable {
    /// How it types, for `keyhold status`: `x11` (XTest), `wayland` (a virtual keyboard), `ibus`
    /// (IBus's focused input context), `kwin` (KWin's input method).
    public var backend: String
    public var capabilities: CompanionCapabilities
    /// The logind session it serves, where the daemon cannot tell from its process (a user
    /// service's); the daemon checks it is the companion's user's.
    public var session: String?
    /// What it cannot do in its session and why, in its own words (`keyhold status` shows it).
    public var note: String?

    public init(backend: String, capabilities: CompanionCapabilities = [], session: String? = nil, note: String? = nil) {
        self.backend = backend; self.capabilities = capabilities; self.session = session; self.note = note
    }

    init(json value: JSONValue) throws(ControlProtocolError) {
        guard let backend = value["backend"]?.stringValue, !backend.isEmpty, backend.count <= 40, backend.isPrintable else {
            throw .malformed("malformed request: \"backend\" must be a short string")
        }
        let note = try Self.note(value)
        let session = value["session"]
        guard session == nil || session == .null
                || (session?.stringValue.map { !$0.isEmpty && $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } } ?? false) else {
            throw .malformed("malformed request: \"session\" must be a logind session id")
        }
        let names = value["capabilities"]?.arrayValue ?? []
        var capabilities: CompanionCapabilities = []
        for name in names {
            // One this daemon does not know is left out: a newer companion still connects.
            guard let name = name.stringValue else { throw .malformed("malformed request: \"capabilities\" must be names") }
            if let capability = CompanionCapabilities(name: name) { capabilities.insert(capability) }
        }
        self.init(backend: backend, capabilities: capabilities, session: session?.stringValue, note: note)
    }

    func write(to w: inout JSONWriter) {
        w.key("cmd"); w.rawString("companion")
        w.key("backend"); w.string(backend)
        w.key("capabilities"); w.beginArray(); for name in capabilities.names { w.string(name) }; w.endArray()
        if let session { w.key("session"); w.string(session) }
        if let note { w.key("note"); w.string(note) }
    }
}

/// What a companion's way of typing can do, which decides how the daemon hands it text.
public struct CompanionCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// It commits whole strings to the focused program (an input method: IBus, KWin's): text is
    /// handed to it whole, ASCII included (`OutputQueue.companionCommitsText`).
    public static let commitsText = CompanionCapabilities(rawValue: 1 << 0)
    /// The desktop starts it again at once when it goes (KWin its input method): text waits for it
    /// (`OutputQueue.companionReturnMicroseconds`) instead of taking a fallback its programs may
    /// not read.
    public static let restartedWhenGone = CompanionCapabilities(rawValue: 1 << 1)

    private static let all: [(CompanionCapabilities, String)] = [(.commitsText, "commits-text"), (.restartedWhenGone, "restarted-when-gone")]

    init?(name: String) {
        guard let known = Self.all.first(where: { $0.1 == name }) else { return nil }
        self = known.0
    }

    var names: [String] { Self.all.filter { contains($0.0) }.map(\.1) }
}

extension CompanionHello {
    /// A companion's `note` (`hello`'s, or a `note` request's): nil, or a string of at most 400
    /// printable characters.
    static func note(_ value: JSONValue) throws(ControlProtocolError) -> String? {
        let note = value["note"]
        guard note == nil || note == .null || (note?.stringValue.map { $0.count <= 400 && $0.isPrintable } ?? false) else {
            throw .malformed("malformed request: \"note\" must be a string of at most 400 printable characters")
        }
        return note?.stringValue
    }
}
