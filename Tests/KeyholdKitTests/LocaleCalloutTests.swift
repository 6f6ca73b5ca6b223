@testable import KeyholdKit
import XCTest

/// The localized callouts generated from CLDR (scripts/gen-callouts.py), checked against CLDR's
/// own files here, independently of the generator.
final class LocaleCalloutTests: XCTestCase {
    func candidates(_ character: String, _ locales: [String]) -> [String] {
        let context = KeyboardContext(locales: locales)
        let provider = StandardCalloutActionProvider(keyboardContext: context)
        return withExtendedLifetime(context) { provider.calloutActions(for: .character(character)).map { a -> String in
            guard case .character(let c) = a else { XCTFail("not a character: \(a)"); return "" }
            return c
        } }
    }

    func testSpotChecks() {
        XCTAssertEqual(candidates("e", ["fr"]), ["è", "é", "ê", "ë", "ē"])
        XCTAssertEqual(candidates("a", ["de"]).first, "ä")
        XCTAssertEqual(candidates("s", ["de"]).first, "ß")
        XCTAssertEqual(candidates("n", ["es"]), ["ñ"])
        XCTAssertEqual(candidates("z", ["pl"]), ["ź", "ż"])
        XCTAssertEqual(candidates("l", ["pl"]), ["ł"])
        XCTAssertEqual(candidates("r", ["cs"]).first, "ř")
        XCTAssertEqual(candidates("u", ["cs"]).prefix(2), ["ú", "ů"])
        XCTAssertEqual(candidates("a", ["sv"]).prefix(3), ["à", "ä", "å"])
        XCTAssertEqual(candidates("i", ["tr"]).first, "ı")
        XCTAssertEqual(candidates("g", ["tr"]), ["ğ"])
        XCTAssertEqual(candidates("d", ["vi"]), ["đ"])
        XCTAssertEqual(candidates("o", ["vi"]).count, 17)
        // Romanian: comma below (U+0219, U+021B) first, never the cedilla forms.
        XCTAssertEqual(candidates("s", ["ro"]).first?.unicodeScalars.first?.value, 0x0219)
        XCTAssertEqual(candidates("t", ["ro"]).first?.unicodeScalars.first?.value, 0x021B)
    }

    func testCurrencyAndQuotes() {
        XCTAssertEqual(candidates("$", ["pl"]).first, "zł")
        XCTAssertEqual(candidates("$", ["fr"]).first, "€")
        XCTAssertEqual(candidates("$", ["en-GB"]).first, "£")
        XCTAssertEqual(candidates("\"", ["de"]).prefix(2), ["„", "“"])
        XCTAssertEqual(candidates("\"", ["fr"]).prefix(2), ["«", "»"])
        // Symbols every locale shares come from KeyboardKit's base table.
        XCTAssertEqual(candidates("?", ["fr"]), ["¿"])
    }

    func testLocaleResolution() {
        XCTAssertEqual(candidates("z", ["pl-PL"]), ["ź", "ż"])
        XCTAssertEqual(candidates("e", ["fr_CA.UTF-8"]), candidates("e", ["fr"]))
        XCTAssertEqual(candidates("e", ["xx"]), candidates("e", ["en"]))
        XCTAssertEqual(candidates("e", ["en"]), ["è", "é", "ê", "ë", "ē", "ė", "ę"])
    }

    func testSeveralLocalesMergeActiveFirst() {
        XCTAssertEqual(candidates("z", ["pl", "de"]), ["ź", "ż"])
        XCTAssertEqual(candidates("s", ["ro", "de"]), ["ș", "ş", "ß"])
        XCTAssertEqual(candidates("s", ["de", "ro"]), ["ß", "ş", "ș"])
    }

    func testUppercasePerCharacterInEveryLocale() {
        XCTAssertEqual(candidates("I", ["tr"]).first, "İ", "Turkish capital dotted I first")
        XCTAssertFalse(candidates("I", ["tr"]).contains("I"), "the typed base is not offered again")
        XCTAssertEqual(candidates("S", ["de"]).first, "ẞ")
        for locale in LocalizedCalloutTable.shared.localeIdentifiers {
            for base in "abcdefghijklmnopqrstuvwxyz" {
                let lower = candidates(String(base), [locale])
                guard !lower.isEmpty else { continue }
                let upper = candidates(base.uppercased(), [locale])
                XCTAssertFalse(upper.isEmpty, "\(locale) \(base)")
                for c in upper {
                    XCTAssertEqual(c, c.uppercased() == c ? c : StandardCalloutActionProvider.uppercased(c, locale: locale),
                                   "\(locale) \(base): \(c) is not upper case")
                    XCTAssertTrue(c.allSatisfy { !$0.isLowercase || $0.uppercased() == String($0) }, "\(locale) \(base): \(c)")
                }
            }
        }
    }

