/// What a key press means while a callout is open (docs/ARCHITECTURE.md, Callouts).
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

/// An open, move or close of the callout, or of the picker as a search (`CharacterSearchContext`),
/// published for traces, the monitor, the companion's picker and feedback.
public enum CalloutEvent: Hashable, Sendable {
    case opened(base: String, candidates: [String])
    case moved(index: Int, shown: String)
    /// The search opened or changed: its query, the page of candidates shown, the highlighted
    /// one (1-based; 0 when there is none) and its name.
    case search(query: String, candidates: [String], index: Int, name: String)
    /// A callout closed keeping `text`, or a search closed having typed `text` ("" for nothing).
    case closed(text: String)
}

/// The callout selection mode: which candidates are offered and which one is shown in the text.
/// The base character was typed on press. A context holds state only: the action handler types
/// the replacement, then tells the context with `select(_:)`.
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
    /// The order candidates are offered in (`[callouts] order`).
    public var order = CalloutOrder.locale
    /// The user's picks, which the frequent order counts (a close on a candidate) and orders by.
    /// The daemon hands every new context the same ones (those of the user in front).
    public var picks = CalloutPicks()

    public init() {}

    /// The text shown in the program right now.
    public var shown: String { text(at: selectedIndex) }

    /// The base (0) or candidate `index` (1...n).
    public func text(at index: Int) -> String { index == 0 ? base : candidates[index - 1] }

    /// The index `delta` steps from the shown one, wrapping around the base and the candidates.
    public func index(movedBy delta: Int) -> Int {
        let count = candidates.count + 1
        return ((selectedIndex + delta) % count + count) % count
    }

    /// Opens on `candidates` in the locales' order; the frequent order puts the most picked first
    /// (the base stays 0, what Esc restores).
    open func open(key: KeyCode, base: String, candidates: [String]) {
        guard !candidates.isEmpty else { return }
        isOpen = true; self.key = key; self.base = base; selectedIndex = 0
        self.candidates = order == .frequent ? picks.ordered(candidates) : candidates
        publish(.opened(base: base, candidates: self.candidates))
    }

    /// Records that candidate `index` (0 = base) is now shown in place of the previous text.
    open func select(_ index: Int) {
        guard isOpen, index != selectedIndex, (0...candidates.count).contains(index) else { return }
        selectedIndex = index
        publish(.moved(index: index, shown: shown))
    }

    /// Closes, keeping what is shown: a candidate kept is a pick.
    open func close() {
        guard isOpen else { return }
        let text = shown
        if selectedIndex > 0 && order == .frequent { picks.record(text) }
        isOpen = false; key = nil; candidates = []; selectedIndex = 0; base = ""
        publish(.closed(text: text))
    }

    /// What a key press means while open, given the keyboard's state. `Shift+Tab` goes back; the
    /// key that opened the callout moves forward; keypad digits pick only with Num Lock on (off,
    /// they are cursor keys).
    open func intent(for pressed: KeyCode, in context: KeyboardContext) -> CalloutKeyIntent {
        let modifiers = context.heldModifiers
        if context.isModifierOrLock(pressed) { return .ignore }
        if !modifiers.isDisjoint(with: .shortcut) { return .typeThrough }
        if let n = pressed.candidateNumber(numLock: context.isNumLockOn) {
            return n <= candidates.count ? .select(n) : .typeThrough
        }
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
