import XCTest
@testable import KeyholdKit

final class CharacterSearchTests: XCTestCase {
    private let index = CharacterSearchIndex.english

    private func find(_ query: String, _ n: Int = 9, in index: CharacterSearchIndex = .english) -> [String] {
        var results = CharacterSearchResults(capacity: n)
        index.search(CharacterSearchQuery(query), into: &results)
        return (0..<results.count).map { index.text(results[$0]) }
    }

    func testTheIssuesExamplesComeFirst() {
        XCTAssertEqual(find("euro").first, "€")
        XCTAssertEqual(find("heart").first, "❤️")
        XCTAssertEqual(find("half").first, "½")
        XCTAssertTrue(find("arrow").allSatisfy { index.name(of: $0).contains("arrow") || $0 == "▶️" }, "\(find("arrow"))")
        XCTAssertEqual(find("rightwards arrow").first, "→")
    }

    func testWordsMatchAsPrefixesInAnyOrderAndCase() {
        XCTAssertEqual(find("e acute small").first, "é")
        XCTAssertEqual(find("LATIN SMALL LETTER E WITH ACUTE").first, "é")
        XCTAssertTrue(find("eur").contains("€"))
        XCTAssertEqual(find("Grüße").count, 0, "no character has ü or ß folded into its name's words")
    }

    func testAQueryIsFoldedAsTheTableIs() {
        var query = CharacterSearchQuery("Cœur  Rouge!")
        XCTAssertEqual(query.text, "Cœur  Rouge!")
        XCTAssertEqual(query.wordCount, 2)
        XCTAssertEqual(query.withWord(0) { String(decoding: $0, as: UTF8.self) }, "coeur")
        XCTAssertEqual(query.withWord(1) { String(decoding: $0, as: UTF8.self) }, "rouge")
        query.deleteLast()
        query.deleteLast()
        XCTAssertEqual(query.text, "Cœur  Roug")
        XCTAssertEqual(query.withWord(1) { String(decoding: $0, as: UTF8.self) }, "roug")
        XCTAssertEqual(CharacterSearchQuery("é").withWord(0) { String(decoding: $0, as: UTF8.self) }, "e")
    }

    func testAQueryTakesNoMoreThanItsLimits() {
        var query = CharacterSearchQuery("a b c d e f g h ")
        XCTAssertEqual(query.wordCount, CharacterSearchQuery.maxWords)
        XCTAssertFalse(query.append("i"), "no ninth word")
        XCTAssertEqual(query.wordCount, CharacterSearchQuery.maxWords)
        query.deleteLast()
        XCTAssertTrue(query.append("x"), "the eighth word goes on")
        var long = CharacterSearchQuery()
        for _ in 0..<CharacterSearchQuery.maxBytes { XCTAssertTrue(long.append("z")) }
        XCTAssertFalse(long.append("z"))
    }

    func testNamesAreCLDRsWhereItHasOneElseUnicodes() {
        XCTAssertEqual(index.name(of: "€"), "euro")
        XCTAssertEqual(index.name(of: "é"), "latin small letter e with acute")
        XCTAssertEqual(index.name(of: "ꙮ"), "cyrillic letter multiocular o")
        // what the pickers show above a callout: the base and its candidates, capitals too
        XCTAssertEqual(index.name(of: "e"), "latin small letter e")
        XCTAssertEqual(index.name(of: "È"), "latin capital letter e with grave")
        XCTAssertEqual(index.name(of: "ß"), "latin small letter sharp s")
    }

