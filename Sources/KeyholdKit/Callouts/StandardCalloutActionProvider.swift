/// The standard callout provider, as KeyboardKit's: per-character candidates from the
/// configuration first, then the locales' tables (the active locale first, then the other
/// configured locales, merged without repeats; each resolved by exact identifier, then language,
/// then English), then KeyboardKit's base symbols. Candidates of an uppercase character are
/// uppercased one by one, the locale's way (ß becomes ẞ, Turkish i becomes İ).
open class StandardCalloutActionProvider: CalloutActionProvider {
    public unowned var keyboardContext: KeyboardContext
    /// Candidates per base character from `[callouts.custom]`; they replace the locales' lists.
    public var customCandidates: [Character: [String]]

    public init(keyboardContext: KeyboardContext, customCandidates: [Character: [String]] = [:]) {
        self.keyboardContext = keyboardContext; self.customCandidates = customCandidates
    }

    open func calloutActions(for action: KeyboardAction) -> [KeyboardAction] {
        guard case .character(let text) = action, text.count == 1, let character = text.first else { return [] }
        let lower = Character(character.lowercased())
        let candidates = calloutCandidates(for: lower)
        guard character.isUppercase, !candidates.isEmpty else { return candidates.map { .character($0) } }
        let locale = keyboardContext.locale
        var upper: [String] = []
        // The locale's own capital of the base comes first when the layout typed another (İ in Turkish).
        let base = Self.uppercased(String(lower), locale: locale)
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
        var merged = localizedCandidates(for: base, locale: context.locale) ?? []
        for locale in context.locales where locale != context.locale {
            for c in localizedCandidates(for: base, locale: locale) ?? [] where !merged.contains(c) { merged.append(c) }
        }
        return merged.isEmpty ? BaseCallouts.candidates(for: base) ?? [] : merged
    }

    /// One locale's candidates for a base character; nil when the locale has none for it.
    open func localizedCandidates(for base: Character, locale: String) -> [String]? {
        LocalizedCalloutTable.shared.candidates(for: base, locale: resolve(locale))
    }

    /// Resolved identifiers, so typing does not parse locale names on every key.
    private var resolved: [String: String] = [:]
    private func resolve(_ locale: String) -> String {
        if let id = resolved[locale] { return id }
        let id = LocalizedCalloutTable.shared.resolveLocale(locale) ?? "en"
        resolved[locale] = id
        return id
    }

    /// One candidate in upper case, kept a single character where Unicode has one.
    public static func uppercased(_ candidate: String, locale: String = "en") -> String {
        if candidate == "ß" { return "ẞ" }
        let language = locale.prefix { $0 != "-" && $0 != "_" }
        if language == "tr" || language == "az" {
            if candidate == "i" { return "İ" }
            if candidate == "ı" { return "I" }
        }
        let upper = candidate.uppercased()
        return upper.count == candidate.count ? upper : candidate
    }
}
