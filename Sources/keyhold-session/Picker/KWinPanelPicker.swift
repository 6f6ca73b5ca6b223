import CSessionKWin
import KeyholdLinux

/// The picker as KWin's input panel: drawn by the companion (CSessionKWin) on an overlay panel
/// surface, which KWin places under the focused text input's cursor. It takes no pointer input:
/// clicks go to the program under it.
final class KWinPanelPicker: CandidateListPicker {
    private let method: KWinSurface

    init(method: KWinSurface) { self.method = method }

    override func present(base: String, candidates: [String], selected: Int, auxiliary: String) {
        Self.withCStrings(candidates) {
            if khim_show_picker(method.state.pointer, base, $0, $1, Int32(selected), auxiliary) != 0 {
                Log.debug("the picker cannot be drawn (no input panel)")
            }
        }
    }

    override func dismiss() { khim_hide_picker(method.state.pointer) }
}
