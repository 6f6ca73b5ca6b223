import CSessionInputMethod
import Glibc
import KeyholdLinux

/// The picker as KWin's input panel: drawn by the companion (CSessionInputMethod) on an overlay
/// panel surface, which KWin places under the focused text input's cursor.
final class KWinPanelPicker: CandidatePicker {
    private var base = ""
    private var candidates: [String] = []

    func handle(_ message: JSONValue) {
        switch message["action"]?.stringValue {
        case "open":
            base = message["base"]?.stringValue ?? ""
            candidates = (message["candidates"]?.arrayValue ?? []).map { $0.stringValue ?? "" }
            show(selected: message["index"]?.intValue ?? 0)
        case "move":
            show(selected: message["index"]?.intValue ?? 0)
        case "close":
            hide()
        default:
            break
        }
    }

    private func show(selected: Int) {
        guard !candidates.isEmpty else { return }
        var pointers = candidates.map { UnsafePointer(strdup($0)) }
        defer { pointers.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        if khim_show_picker(base, &pointers, Int32(pointers.count), Int32(selected)) != 0 {
            Log.debug("the picker cannot be drawn (no input panel)")
        }
    }

    func hide() {
        candidates = []
        khim_hide_picker()
    }

    /// The panel takes no pointer input: clicks go to the program under it.
    func takePick() -> Int? { nil }
    var pointerInside: Bool { false }
}
