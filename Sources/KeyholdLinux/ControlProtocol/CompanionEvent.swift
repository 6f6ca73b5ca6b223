import KeyholdKit

/// What the daemon sends a session companion: one JSON object per line, encoded (`encode`) and
/// decoded (`init(json:)`) here and nowhere else. The companion's requests are `CompanionRequest`s.
///
///     {"ok":true,"companion":true}                     the role is taken
///     {"ok":true,"layout":"German"}                    the keymap reported is in use
///     {"ok":false,"error":"..."}                       a request refused (the role refused: closed)
///     {"event":"type","id":7,"after":12,"written_at":81234567,"text":"é"}
///     {"event":"sound","sound":"input","volume":0.5,"at":81234567000}
///     {"event":"callout","t":1500,"action":"open","index":0,"count":3,"base":"e","candidates":["è","é","ê"]}
///     {"event":"callout","t":1600,"action":"move","index":2,"shown":"é"}
///     {"event":"callout","t":1700,"action":"close","text":"é"}
///     {"event":"callout","t":1800,"action":"search","query":"euro","index":1,"name":"euro","candidates":["€","💶"]}
///     {"event":"active"}                               its session came in front
///     {"event":"locales","locales":["fr","de"],"order":"frequent"}   the configuration's callout
///                                                      locales and order (without: "locale")
///     {"event":"forget-picks"}                         its user ran `keyhold picks --clear`
///     {"event":"settings","file":"/home/ana/.config/keyhold/config.toml"}   in force (or, with
///                                                      "error", not: the system's are)
///     {"event":"reload-settings"}                      its user ran `keyhold reload`
///
/// `type`: type `text` once the desktop has delivered `after` of the virtual keyboard's key
/// transitions since the previous character (or since `active`), the last of them that changes
/// text written at `written_at` (CLOCK_MONOTONIC µs; only where one did); then `typed` (written), `typed`
/// (delivered), or `untyped`, with `waiting` meanwhile while the desktop is busy.
public enum CompanionEvent: Equatable, Sendable {
    case accepted
    case layout(String)
    case error(String)
    case type(id: UInt64, after: UInt64, writtenAt: Int64?, text: String)
    /// A sound to play through the session's sound server; `at`: when the daemon asked
    /// (CLOCK_MONOTONIC ns), for the companion to measure the whole delay.
    case sound(AudioFeedback, volume: Double, at: UInt64)
    /// The callout in front changed (its content: the user's own typing, for the picker).
    case callout(CalloutEvent, at: Timestamp)
    case active
    /// The configuration's callout locales and order (once taken, and after a reload changed
    /// them): the picker names its candidates in the locales' languages; the frequent order has
    /// the companion keep the user's picks.
    case locales([String], order: CalloutOrder = .locale)
    /// Its user asked that their callout picks be forgotten: it forgets them and their file.
    case forgetPicks
    /// The personal settings it sent are in force (`error` nil), or are not because of `error`
    /// (file, line, key): the system's are.
    case settings(file: String, error: String?)
    /// Its user asked that their personal settings be read again (`keyhold reload`).
    case reloadSettings

    /// Writes the event's line, with its newline, into `w` (emptied first).
    public func encode(into w: inout JSONWriter) {
        w.reset()
        switch self {
        case .callout(let event, let time):
            MonitorEvent.encode(.callout(event, time), into: &w)
            return
        case .accepted:
            w.beginObject(); w.key("ok"); w.bool(true); w.key("companion"); w.bool(true)
        case .layout(let name):
            w.beginObject(); w.key("ok"); w.bool(true); w.key("layout"); w.string(name)
        case .error(let message):
            w.beginObject(); w.key("ok"); w.bool(false); w.key("error"); w.string(message)
        case .type(let id, let after, let writtenAt, let text):
            w.beginObject()
            w.key("event"); w.rawString("type")
            w.key("id"); w.int(Int(id))
            w.key("after"); w.int(Int(truncatingIfNeeded: after))
            if let writtenAt { w.key("written_at"); w.int(Int(writtenAt)) }
            w.key("text"); w.string(text)
        case .sound(let sound, let volume, let at):
            w.beginObject()
            w.key("event"); w.rawString("sound")
            w.key("sound"); w.string(sound.configString)
            w.key("volume"); w.double(volume)
            w.key("at"); w.int(Int(truncatingIfNeeded: at))
        case .active:
            w.beginObject(); w.key("event"); w.rawString("active")
        case .forgetPicks:
            w.beginObject(); w.key("event"); w.rawString("forget-picks")
        case .reloadSettings:
            w.beginObject(); w.key("event"); w.rawString("reload-settings")
        case .settings(let file, let error):
            w.beginObject()
            w.key("event"); w.rawString("settings")
            w.key("file"); w.string(file)
            if let error { w.key("error"); w.string(error) }
        case .locales(let locales, let order):
            w.beginObject()
            w.key("event"); w.rawString("locales")
            w.key("locales"); w.beginArray()
            for locale in locales { w.string(locale) }
            w.endArray()
            if order != .locale { w.key("order"); w.string(order.rawValue) }
        }
        w.endObject()
        w.newline()
    }

