import CSessionIBus
import Glibc
import KeyholdLinux

/// The picker as IBus shows candidates: a lookup table, numbered 1…n and horizontal, which the
/// desktop's IBus panel draws at the text caret (GNOME Shell's candidate popup).
final class IBusLookupTablePicker: CandidatePicker {
    private var candidates: [String] = []

    func handle(_ message: JSONValue) {
        switch message["action"]?.stringValue {
        case "open":
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

    /// `selected`: the callout's index, 0 for the base character (no candidate highlighted).
    private func show(selected: Int) {
        guard !candidates.isEmpty else { return }
        var pointers = candidates.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                khi_show_table($0, Int32(buffer.count), Int32(selected - 1))
            }
        }
    }

    func hide() {
        candidates = []
        khi_hide_table()
    }

    /// A click on a candidate goes to the user's engine, not to the extension (IBus routes it so).
    func takePick() -> Int? { nil }
    var pointerInside: Bool { false }
}
