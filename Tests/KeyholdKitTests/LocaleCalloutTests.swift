import KeyholdKit
import XCTest

/// The localized callouts generated from CLDR (scripts/gen-callouts.py; its `--check` verifies
/// every standard exemplar letter against CLDR itself, and scripts/test runs it).
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

    func testSimulatePolishSecondCandidate() {
        let pl = configuration { $0.callouts.locales = ["pl"] }
        XCTAssertEqual(simulate("d:z t:600 u:z t:50 d:2 t:30 u:2", pl).application.text, "ż")
        XCTAssertEqual(simulate("d:leftshift d:z t:600 u:z t:50 d:2 t:30 u:2 u:leftshift", pl).application.text, "Ż")
    }

    func testNextLocaleCyclesWithFeedbackAndTrace() {
        let c = configuration {
            $0.callouts.locales = ["en", "pl"]
            $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: .nextLocale)]])
        }
        let s = simulate("d:z t:600 u:z d:1 u:1 d:f1 u:f1 d:z t:600 u:z d:1 u:1 d:f1 u:f1 d:z t:600 u:z d:1 u:1", c)
        XCTAssertEqual(s.application.text, "žźž")
        XCTAssertEqual(s.lines("locale").map { $0.split(separator: " ").last.map(String.init) ?? "" }, ["pl", "en"])
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
}