    /// The line, newline included (tests; the daemon encodes into a writer it keeps).
    public var line: String {
        var w = JSONWriter()
        encode(into: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Reads one line of the daemon's (without its newline).
    public init<C: Collection>(line: C) throws(ControlProtocolError) where C.Element == UInt8 {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch { throw .malformed("malformed line from the daemon: \(error)") }
        try self.init(json: value)
    }

    public init(json value: JSONValue) throws(ControlProtocolError) {
        if let ok = value["ok"]?.boolValue {
            if !ok { self = .error(value["error"]?.stringValue ?? "error"); return }
            if let layout = value["layout"]?.stringValue { self = .layout(layout); return }
            self = .accepted
            return
        }
        switch value["event"]?.stringValue {
        case "type":
            guard let id = value["id"]?.intValue, id > 0, let text = value["text"]?.stringValue else {
                throw .malformed("a type event needs an id and a text")
            }
            self = .type(id: UInt64(id), after: UInt64(max(0, value["after"]?.intValue ?? 0)),
                         writtenAt: value["written_at"]?.intValue.map(Int64.init), text: text)
        case "sound":
            guard let name = value["sound"]?.stringValue, let sound = AudioFeedback(configString: name) else {
                throw .malformed("a sound event needs a sound")
            }
            self = .sound(sound, volume: value["volume"]?.doubleValue ?? 0.5, at: UInt64(max(0, value["at"]?.intValue ?? 0)))
        case "callout":
            let time = Timestamp(microseconds: Int64((value["t"]?.doubleValue ?? 0) * 1000))
            switch value["action"]?.stringValue {
            case "open":
                let candidates = (value["candidates"]?.arrayValue ?? []).map { $0.stringValue ?? "" }
                self = .callout(.opened(base: value["base"]?.stringValue ?? "", candidates: candidates), at: time)
            case "move":
                self = .callout(.moved(index: value["index"]?.intValue ?? 0, shown: value["shown"]?.stringValue ?? ""), at: time)
            case "close":
                self = .callout(.closed(text: value["text"]?.stringValue ?? ""), at: time)
            case "search":
                let candidates = (value["candidates"]?.arrayValue ?? []).map { $0.stringValue ?? "" }
                self = .callout(.search(query: value["query"]?.stringValue ?? "", candidates: candidates,
                                        index: value["index"]?.intValue ?? 0, name: value["name"]?.stringValue ?? ""), at: time)
            default:
                throw .malformed("a callout event needs an action (open, move, search, close)")
            }
        case "active": self = .active
        case "forget-picks": self = .forgetPicks
        case "reload-settings": self = .reloadSettings
        case "settings":
            guard let file = value["file"]?.stringValue else { throw .malformed("a settings event needs the file") }
            self = .settings(file: file, error: value["error"]?.stringValue)
        case "locales":
            guard let locales = value["locales"]?.arrayValue?.compactMap(\.stringValue), !locales.isEmpty else {
                throw .malformed("a locales event needs the locales")
            }
            let order = value["order"]?.stringValue.flatMap(CalloutOrder.init(rawValue:)) ?? .locale
            self = .locales(locales, order: order)
        default:
            throw .unknownCommand("unknown event \(value["event"].map { "\($0)" } ?? "(none)")")
        }
    }
}
