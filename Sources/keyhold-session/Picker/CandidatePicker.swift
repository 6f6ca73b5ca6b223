import Glibc
import KeyholdKit
import KeyholdLinux

/// Where the picker shows while a callout is open: the companion's own overlay, or the desktop's
/// input method (IBus's lookup table, which GNOME Shell draws at the caret; KWin's input panel).
protocol CandidatePicker: AnyObject {
    /// The callout in front changed (`CompanionEvent.callout`); `name`: the highlighted
    /// candidate's, shown above the candidates ("" for none).
    func handle(_ event: CalloutEvent, name: String)
    func hide()
    /// The candidate clicked since the last call (0: the base character).
    func takePick() -> Int?
    /// Whether the pointer is over the picker (a click there is the picker's own).
    var pointerInside: Bool { get }
}

/// What a picker shows above a search's candidates: the query and the highlighted one's name.
func searchHeader(_ query: String, name: String) -> String {
    let label = query.isEmpty ? "search:" : "search: \(query)"
    return name.isEmpty ? label : "\(label)   \(name)"
}

/// A picker an input method shows from the whole list each time (IBus's lookup table, KWin's
/// panel): it keeps the callout's base and candidates and shows them again on every move. It
/// takes no clicks. Above the candidates goes the highlighted one's name (a search's query
/// before it); a search has no base.
class CandidateListPicker: CandidatePicker {
    private var base = ""
    private var candidates: [String] = []
    /// What goes above the list: the highlighted candidate's name, a search's query before it.
    private var auxiliary = ""

    func handle(_ event: CalloutEvent, name: String) {
        switch event {
        case .opened(let base, let candidates):
            self.base = base
            self.candidates = candidates
            auxiliary = name
            show(selected: 0)
        case .moved(let index, _):
            auxiliary = name
            show(selected: index)
        case .search(let query, let candidates, let index, _):
            base = ""
            self.candidates = candidates
            auxiliary = searchHeader(query, name: name)
            show(selected: index)
        case .closed:
            hide()
        }
    }

    /// `selected`: the callout's index, 0 for the base character.
    private func show(selected: Int) {
        guard !candidates.isEmpty || !auxiliary.isEmpty else { return }
        present(base: base, candidates: candidates, selected: selected, auxiliary: auxiliary)
    }

    /// `strings` as the C side takes a list: an array of C strings (NULL-terminated, so never
    /// empty: a search may find nothing) and its count, for the length of `body`.
    static func withCStrings(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>, Int32) -> Void) {
        var pointers = strings.map { UnsafePointer(strdup($0)) } + [nil]
        defer { pointers.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!, Int32(strings.count)) }
    }

    func hide() {
        candidates = []
        auxiliary = ""
        dismiss()
    }

    /// Shows the list, `selected` 0 for the base character ("": a search, with none);
    /// `auxiliary` goes above the candidates (the highlighted one's name).
    func present(base: String, candidates: [String], selected: Int, auxiliary: String) {}
    /// Takes the list away.
    func dismiss() {}

    func takePick() -> Int? { nil }
    var pointerInside: Bool { false }
}
