/// Long-press (callout) candidates per locale, generated from Unicode CLDR exemplar characters by
/// `scripts/gen-callouts.py` into ``LocalizedCalloutData``.
///
/// Hold `e` with `fr` and the candidates are `è é ê ë ē`; the base character itself is never among
/// them, so a picker usually shows the base first. Besides letters, every locale has entries for
/// `$` (its currency first) and `"` (its quotation marks first).
///
/// Standard library only: the table is parsed from one string literal on first use of ``shared``.
public struct LocalizedCalloutTable: Sendable {
    /// The generated table, parsed once, lazily (Swift initialises static lets on first access).
    public static let shared = LocalizedCalloutTable(text: LocalizedCalloutData.table)

    /// Locale identifiers in table order, CLDR style with `-`: `en`, `fr`, `sr-Latn`, `de-CH`,
    /// `zh-Latn-pinyin`…
    public let localeIdentifiers: [String]

    private let tables: [String: [Character: [String]]]
    /// Lowercased identifier → identifier, for case-insensitive lookup.
    private let canonical: [String: String]

    /// Parses the generator's line format: `id<TAB>base=cand cand…<TAB>base=…`, one locale a line.
    /// Malformed fields are skipped.
    public init(text: String) {
        var ids: [String] = []
        var tables: [String: [Character: [String]]] = [:]
        var canonical: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            let id = String(first)
            var table: [Character: [String]] = [:]
            for field in fields.dropFirst() {
                guard let base = field.first else { continue }
                let eq = field.index(after: field.startIndex)
                guard eq < field.endIndex, field[eq] == "=" else { continue }
                let candidates = field[field.index(after: eq)...]
                    .split(separator: " ", omittingEmptySubsequences: true)
                    .map(String.init)
                if !candidates.isEmpty { table[base] = candidates }
            }
            if tables[id] == nil { ids.append(id) }
            tables[id] = table
            canonical[id.lowercased()] = id
        }
        self.localeIdentifiers = ids
        self.tables = tables
        self.canonical = canonical
    }

    /// The table's identifier serving `locale`, or nil. Accepts BCP 47 (`fr-CA`) and POSIX
    /// (`fr_CA.UTF-8`, `sr_RS@latin`) forms, case-insensitively, and falls back by dropping trailing
    /// subtags: `de-AT` → `de`, `sr-Latn-RS` → `sr-Latn`, `nb-NO` → `nb`.
    public func resolveLocale(_ locale: String) -> String? {
        // POSIX: language[_territory][.codeset][@modifier]
        var name = Substring(locale)
        var modifier: Substring = ""
        if let at = name.firstIndex(of: "@") {
            modifier = name[name.index(after: at)...]
            name = name[..<at]
        }
        if let dot = name.firstIndex(of: ".") { name = name[..<dot] }
        var subtags = name.split(whereSeparator: { $0 == "_" || $0 == "-" }).map { $0.lowercased() }
        guard !subtags.isEmpty else { return nil }
        if modifier.lowercased() == "latin", !subtags.contains("latn") { subtags.insert("latn", at: 1) }
        while !subtags.isEmpty {
            var key = subtags[0]
            for tag in subtags.dropFirst() { key += "-" + tag }
            if let id = canonical[key] { return id }
            subtags.removeLast()
        }
        return nil
    }

    /// Candidates for holding `base` under `locale`, in display order, without `base` itself; nil
    /// when the locale is unknown (see ``resolveLocale(_:)``) or has nothing for `base`.
    ///
    /// Entries are stored for lowercase letters; an uppercase `base` gets its lowercase entry
    /// uppercased, dropping candidates with no single-character uppercase (ß) and the base itself.
    public func candidates(for base: Character, locale: String) -> [String]? {
        guard let id = resolveLocale(locale), let table = tables[id] else { return nil }
        if let found = table[base] { return found }
        guard base.isUppercase else { return nil }
        let lower = base.lowercased()
        guard lower.count == 1, let found = table[Character(lower)] else { return nil }
        var upper: [String] = []
        for candidate in found {
            let u = candidate.uppercased()
            if u.count == 1, u != String(base), !upper.contains(u) { upper.append(u) }
        }
        return upper.isEmpty ? nil : upper
    }
}