    func testTheCalloutLocalesLanguagesFindAndNameToo() {
        let french = CharacterSearchIndex.localized(["fr"])
        XCTAssertEqual(find("cœur", in: french).first, "❤️")
        XCTAssertEqual(find("coeur rouge", in: french), ["❤️"], "typed without the œ too")
        XCTAssertEqual(find("billet euros", in: french).first, "💶")
        XCTAssertEqual(find("euro", in: french).first, "€", "English words still find")
        XCTAssertEqual(find("heart", in: french).first, "❤️")
        XCTAssertEqual(find("cœur"), [], "English alone has no French words")
        XCTAssertEqual(french.name(of: "💶"), "billet en euros")
        XCTAssertEqual(french.name(of: "→"), "flèche vers la droite")
        XCTAssertEqual(french.name(of: "é"), "latin small letter e with acute", "CLDR names no letters: Unicode's name")
        XCTAssertEqual(CharacterSearchIndex.english.name(of: "💶"), "euro banknote")
        // The first locale's name, the others' words; a regional locale its own file's, then its language's.
        let germanFrench = CharacterSearchIndex.localized(["de", "fr"])
        XCTAssertEqual(germanFrench.name(of: "❤️"), "rotes Herz")
        XCTAssertEqual(find("herz", in: germanFrench).first, "❤️")
        XCTAssertEqual(find("coeur", in: germanFrench).first, "❤️")
        XCTAssertEqual(CharacterSearchIndex.localized(["de-CH"]).name(of: ")"), "schliessende Klammer")
        XCTAssertEqual(CharacterSearchIndex.localized(["de-CH"]).name(of: "❤️"), "rotes Herz")
        XCTAssertEqual(CharacterSearchIndex.localized(["pl"]).name(of: "❤️"), "czerwone serce")
        XCTAssertTrue(find("milosc", in: .localized(["pl"])).contains("❤️"), "miłość, typed without its accents")
        // Made once for a list of languages (and kept until another's is made); English for
        // locales CLDR names nothing in.
        let again = CharacterSearchIndex.localized(["fr"])
        XCTAssertTrue(CharacterSearchIndex.localized(["fr-CH"]) === again)
        XCTAssertTrue(CharacterSearchIndex.localized(["en", "eo", "my-own"]) === CharacterSearchIndex.english)
        XCTAssertEqual(french.count, CharacterSearchIndex.english.count)
    }

    func testResultsKeepTheBestAndCountTheRest() {
        var results = CharacterSearchResults(capacity: 3)
        index.search(CharacterSearchQuery("arrow"), into: &results)
        XCTAssertEqual(results.count, 3)
        XCTAssertGreaterThan(results.matched, 100)
        var all = CharacterSearchResults(capacity: results.matched)
        index.search(CharacterSearchQuery("arrow"), into: &all)
        XCTAssertEqual((0..<3).map { results[$0] }, (0..<3).map { all[$0] })
        index.search(CharacterSearchQuery(""), into: &results)
        XCTAssertEqual(results.count, 0)
        index.search(CharacterSearchQuery("zzzzqqq"), into: &results)
        XCTAssertEqual(results.count, 0)
    }
}

/// The search in the engine, beyond the fixtures (Tests/Fixtures/simulate/search-*.txt): what the
/// session asks of it (a click on a candidate, a click elsewhere) and what a custom handler that
/// ignores it cannot keep it from doing.
final class EngineSearchTests: XCTestCase {
    private let open = "d:rightalt u:rightalt t:100 d:rightalt u:rightalt t:100 d:e u:e d:u u:u d:r u:r d:o u:o"

    func testAClickOnACandidateTypesIt() {
        let simulator = simulate(open)
        simulator.engine.pickCallout(2)
        XCTAssertEqual(simulator.application.text, "💶")
        XCTAssertFalse(simulator.engine.services.searchContext.isOpen)
    }

    func testAClickElsewhereClosesItTypingNothing() {
        let simulator = simulate(open)
        simulator.engine.dismissCallout()
        XCTAssertFalse(simulator.engine.services.searchContext.isOpen)
        _ = simulator.run(try! SimulationScript("d:x u:x"), startingAt: .milliseconds(1000))
        XCTAssertEqual(simulator.application.text, "x")
    }

    func testPausingClosesIt() {
        let simulator = simulate(open)
        simulator.engine.isPaused = true
        XCTAssertFalse(simulator.engine.services.searchContext.isOpen)
    }

    func testEscClosesItEvenWithAHandlerThatIgnoresSearches() {
        final class Ignoring: StandardKeyboardActionHandler {
            override func handle(_ intent: CharacterSearchIntent) {}
        }
        let simulator = Simulator()
        installActionHandler(in: simulator.engine.services, Ignoring.init)
        _ = try? simulator.run(open + " d:esc u:esc d:x u:x")
        XCTAssertFalse(simulator.engine.services.searchContext.isOpen)
        XCTAssertEqual(simulator.application.text, "x")
    }

    func testTheRecentAreForgotten() {
        let simulator = simulate(open + " d:1 u:1")
        XCTAssertEqual(simulator.engine.services.searchContext.recent, ["€"])
        simulator.engine.services.searchContext.forgetRecent()
        XCTAssertEqual(simulator.engine.services.searchContext.recent, [])
    }
}
