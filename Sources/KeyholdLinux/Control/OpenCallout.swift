import KeyholdKit

/// The callout open now, as the control socket's clients saw it open and move: a client that
/// arrives while it is open (a monitor, the companion of a session coming in front) is sent it
/// from the start. A search is its last state (`search`).
struct OpenCallout {
    var base: String, candidates: [String], index: Int, shown: String, time: Timestamp
    /// The search's last event, when the picker is a search.
    var search: CalloutEvent?

    /// What is open after `event`: nil once it closed.
    static func following(_ event: CalloutEvent, at time: Timestamp, from open: OpenCallout?) -> OpenCallout? {
        switch event {
        case .opened(let base, let candidates): return OpenCallout(base: base, candidates: candidates, index: 0, shown: base, time: time)
        case .moved(let index, let shown):
            guard var open else { return nil }
            open.index = index
            open.shown = shown
            return open
        case .search: return OpenCallout(base: "", candidates: [], index: 0, shown: "", time: time, search: event)
        case .closed: return nil
        }
    }

    /// The events that opened it and moved it to where it is, as monitor lines.
    func lines() -> [UInt8] {
        var w = JSONWriter()
        if let search {
            MonitorEvent.encode(.callout(search, time), into: &w)
            return w.bytes
        }
        MonitorEvent.encode(.callout(.opened(base: base, candidates: candidates), time), into: &w)
        guard index != 0 else { return w.bytes }
        let opened = w.bytes
        MonitorEvent.encode(.callout(.moved(index: index, shown: shown), time), into: &w)
        return opened + w.bytes
    }
}
