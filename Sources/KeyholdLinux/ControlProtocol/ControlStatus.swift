import Glibc
import KeyholdKit

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
