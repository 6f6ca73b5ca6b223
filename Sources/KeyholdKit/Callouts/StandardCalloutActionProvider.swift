/// The standard callout provider, as KeyboardKit's: it holds one ``LocalizedCalloutActionProvider``
/// per locale (the CLDR-generated ones, then those the configuration defines) and gives
/// per-character candidates from the configuration first, then the locales' (the active locale
/// first, then the other configured locales, merged without repeats; each resolved by exact
/// identifier, then language, then English), then KeyboardKit's base symbols. Candidates of an
/// uppercase character are uppercased one by one, the locale's way (ß becomes ẞ, Turkish i
/// becomes İ).
open class StandardCalloutActionProvider: CalloutActionProvider, StandardBehavior {
    /// Whose locale picks the candidates.
    public var keyboardContext: KeyboardContext {
        didSet { revision &+= 1 }
    }
    /// Candidates per base character from `[callouts.custom]`; they replace the locales' lists.
    public var customCandidates: [Character: [String]] {
        didSet { revision &+= 1 }
    }
    /// One provider per locale; a later one replaces an earlier one with the same key.
    public var localizedProviders: [LocalizedCalloutActionProvider] {
        didSet { indexProviders(); revision &+= 1 }
    }
    /// Changes whenever one of the above does: the engine remembers which keys have callouts
    /// until then (`CalloutMemo`).
    private(set) var revision = 0

    /// The CLDR-generated providers, one per locale of ``LocalizedCalloutTable``.
    public static var standardLocalizedProviders: [LocalizedCalloutActionProvider] { LocalizedCalloutTable.shared.providers }

    public init(keyboardContext: KeyboardContext, customCandidates: [Character: [String]] = [:],
                localizedProviders: [LocalizedCalloutActionProvider] = StandardCalloutActionProvider.standardLocalizedProviders) {
        self.keyboardContext = keyboardContext; self.customCandidates = customCandidates
        self.localizedProviders = localizedProviders
        indexProviders()
        hasStandardBehavior = type(of: self) == StandardCalloutActionProvider.self
    }

    /// Exactly this class: its answers then depend on its tables alone, and it keeps a memo.
    public private(set) var hasStandardBehavior = false

    /// The standard provider with every built-in locale, following a context of its own until it
    /// is installed in a controller's services, which give it theirs.
    public convenience init() {
        self.init(keyboardContext: KeyboardContext())
    }

    open func calloutActions(for action: KeyboardAction) -> [KeyboardAction] {
        guard case .character(let text) = action else { return [] }
        guard refreshMemo() else { return lookUp(text) }
        if let byte = text.asciiByte {   // by its byte: hashing the string cost more than the rest
            if let known = memo.ascii[byte] { return known }
            let actions = lookUp(text)
            memo.ascii[byte] = actions
            return actions
        }
        if let known = memo.actions[text] { return known }
        let actions = lookUp(text)
        if memo.actions.count >= 1024 { memo.actions.removeAll() }
        memo.actions[text] = actions
        return actions
    }

    /// The answers given so far, while the tables and locales they came from stay the same: a
    /// lookup lowercases and hashes strings, and the engine and the action handler ask again for
    /// the same character on every press. Kept only for this class with table locales, whose
    /// answers depend on nothing else (a subclass may override the lookups).
    private struct Memo {
        /// `revision` covers a new context too (setting `keyboardContext` bumps it).
        var revision = -1, localeRevision = 0, enabled = false
        /// Counts the memo's restarts: the engine's `CalloutMemo` starts again with it.
        var generation = 0
        var actions: [String: [KeyboardAction]] = [:]
        var ascii = [[KeyboardAction]?](repeating: nil, count: 128)
    }
    private var memo = Memo()

    /// Starts the memo again if the tables or locales changed; whether answers are remembered.
    @inline(__always) func refreshMemo() -> Bool {
        if memo.revision != revision || memo.localeRevision != keyboardContext.localeRevision { restartMemo() }
        return memo.enabled
    }

