/// Long-press (callout) candidates per locale, generated from Unicode CLDR exemplar characters by
/// `scripts/gen-callouts.py` into ``LocalizedCalloutData``.
///
/// Hold `e` with `fr` and the candidates are `è é ê ë ē`; the base character itself is never among
/// them, so a picker usually shows the base first. Besides letters, every locale has entries for
/// `$` (its currency first) and `"` (its quotation marks first).
///
/// Standard library only: the table is read from one string literal on first use of ``shared``,
/// and a locale's line is parsed only when its table is first asked for (most daemons use one or
/// two of them, and parsing all of them was 6.6 million instructions before the first key).
public struct LocalizedCalloutTable: Sendable {
    /// The generated table (Swift initialises static lets on first access).
    public static let shared = LocalizedCalloutTable(text: LocalizedCalloutData.table)

    /// Each table locale's name in its own language (`pl`: Polski, `de-CH`: Deutsch (Schweiz)),
    /// for the lists a person chooses locales from; read on first use (never by the daemon).
    public static let localeNames: [String: String] = {
        var names: [String: String] = [:]
        for line in LocalizedCalloutData.names.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1)
            if fields.count == 2 { names[String(fields[0])] = String(fields[1]) }
        }
        return names
    }()

    /// Locale identifiers in table order, CLDR style with `-`: `en`, `fr`, `sr-Latn`, `de-CH`,
    /// `zh-Latn-pinyin`…
    public let localeIdentifiers: [String]

    /// Each locale's fields after its identifier, unparsed.
    private let lines: [String: Substring]
    /// Lowercased identifier → identifier, for case-insensitive lookup.
    private let canonical: [String: String]

    /// Reads the generator's line format: `id<TAB>base=cand cand…<TAB>base=…`, one locale a line
    /// (a repeated identifier: the later line). Separators are found in the UTF-8 bytes (ASCII
    /// never occurs inside another character's encoding), by a plain loop: splitting by
    /// Characters cost 17 million instructions on every start of the daemon, before it could grab
    /// a keyboard, and the standard library's generic `split` of the UTF-8 view 580,000.
    public init(text: String) {
        var ids: [String] = []
        var lines: [String: Substring] = [:]
        var canonical: [String: String] = [:]
        let newline = UInt8(ascii: "\n"), tab = UInt8(ascii: "\t")
        var text = text
        text.makeContiguousUTF8()
        // (identifier start, the tab after it or nil, line end) as byte offsets; tabs before the
        // identifier are skipped, as empty fields are.
        let spans: [(Int, Int?, Int)] = text.withUTF8 { bytes in
            var spans: [(Int, Int?, Int)] = [], idStart: Int?, firstTab: Int?
            for i in 0...bytes.count {
                if i == bytes.count || bytes[i] == newline {
                    if let idStart { spans.append((idStart, firstTab, i)) }
                    idStart = nil
                    firstTab = nil
                } else if bytes[i] != tab {
                    if idStart == nil { idStart = i }
                } else if idStart != nil, firstTab == nil {
                    firstTab = i
                }
            }
            return spans
        }
        let utf8 = text.utf8
        let at = { (offset: Int) in utf8.index(utf8.startIndex, offsetBy: offset) }
        for (start, firstTab, end) in spans {
            let id = String(text[at(start)..<at(firstTab ?? end)])
            if lines[id] == nil { ids.append(id) }
            lines[id] = firstTab.map { text[at($0 + 1)..<at(end)] } ?? ""
            canonical[id.lowercased()] = id
        }
        self.localeIdentifiers = ids
        self.lines = lines
        self.canonical = canonical
    }

    /// Parses one locale's fields (`base=cand cand…<TAB>base=…`); malformed fields are skipped.
    static func parse(_ fields: Substring) -> [Character: [String]] {
        let tab = UInt8(ascii: "\t"), space = UInt8(ascii: " "), equals = UInt8(ascii: "=")
        var table: [Character: [String]] = [:]
        for bytes in fields.utf8.split(separator: tab) {
            let field = Substring(bytes)
            guard let base = field.first else { continue }
            let eq = field.index(after: field.startIndex)
            guard eq < field.endIndex, field.utf8[eq] == equals else { continue }
            let candidates = field.utf8[field.utf8.index(after: eq)...].split(separator: space).map { String(Substring($0)) }
            if !candidates.isEmpty { table[base] = candidates }
        }
        return table
    }

    /// The table's identifier serving `locale`, or nil (see ``resolve(_:among:)``).
    public func resolveLocale(_ locale: String) -> String? { Self.resolve(locale, among: canonical) }

    /// The identifier serving `locale` among identifiers keyed by their lowercased form, or nil.
    /// Accepts BCP 47 (`fr-CA`) and POSIX (`fr_CA.UTF-8`, `sr_RS@latin`) forms,
    /// case-insensitively, and falls back by dropping trailing subtags: `de-AT` → `de`,
    /// `sr-Latn-RS` → `sr-Latn`, `nb-NO` → `nb`.
    public static func resolve(_ locale: String, among canonical: [String: String]) -> String? {
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

    /// One locale's table (lower-case base letters and symbols), or nil for an unknown identifier.
    public func table(for id: String) -> [Character: [String]]? { lines[id].map(Self.parse) }

    /// One provider per locale, in table order: what ``StandardCalloutActionProvider`` holds.
    /// Each parses its line when first asked for a candidate.
    public var providers: [TableCalloutActionProvider] {
        localeIdentifiers.map { TableCalloutActionProvider(localeKey: $0, unparsed: lines[$0] ?? "") }
    }
}
