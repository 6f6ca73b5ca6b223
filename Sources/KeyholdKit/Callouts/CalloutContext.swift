/// What a key press means while a callout is open (DESIGN.md, Callout selection mode).
public enum CalloutKeyIntent: Hashable, Sendable {
    /// Replace the shown character with candidate n (1-based) and close.
    case select(Int)
    case next, previous
    /// Enter: keep what is shown, close, consume the key.
    case commit
    /// Esc: restore the base character, close, consume the key.
    case cancel
    /// Any other key: keep what is shown, close, then process the key normally.
    case typeThrough
    /// Modifiers: change nothing, pass the key on.
    case ignore
}

/// An open, move or close of the callout, published for traces, the monitor and feedback.
public enum CalloutEvent: Hashable, Sendable {
    case opened(base: String, candidates: [String])
    case moved(index: Int, shown: String)
    case closed(text: String)
}

/// The callout selection mode: which candidates are offered and which one is shown in the text.
/// The base character was typed on press; moving replaces the shown character in place.
open class CalloutContext {
    public private(set) var isOpen = false
    /// The key whose long press opened the callout.
    public private(set) var key: KeyCode?
    public private(set) var base = ""
    public private(set) var candidates: [String] = []
    /// 0 is the base character, 1...n the candidates.
    public private(set) var selectedIndex = 0
    /// Observers of open, move and close (trace, control socket).
    public var observers: [(CalloutEvent) -> Void] = []

    public init() {}

    /// The text shown in the program right now.
    public var shown: String { selectedIndex == 0 ? base : candidates[selectedIndex - 1] }

    open func open(key: KeyCode, base: String, candidates: [String]) {
        guard !candidates.isEmpty else { return }
        isOpen = true; self.key = key; self.base = base; self.candidates = candidates; selectedIndex = 0
        publish(.opened(base: base, candidates: candidates))
    }

    /// Shows candidate `index` (0 = base) in place of the shown text.
    open func show(_ index: Int, using controller: KeyboardController) {
        guard isOpen, index != selectedIndex, (0...candidates.count).contains(index) else { return }
        // One Backspace per code point: a candidate like ą̃ is typed as two, and programs delete
        // combining sequences a code point at a time (GTK, the console, terminals).
        controller.deleteBackward(times: shown.unicodeScalars.count)
        selectedIndex = index
        controller.insertText(shown)
        publish(.moved(index: index, shown: shown))
    }

    /// Moves by `delta`, wrapping around the base and the candidates.
    open func move(by delta: Int, using controller: KeyboardController) {
        let count = candidates.count + 1
        show(((selectedIndex + delta) % count + count) % count, using: controller)
    }

    /// Closes, keeping what is shown.
    open func close() {
        guard isOpen else { return }
        let text = shown
        isOpen = false; key = nil; candidates = []; selectedIndex = 0; base = ""
        publish(.closed(text: text))
    }

    /// What a key press means while open. `Shift+Tab` goes back; the key that opened the
    /// callout moves forward.
    open func intent(for pressed: KeyCode, modifiers: ModifierKeys) -> CalloutKeyIntent {
        if ModifierKeys(key: pressed) != nil || pressed == .capsLock || pressed == .numLock { return .ignore }
        if !modifiers.isDisjoint(with: .shortcut) { return .typeThrough }
        if let n = pressed.candidateNumber { return n <= candidates.count ? .select(n) : .typeThrough }
        switch pressed {
        case .right, .down: return .next
        case .left, .up: return .previous
        case .tab: return modifiers.contains(.shift) ? .previous : .next
        case .enter, .kpEnter: return .commit
        case .esc: return .cancel
        default: return pressed == key ? .next : .typeThrough
        }
    }

    private func publish(_ event: CalloutEvent) { for o in observers { o(event) } }
}
