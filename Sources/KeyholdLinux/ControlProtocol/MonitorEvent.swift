import Glibc
import KeyholdKit

/// Monitor events: one JSON object per line, to monitors granted key content (root) and, for
/// callouts, to the session companion in front (its own user's typing, for the picker). Other
/// monitors see only the notices.
///
///     {"event":"gesture","t":1234.5,"gesture":"longPress","action":"character","key":"e","value":"character:e"}
///     {"event":"callout","t":..,"action":"open","index":0,"count":7,"base":"e","candidates":["è","é",...]}
///     {"event":"callout","t":..,"action":"move","index":2,"shown":"é"}
///     {"event":"callout","t":..,"action":"close","text":"é"}
///     {"event":"callout","t":..,"action":"search","query":"euro","index":1,"name":"euro","candidates":["€","💶"]}
///     {"event":"input"|"forwarded"|"output","t":..,"key":"e","state":"down"}
///     {"event":"locale","t":..,"locale":"fr"}   {"event":"panic","t":..}
///     {"event":"notice","notice":"paused"|"resumed"|"reloaded"|"sleep"|"wake"|...,"detail":"..."}
enum MonitorEvent {
    /// Writes the event line for `entry`, with its newline.
    static func encode(_ entry: TraceEntry, into w: inout JSONWriter) {
        w.reset()
        switch entry {
        case .input(let e):
            keyEvent(&w, "input", e.code, e.state, e.time)
        case .forwarded(let key, let state, let t):
            keyEvent(&w, "forwarded", key, state, t)
        case .output(let key, let state, let t):
            keyEvent(&w, "output", key, state, t)
        case .gesture(let key, let gesture, let action, let t):
            begin(&w, "gesture", t)
            w.key("gesture"); w.string(gesture.rawValue)
            w.key("action"); w.string(kind(of: action))
            w.key("key"); w.string(key.name)
            w.key("value"); w.string(action.configString)
        case .callout(let event, let t):
            begin(&w, "callout", t)
            switch event {
            case .opened(let base, let candidates):
                w.key("action"); w.rawString("open")
                w.key("index"); w.int(0)
                w.key("count"); w.int(candidates.count)
                w.key("base"); w.string(base)
                w.key("candidates")
                w.beginArray()
                for c in candidates { w.string(c) }
                w.endArray()
            case .moved(let index, let shown):
                w.key("action"); w.rawString("move")
                w.key("index"); w.int(index)
                w.key("shown"); w.string(shown)
            case .search(let query, let candidates, let index, let name):
                w.key("action"); w.rawString("search")
                w.key("query"); w.string(query)
                w.key("index"); w.int(index)
                w.key("name"); w.string(name)
                w.key("candidates")
                w.beginArray()
                for c in candidates { w.string(c) }
                w.endArray()
            case .closed(let text):
                w.key("action"); w.rawString("close")
                w.key("text"); w.string(text)
            }
        case .locale(let id, let t):
            begin(&w, "locale", t)
            w.key("locale"); w.string(id)
        case .panic(let t):
            begin(&w, "panic", t)
        }
        w.endObject()
        w.newline()
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
