import Glibc
import KeyholdKit
import KeyholdLinux

/// Where the picker shows while a callout is open: the companion's own overlay, or the desktop's
/// input method (IBus's lookup table, which GNOME Shell draws at the caret; KWin's input panel).
protocol CandidatePicker: AnyObject {
    /// The callout in front changed (`CompanionEvent.callout`).
    func handle(_ event: CalloutEvent)
    func hide()
    /// The candidate clicked since the last call (0: the base character).
    func takePick() -> Int?
    /// Whether the pointer is over the picker (a click there is the picker's own).
    var pointerInside: Bool { get }
}

/// A picker an input method shows from the whole list each time (IBus's lookup table, KWin's
/// panel): it keeps the callout's base and candidates and shows them again on every move. It
/// takes no clicks.
class CandidateListPicker: CandidatePicker {
    private var base = ""
    private var candidates: [String] = []

    func handle(_ event: CalloutEvent) {
        switch event {
        case .opened(let base, let candidates):
            self.base = base
            self.candidates = candidates
            show(selected: 0)
        case .moved(let index, _):
            show(selected: index)
        case .closed:
            hide()
        }
    }

    /// `selected`: the callout's index, 0 for the base character.
    private func show(selected: Int) {
        guard !candidates.isEmpty else { return }
        var pointers = candidates.map { UnsafePointer(strdup($0)) }
        defer { pointers.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        pointers.withUnsafeMutableBufferPointer { present(base: base, candidates: $0.baseAddress!, count: Int32($0.count), selected: selected) }
    }

    func hide() {
        candidates = []
        dismiss()
    }

    /// Shows the list (C strings for the C side), `selected` 0 for the base character.
    func present(base: String, candidates: UnsafeMutablePointer<UnsafePointer<CChar>?>, count: Int32, selected: Int) {}
    /// Takes the list away.
    func dismiss() {}

    func takePick() -> Int? { nil }
    var pointerInside: Bool { false }
}