    private func restartMemo() {
        memo = Memo(revision: revision, localeRevision: keyboardContext.localeRevision,
                    enabled: hasStandardBehavior && localizedProviders.allSatisfy {
                        ($0 as? StandardBehavior)?.hasStandardBehavior == true },
                    generation: memo.generation &+ 1)
    }

    /// Which memo answers belong to (after `refreshMemo()`).
    var memoGeneration: Int { memo.generation }

    private func lookUp(_ text: String) -> [KeyboardAction] {
        guard text.count == 1 else { return [] }
        let locale = keyboardContext.locale
        let lowerText = Self.lowercased(text, locale: locale)
        guard lowerText.count == 1, let lower = lowerText.first else { return [] }
        let candidates = calloutCandidates(for: lower)
        guard lowerText != text, !candidates.isEmpty else { return candidates.map { .character($0) } }
        var upper: [String] = []
        // The locale's own capital of the base comes first when the layout typed another (İ in Turkish).
        let base = Self.uppercased(lowerText, locale: locale)
        if base != text { upper.append(base) }
        for candidate in candidates {
            let u = Self.uppercased(candidate, locale: locale)
            if u != text && !upper.contains(u) { upper.append(u) }
        }
        return upper.map { .character($0) }
    }

    /// The candidates for a lower-case base character.
    open func calloutCandidates(for base: Character) -> [String] {
        if let custom = customCandidates[base] { return custom }
        let context = keyboardContext
        var merged = localizedProvider(for: context.locale)?.calloutCandidates(for: base) ?? []
        for locale in context.locales where locale != context.locale {
            for c in localizedProvider(for: locale)?.calloutCandidates(for: base) ?? [] where !merged.contains(c) { merged.append(c) }
        }
        return merged.isEmpty ? BaseCallouts.candidates(for: base) ?? [] : merged
    }

    /// The provider serving `locale`: its exact identifier, then its language (`de-AT` → `de`),
    /// then English. Resolved once per locale name, so typing does not parse locale names.
    open func localizedProvider(for locale: String) -> LocalizedCalloutActionProvider? {
        if let provider = resolved[locale] { return provider }
        let key = LocalizedCalloutTable.resolve(locale, among: keys) ?? keys["en"]
        let provider = key.flatMap { byKey[$0] }
        resolved[locale] = provider
        return provider
    }

    private var byKey: [String: LocalizedCalloutActionProvider] = [:]
    /// Lowercased locale key → key, for ``LocalizedCalloutTable/resolve(_:among:)``.
    private var keys: [String: String] = [:]
    private var resolved: [String: LocalizedCalloutActionProvider?] = [:]

    private func indexProviders() {
        byKey = [:]; keys = [:]; resolved = [:]
        for provider in localizedProviders {
            byKey[provider.localeKey] = provider
            keys[provider.localeKey.lowercased()] = provider.localeKey
        }
    }

    /// Whether `locale` uses the Turkic dotted and dotless i (İ i, I ı).
    private static func isTurkic(_ locale: String) -> Bool {
        let language = locale.prefix { $0 != "-" && $0 != "_" }
        return language == "tr" || language == "az"
    }

    /// One candidate in upper case, kept a single character where Unicode has one.
    public static func uppercased(_ candidate: String, locale: String = "en") -> String {
        if candidate == "ß" { return "ẞ" }
        if isTurkic(locale) {
            if candidate == "i" { return "İ" }
            if candidate == "ı" { return "I" }
        }
        let upper = candidate.uppercased()
        return upper.count == candidate.count ? upper : candidate
    }

    /// A typed character in lower case, for looking up its candidates: Turkish İ is i (Unicode
    /// would give i + U+0307). I stays i, so it offers İ and the other capitals of i.
    public static func lowercased(_ character: String, locale: String = "en") -> String {
        if isTurkic(locale) && character == "İ" { return "i" }
        return character.lowercased()
    }
}
