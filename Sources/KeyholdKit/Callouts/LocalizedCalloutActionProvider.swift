/// One locale's callouts, as KeyboardKit's `LocalizedCalloutActionProvider`: the standard
/// provider holds one per locale and asks the active locale's first.
public protocol LocalizedCalloutActionProvider: AnyObject {
    /// The locale it serves, CLDR style (`fr`, `sr-Latn`), or a name of the user's own.
    var localeKey: String { get }
    /// Candidates for a lower-case base character in display order, without the base; nil when
    /// the locale has none for it.
    func calloutCandidates(for base: Character) -> [String]?
}

/// A locale's candidates from a table: each CLDR locale of ``LocalizedCalloutTable``, and each
/// locale defined in the configuration (`[callouts.locale.NAME]`).
open class TableCalloutActionProvider: LocalizedCalloutActionProvider, StandardBehavior {
    public let localeKey: String
    /// Lower-case base character → candidates. A ``LocalizedCalloutTable`` locale's is parsed
    /// from its line on first use.
    public private(set) lazy var table: [Character: [String]] = LocalizedCalloutTable.parse(unparsed)
    private let unparsed: Substring

    public init(localeKey: String, table: [Character: [String]]) {
        self.localeKey = localeKey; self.unparsed = ""
        self.table = table
        hasStandardBehavior = type(of: self) == TableCalloutActionProvider.self
    }

    /// Exactly this class: its candidates are its table's.
    public private(set) var hasStandardBehavior = false

    /// A table locale's provider, its fields (`base=cand cand…<TAB>base=…`) parsed on first use.
    init(localeKey: String, unparsed: Substring) {
        self.localeKey = localeKey; self.unparsed = unparsed
        hasStandardBehavior = type(of: self) == TableCalloutActionProvider.self
    }

    open func calloutCandidates(for base: Character) -> [String]? { table[base] }
}
