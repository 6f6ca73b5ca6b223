/// The standard callout provider: per-character candidates from the configuration first, then
/// the active locale's table (resolved by exact identifier, then language, then English), then
/// KeyboardKit's base symbols. Candidates of an uppercase
/// character are uppercased one by one (ß becomes ẞ, not SS).
open class StandardCalloutActionProvider: CalloutActionProvider {
    public unowned var keyboardContext: KeyboardContext
    /// Candidates per base character from `[callouts.custom]`; they replace the locale's list.
    public var customCandidates: [Character: [String]]

    public init(keyboardContext: KeyboardContext, customCandidates: [Character: [String]] = [:]) {
        self.keyboardContext = keyboardContext; self.customCandidates = customCandidates
    }

    open func calloutActions(for action: KeyboardAction) -> [KeyboardAction] {
        guard case .character(let text) = action, let character = text.first, text.count == 1 else { return [] }
        let lower = Character(character.lowercased())
        let isUpper = character.isUppercase
        return calloutCandidates(for: lower).map { .character(isUpper ? Self.uppercased($0) : $0) }
    }

    /// The candidates for a lower-case base character in the active locale.
    open func calloutCandidates(for base: Character) -> [String] {
        if let custom = customCandidates[base] { return custom }
        if let localized = localizedCandidates(for: base, locale: keyboardContext.locale) { return localized }
        return BaseCallouts.candidates(for: base) ?? []
    }

    /// The locale's own candidates for a base character; nil when the locale has none for it.
    open func localizedCandidates(for base: Character, locale: String) -> [String]? {
        if resolvedLocale?.requested != locale {
            resolvedLocale = (locale, LocalizedCalloutTable.shared.resolveLocale(locale) ?? "en")
        }
        return LocalizedCalloutTable.shared.candidates(for: base, locale: resolvedLocale!.table)
    }

    /// The last locale resolved, so typing does not parse identifiers on every key.
    private var resolvedLocale: (requested: String, table: String)?

    /// One candidate in upper case, kept a single character where Unicode has one.
    public static func uppercased(_ candidate: String) -> String {
        if candidate == "ß" { return "ẞ" }
        let upper = candidate.uppercased()
        return upper.count == candidate.count ? upper : candidate
    }
}
