/// What a key press means while the picker is a search (docs/ARCHITECTURE.md, Search).
public enum CharacterSearchIntent: Hashable, Sendable {
    /// Type candidate n (1-based, of the page shown) and close.
    case choose(Int)
    /// Enter: type the highlighted candidate (nothing when there is none) and close.
    case commit
    /// Esc: close, typing nothing.
    case cancel
    /// A character for the query (a letter, or a space or other separator between words).
    case append(Character)
    /// Backspace: the query's last character goes.
    case deleteBackward
    /// Right and Left: the next or previous page (+1, -1).
    case page(Int)
    /// Down or Tab, Up or Shift+Tab: the next or previous candidate (+1, -1).
    case move(Int)
    /// A key the search has no use for: close typing nothing, then process the key normally.
    case typeThrough
    /// Modifiers: change nothing, pass the key on.
    case ignore
}

/// The picker as a search: the query typed so far and the characters it finds, a page of nine at
/// a time. State only, as `CalloutContext`: the action handler types the choice. Every change is
/// published as a `CalloutEvent.search`, the close as `.closed` with what was typed ("" for
/// nothing), to the same observers as callouts (the trace, the companion's picker, the monitor).
open class CharacterSearchContext {
    public static let pageSize = 9
    /// What an empty query shows after the recently chosen.
    public static let suggestions = ["€", "£", "©", "°", "±", "×", "→", "…", "—"]

    public private(set) var isOpen = false
    public private(set) var query = CharacterSearchQuery()
    /// The page shown (0-based) and the highlighted candidate on it (0-based).
    public private(set) var page = 0
    public private(set) var highlighted = 0
    /// Characters chosen before, the latest first (at most a page); kept in memory only (the
    /// daemon hands them to the next engine's context on a reload).
    public var recent: [String] = [] {
        didSet { if recent.count > Self.pageSize { recent.removeLast(recent.count - Self.pageSize) } }
    }
    public var observers: [(CalloutEvent) -> Void] = []
    /// The callout locales whose languages' names and keywords it finds besides English's (the
    /// action handler sets the configured ones as it opens).
    public var locales = ["en"] {
        didSet { if locales != oldValue { localizedIndex = nil } }
    }
    /// The table searched: `CharacterSearchIndex.localized(locales)` unless given one.
    public var index: CharacterSearchIndex {
        get {
            if let ownIndex { return ownIndex }
            if let localizedIndex { return localizedIndex }
            let index = CharacterSearchIndex.localized(locales)
            localizedIndex = index
            return index
        }
        set { ownIndex = newValue }
    }
    private var ownIndex: CharacterSearchIndex?, localizedIndex: CharacterSearchIndex?
    private var results = CharacterSearchResults(capacity: 10 * CharacterSearchContext.pageSize)
    /// An empty query's candidates: the recent ones, then the suggestions.
    private var emptyQueryCandidates: [String] = []

    public init() {}

    /// How many candidates the query has (at most ten pages).
    public var candidateCount: Int { query.isEmpty ? emptyQueryCandidates.count : results.count }
    public var pageCount: Int { (candidateCount + Self.pageSize - 1) / Self.pageSize }

    /// Candidate `n` (1-based) of the page shown, if there is one.
    public func candidate(_ n: Int) -> String? {
        let i = page * Self.pageSize + n - 1
        guard n >= 1, n <= Self.pageSize, i < candidateCount else { return nil }
        return query.isEmpty ? emptyQueryCandidates[i] : index.text(results[i])
    }

    /// The page shown.
    public var candidates: [String] { (1...Self.pageSize).compactMap(candidate) }

    /// The highlighted candidate's name (CLDR's in the first of `locales` that has one, else
    /// Unicode's), "" without one.
    public var highlightedName: String {
        guard let text = candidate(highlighted + 1) else { return "" }
        if query.isEmpty { return index.name(of: text) }
        return index.name(results[page * Self.pageSize + highlighted])
    }

    open func open() {
        guard !isOpen else { return }
        isOpen = true
        query.clear()
        emptyQueryCandidates = recent + Self.suggestions.filter { !recent.contains($0) }
        page = 0; highlighted = 0
        publish()
    }

    /// Adds a character to the query and searches again; false (nothing changed) when it is full.
    @discardableResult open func append(_ character: Character) -> Bool {
        guard isOpen, query.append(character) else { return false }
        searchAgain()
        return true
    }

    open func deleteBackward() {
        guard isOpen, !query.isEmpty else { return }
        query.deleteLast()
        searchAgain()
    }

    /// Shows the page `delta` pages on (wrapping around), its first candidate highlighted.
    open func turnPage(by delta: Int) {
        guard isOpen, pageCount > 1 else { return }
        page = ((page + delta) % pageCount + pageCount) % pageCount
        highlighted = 0
        publish()
    }

    /// Highlights the candidate `delta` places on, across pages, wrapping around.
    open func moveHighlight(by delta: Int) {
        let count = candidateCount
        guard isOpen, count > 1 else { return }
        let position = ((page * Self.pageSize + highlighted + delta) % count + count) % count
        page = position / Self.pageSize; highlighted = position % Self.pageSize
        publish()
    }

    /// Closes; `typed` is what the action handler typed ("" for nothing), remembered as recent.
    open func close(typed: String) {
        guard isOpen else { return }
        if !typed.isEmpty {
            recent.removeAll { $0 == typed }
            recent.insert(typed, at: 0)
            if recent.count > Self.pageSize { recent.removeLast() }
        }
        isOpen = false
        query.clear()
        page = 0; highlighted = 0
        for o in observers { o(.closed(text: typed)) }
    }

    /// Forgets the recently chosen characters (another user's session became the active one).
    open func forgetRecent() { recent.removeAll() }

    /// What a key press means while open. Letters and separators go to the query; Shift+Tab goes
    /// back; keypad digits choose only with Num Lock on; with Ctrl, Alt or Super held a key
    /// closes the search and goes on (a shortcut is never swallowed).
    open func intent(for pressed: KeyCode, typing character: Character?, in context: KeyboardContext) -> CharacterSearchIntent {
        let modifiers = context.heldModifiers
        if context.isModifierOrLock(pressed) { return .ignore }
        if !modifiers.isDisjoint(with: .shortcut) { return .typeThrough }
        if let n = pressed.candidateNumber(numLock: context.isNumLockOn) { return .choose(n) }
        switch pressed {
        case .right, .pageDown: return .page(1)
        case .left, .pageUp: return .page(-1)
        case .down: return .move(1)
        case .up: return .move(-1)
        case .tab: return .move(modifiers.contains(.shift) ? -1 : 1)
        case .enter, .kpEnter: return .commit
        case .esc: return .cancel
        case .backspace: return .deleteBackward
        case .space: return .append(" ")
        default: return character.map { .append($0) } ?? .typeThrough
        }
    }

    private func searchAgain() {
        if !query.isEmpty { index.search(query, into: &results) }
        page = 0; highlighted = 0
        publish()
    }

    private func publish() {
        guard !observers.isEmpty else { return }
        let event = CalloutEvent.search(query: query.text, candidates: candidates,
                                        index: candidateCount > 0 ? highlighted + 1 : 0, name: highlightedName)
        for o in observers { o(event) }
    }
}
