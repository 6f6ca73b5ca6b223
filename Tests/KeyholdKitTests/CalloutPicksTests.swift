import KeyholdKit
import XCTest

/// `[callouts] order = "frequent"`: the user's picks, counted as callouts close on a candidate.
/// Fixtures show the order as typed (callout-frequent-order-*).
final class CalloutPicksTests: XCTestCase {
    private func frequent() -> Simulator {
        var configuration = KeyholdConfiguration()
        configuration.callouts.order = .frequent
        return Simulator(configuration: configuration)
    }

    /// A pick by number, by arrows kept with Enter or typed through, a click, a dismissal and the
    /// timeout keeping a candidate count; Esc, a search and a callout closed on its base do not.
    func testWhatCountsAsAPick() throws {
        let s = frequent()
        let picks = s.engine.services.calloutContext.picks
        try s.run("d:e t:600 u:e d:3 u:3")                       // ê by number
        try s.run("d:e t:600 u:e d:right u:right d:enter u:enter") // ê first now: kept with Enter
        try s.run("d:a t:600 u:a d:right u:right d:space u:space") // à typed through
        try s.run("d:o t:600 u:o d:right u:right d:esc u:esc")     // Esc: back to o
        try s.run("d:u t:600 u:u d:enter u:enter")                 // closed on its base
        try s.run("d:i t:600 u:i")
        s.engine.pickCallout(2)                                    // a click on the picker
        try s.run("d:leftshift d:n t:600 u:n u:leftshift")
        s.engine.dismissCallout()                                  // closed on its base
        try s.run("d:c t:600 u:c d:right u:right t:11000")         // left alone on ç
        XCTAssertEqual(s.application.text, "êêà ouïNç")
        XCTAssertEqual(picks.counts, ["ê": 2, "à": 1, "ï": 1, "ç": 1])

        let before = picks.counts
        try s.run("d:rightalt u:rightalt t:50 d:rightalt u:rightalt t:100 d:e d:u u:u d:r u:r d:o u:o d:1 u:1")
        XCTAssertEqual(picks.counts, before, "a search's choice is not a callout pick")
    }

    /// The most picked come first, those picked as often keep the locales' order, the base
    /// stays what Esc gives back; an uppercase pick counts for the lowercase one and back.
    func testTheMostPickedComeFirst() throws {
        let s = frequent()
        try s.run("d:e t:600 u:e d:4 u:4")   // ë
        try s.run("d:e t:600 u:e d:1 u:1")   // ë again: first now
        try s.run("d:e t:600 u:e d:7 u:7")   // ę
        try s.run("d:e t:600 u:e d:esc u:esc")
        XCTAssertEqual(s.lines("callout").last { $0.contains("open") }?.hasSuffix("open e 1ë 2ę 3è 4é 5ê 6ē 7ė"), true, "\(s.lines("callout"))")
        try s.run("d:leftshift d:e t:600 u:e u:leftshift d:esc u:esc")
        XCTAssertEqual(s.lines("callout").last { $0.contains("open") }?.hasSuffix("open E 1Ë 2Ę 3È 4É 5Ê 6Ē 7Ė"), true, "\(s.lines("callout"))")
        XCTAssertEqual(s.application.text, "ëëęeE")
    }

    /// The default order never moves a number, and counts nothing.
    func testTheLocaleOrderNeverMoves() throws {
        let s = Simulator()
        try s.run("d:e t:600 u:e d:4 u:4 d:e t:600 u:e d:4 u:4")
        XCTAssertEqual(s.application.text, "ëë")
        XCTAssertEqual(s.engine.services.calloutContext.picks.counts, [:])
    }

    /// At most `capacity` candidates (the least picked make room) and `maximumCount` each; a
    /// candidate too long is not counted; counts from elsewhere merge case and keep the most picked.
    func testBounds() {
        let picks = CalloutPicks()
        for _ in 0..<3 { picks.record("é") }
        for i in 0..<(CalloutPicks.capacity + 10) { picks.record("\(i)") }
        XCTAssertLessThanOrEqual(picks.counts.count, CalloutPicks.capacity)
        XCTAssertEqual(picks.count(of: "É"), 3, "the most picked stays")
        picks.record(String(repeating: "é", count: 17))
        XCTAssertEqual(picks.count(of: String(repeating: "é", count: 17)), 0)

        var many: [String: Int] = ["É": 2, "é": 5, "ü": 2_000_000, "": 4]
        for i in 0..<400 { many["x\(i)"] = 1 }
        picks.replace(with: many)
        XCTAssertEqual(picks.counts.count, CalloutPicks.capacity)
        XCTAssertEqual(picks.count(of: "é"), 7)
        XCTAssertEqual(picks.count(of: "ü"), CalloutPicks.maximumCount)
        XCTAssertEqual(picks.sorted.prefix(2).map(\.candidate), ["ü", "é"])
        XCTAssertEqual(picks.ordered(["a", "é", "b", "ü"]), ["ü", "é", "a", "b"])
    }
}