    /// Every letter with a diacritic in a locale's standard exemplar set (CLDR's
    /// `common/main/<locale>.xml`, Debian's unicode-cldr-core, read here with a parser of its own)
    /// is a candidate of its base letter in that locale. A regional locale without its own set
    /// (de-CH) uses its language's.
    func testEveryStandardLetterWithADiacriticIsReachable() throws {
        let main = "/usr/share/unicode/cldr/common/main"
        guard FileManager.default.fileExists(atPath: main + "/fr.xml") else {
            throw XCTSkip("CLDR not installed (apt-get install unicode-cldr-core)")
        }
        var checkedLocales = 0, checkedLetters = 0
        for locale in LocalizedCalloutTable.shared.localeIdentifiers where locale != "en" && locale != "zh-Latn-pinyin" {
            let letters = try XCTUnwrap(CLDRExemplars.standard(for: locale, in: main), "no exemplars for \(locale)")
            checkedLocales += 1
            for letter in letters {
                let scalars = Array(String(letter).decomposedStringWithCanonicalMapping.unicodeScalars)
                guard scalars.count > 1, scalars[0].isASCII, scalars[0].properties.isAlphabetic,
                      scalars.dropFirst().allSatisfy({ $0.properties.generalCategory == .nonspacingMark }) else { continue }
                let base = String(scalars[0])   // upper-case exemplars (az İ) are upper-case candidates
                checkedLetters += 1
                XCTAssertTrue(candidates(base, [locale]).contains(String(letter)), "\(locale): \(letter) is not a candidate of \(base)")
            }
        }
        XCTAssertGreaterThanOrEqual(checkedLocales, 60)
        XCTAssertGreaterThan(checkedLetters, 450)   // 481 in CLDR 41: the parser found the sets
    }

    func testTurkishDottedCapitalHasCallouts() {
        XCTAssertEqual(candidates("İ", ["tr"]).prefix(2), ["I", "Î"])
        XCTAssertEqual(candidates("i", ["tr"]).first, "ı")
    }

    /// One localized provider per locale, as in KeyboardKit: replacing one changes that locale only.
    func testLocalizedProviderReplacesOneLocale() {
        final class Esperanto: TableCalloutActionProvider {
            override func calloutCandidates(for base: Character) -> [String]? {
                base == "x" ? ["ĉ", "ĝ"] : super.calloutCandidates(for: base)
            }
        }
        let context = KeyboardContext(locales: ["eo"])
        let provider = StandardCalloutActionProvider(keyboardContext: context)
        XCTAssertEqual(provider.localizedProvider(for: "eo")?.localeKey, "eo")
        XCTAssertEqual(provider.localizedProvider(for: "de-AT")?.localeKey, "de")
        XCTAssertEqual(provider.localizedProvider(for: "xx")?.localeKey, "en")
        XCTAssertEqual(provider.calloutActions(for: .character("x")), [])
        provider.localizedProviders.append(Esperanto(localeKey: "eo", table: LocalizedCalloutTable.shared.table(for: "eo") ?? [:]))
        XCTAssertEqual(provider.calloutActions(for: .character("x")), [.character("ĉ"), .character("ĝ")])
        XCTAssertEqual(provider.calloutActions(for: .character("u")), [.character("ŭ")])
        context.locales = ["fr"]; context.locale = "fr"
        XCTAssertEqual(provider.calloutActions(for: .character("x")), [])
    }

    /// A character the layout types directly is still offered, but typed as its key.
    func testLayoutCharactersAreTypedAsKeys() {
        let layout = AccentLayout()
        let s = Simulator(configuration: KeyholdConfiguration(), layout: layout)
        s.run(try! SimulationScript("d:e t:600 u:e d:2 u:2"))
        XCTAssertEqual(s.application.text, "é")
        XCTAssertEqual(s.lines("out").suffix(2), ["600ms grave down", "600ms grave up"])
    }

    /// US plus é on the grave key, as some layouts have it.
    final class AccentLayout: KeyboardLayout {
        let us = USLayout()
        let name = "us+é"
        func keystroke(for character: Character) -> Keystroke? {
            character == "é" ? Keystroke(KeyCode(name: "grave")!) : character == "`" ? nil : us.keystroke(for: character)
        }
        func character(for key: KeyCode, modifiers: ModifierKeys) -> Character? {
            key == KeyCode(name: "grave") && modifiers.isEmpty ? "é" : us.character(for: key, modifiers: modifiers)
        }
    }

