import KeyholdKit
import SmartQuotes
import XCTest

/// The daemon's keyboard in simulation: the same controller, a simulated application.
final class SmartQuotesTests: XCTestCase {
    func type(_ script: String) throws -> Simulator {
        let s = Simulator(controller: SmartQuotesKeyboardViewController.self)
        _ = try s.run(script)
        return s
    }

    func testQuotesAreTypographic() throws {
        let quote = "d:leftshift d:apostrophe u:apostrophe u:leftshift"
        let s = try type("\(quote) d:h u:h d:i u:i \(quote) d:apostrophe u:apostrophe d:s u:s")
        XCTAssertEqual(s.application.text, "“hi”’s")
        XCTAssertTrue(s.controller?.keyboardActionHandler is SmartQuotesActionHandler)
    }

    func testEverythingElseIsStandard() throws {
        XCTAssertEqual(try type("d:e t:600 u:e d:2 u:2 d:x u:x").application.text, "éx")
        // Held, the quote key still opens the locale's quotation marks.
        XCTAssertEqual(try type("d:leftshift d:apostrophe t:600 u:apostrophe u:leftshift").calloutOpens, 1)
    }
}
