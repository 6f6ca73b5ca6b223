import KeyholdKit
import XCTest

/// `keyhold set`'s edits of a user's file: one line changed or added, everything else as written.
final class TOMLEditTests: XCTestCase {
    func testAKeyThereGetsItsNewValueAndTheRestStays() throws {
        let text = """
            # My Keyhold settings
            [gestures]
            # slower: my hands
            long_press_ms = 700
            double_tap_ms = 250

            [callouts]
            locales = ["pl"]   # Polish first
            """
        XCTAssertEqual(try TOMLEdit.set(["gestures", "long_press_ms"], to: "800", in: text), """
            # My Keyhold settings
            [gestures]
            # slower: my hands
            long_press_ms = 800
            double_tap_ms = 250

            [callouts]
            locales = ["pl"]   # Polish first

            """)
        XCTAssertEqual(try TOMLEdit.set(["callouts", "locales"], to: #"["pl", "de"]"#, in: text).split(separator: "\n").last,
                       #"locales = ["pl", "de"]"#, "a comment after the value goes with the old value")
    }

    func testANewKeyGoesAtTheEndOfItsTableANewTableAtTheEnd() throws {
        let text = "[gestures]\nlong_press_ms = 700\n\n# callouts below\n[callouts]\nlocales = [\"pl\"]\n"
        XCTAssertEqual(try TOMLEdit.set(["gestures", "double_tap_ms"], to: "250", in: text),
                       "[gestures]\nlong_press_ms = 700\ndouble_tap_ms = 250\n\n# callouts below\n[callouts]\nlocales = [\"pl\"]\n")
        XCTAssertEqual(try TOMLEdit.set(["apps", "foot", "callouts"], to: "false", in: text),
                       text + "\n[apps.foot]\ncallouts = false\n")
        XCTAssertEqual(try TOMLEdit.set(["callouts", "custom", "$"], to: TOMLEdit.literal("€"), in: ""),
                       "[callouts.custom]\n\"$\" = \"€\"\n", "a key that is not bare is quoted; a word alone is a string")
        XCTAssertEqual(try TOMLEdit.set(["callouts", "order"], to: TOMLEdit.literal("frequent"), in: ""), "[callouts]\norder = \"frequent\"\n")
    }

    /// What it cannot rewrite as a line of its table is refused, never guessed.
    func testFormsItDoesNotRewriteAreRefused() {
        for text in ["gestures.long_press_ms = 700\n", "gestures = { long_press_ms = 700 }\n",
                     "[callouts]\nlocales = [\n  \"pl\",\n]\n"] {
            let key = text.hasPrefix("[callouts]") ? ["callouts", "locales"] : ["gestures", "long_press_ms"]
            XCTAssertThrowsError(try TOMLEdit.set(key, to: key[1] == "locales" ? #"["de"]"# : "800", in: text), text)
        }
        XCTAssertThrowsError(try TOMLEdit.set(["long_press_ms"], to: "800", in: ""))
        XCTAssertThrowsError(try TOMLEdit.set(["gestures", "long_press_ms"], to: "[800", in: ""))
    }
}