    /// The table is parsed by bytes; parsed by Characters, field by field, the shipped data and
    /// malformed lines give the same tables.
    func testTheTableParsesAsCharactersWouldSplitIt() {
        func reference(_ text: String) -> [String: [Character: [String]]] {
            var tables: [String: [Character: [String]]] = [:]
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "\t")
                guard let id = fields.first.map(String.init) else { continue }
                var table: [Character: [String]] = [:]
                for field in fields.dropFirst() {
                    guard let base = field.first, field.dropFirst().first == "=" else { continue }
                    let candidates = field.dropFirst(2).split(separator: " ").map(String.init)
                    if !candidates.isEmpty { table[base] = candidates }
                }
                tables[id] = table
            }
            return tables
        }
        let odd = "xx\te=é è\t=\tnoequals\ta=\tü=ǖ  ǘ\t==≠\n\n\tz=ž\nyy\té=e\u{301}\nxx\tq=ꝗ\n"
        for text in [LocalizedCalloutData.table, odd] {
            let parsed = LocalizedCalloutTable(text: text), expected = reference(text)
            XCTAssertEqual(Set(parsed.localeIdentifiers), Set(expected.keys))
            for id in expected.keys { XCTAssertEqual(parsed.table(for: id), expected[id], id) }
        }
        XCTAssertGreaterThan(LocalizedCalloutTable.shared.localeIdentifiers.count, 60)
        XCTAssertEqual(LocalizedCalloutTable(text: odd).table(for: "xx"), ["q": ["ꝗ"]], "a repeated id: the later line")
        XCTAssertEqual(LocalizedCalloutTable(text: odd).table(for: "yy"), ["é": ["e\u{301}"]])
    }
}

/// A reader of CLDR exemplar sets (`<exemplarCharacters>[a à b {ch} \\u0301 …]`), enough for
/// `common/main`: single characters, `{multi}` strings, `a-z` ranges and `\\uXXXX` escapes.
enum CLDRExemplars {
    /// The standard set of a locale (`sr-Latn` → sr_Latn.xml), or its parents' when it has none
    /// (CLDR's parentLocales: Norwegian Bokmål and Nynorsk inherit from `no`).
    static func standard(for locale: String, in main: String) -> [Character]? {
        var parts = locale.split(separator: "-").map(String.init)
        var files: [String] = []
        while !parts.isEmpty { files.append(parts.joined(separator: "_")); parts.removeLast() }
        if locale == "nb" || locale == "nn" { files.append("no") }
        for file in files {
            if let text = try? String(contentsOfFile: "\(main)/\(file).xml", encoding: .utf8), let set = standardSet(in: text) {
                return parse(set)
            }
        }
        return nil
    }

    /// The set of the `<exemplarCharacters>` element with no `type` (nor `alt`) attribute.
    static func standardSet(in xml: String) -> String? {
        var from = xml.startIndex
        while let open = xml.range(of: "<exemplarCharacters", range: from..<xml.endIndex),
              let tagEnd = xml.range(of: ">", range: open.upperBound..<xml.endIndex),
              let close = xml.range(of: "</exemplarCharacters>", range: tagEnd.upperBound..<xml.endIndex) {
            let attributes = xml[open.upperBound..<tagEnd.lowerBound]
            if !attributes.contains("type=") && !attributes.contains("alt=") {
                return String(xml[tagEnd.upperBound..<close.lowerBound])
            }
            from = close.upperBound
        }
        return nil
    }

    static func parse(_ set: String) -> [Character] {
        var scalars: [Unicode.Scalar] = []
        var items: [String] = []
        let chars = Array(set.unicodeScalars.dropFirst().dropLast())   // the [ ]
        var i = 0
        var group: String?
        func next() -> Unicode.Scalar {
            let c = chars[i]; i += 1
            guard c == "\\", i < chars.count else { return c }
            if chars[i] == "u", i + 4 < chars.count, let v = UInt32(String(String.UnicodeScalarView(chars[(i + 1)...(i + 4)])), radix: 16) {
                i += 5
                return Unicode.Scalar(v) ?? c
            }
            let escaped = chars[i]; i += 1
            return escaped
        }
        while i < chars.count {
            let c = chars[i]
            if c == "{" { group = ""; i += 1; continue }
            if c == "}" { if let g = group { items.append(g) }; group = nil; i += 1; continue }
            if group != nil { group!.unicodeScalars.append(next()); continue }
            if c == " " { i += 1; continue }
            if c == "-", let last = scalars.last, i + 1 < chars.count {
                i += 1
                let to = next()
                if last.value < to.value {
                    for v in (last.value + 1)...to.value { if let s = Unicode.Scalar(v) { scalars.append(s) } }
                }
                continue
            }
            let s = next()
            // a combining mark written after a letter belongs to it
            if s.properties.generalCategory == .nonspacingMark, let last = scalars.popLast() {
                items.append(String(last) + String(s)); continue
            }
            scalars.append(s)
        }
        return scalars.map { Character($0) } + items.compactMap { $0.count == 1 ? $0.first : nil }
    }
}
