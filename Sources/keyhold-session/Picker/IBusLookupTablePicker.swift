import CSessionIBus

/// The picker as IBus shows candidates: a lookup table, numbered 1…n and horizontal, which the
/// desktop's IBus panel draws at the text caret (GNOME Shell's candidate popup). A click on a
/// candidate goes to the user's engine, not to the companion (IBus routes it so).
final class IBusLookupTablePicker: CandidateListPicker {
    private let ibus: IBusSurface

    init(ibus: IBusSurface) { self.ibus = ibus }

    override func present(base: String, candidates: [String], selected: Int, auxiliary: String) {
        // The table's cursor: -1, none, on the base. The highlighted one's name (a search's query
        // before it): IBus's auxiliary text, which the panel shows above the candidates.
        Self.withCStrings(candidates) { khi_show_table(ibus.state.pointer, $0, $1, Int32(selected - 1), auxiliary) }
    }

    override func dismiss() { khi_hide_table(ibus.state.pointer) }
}
