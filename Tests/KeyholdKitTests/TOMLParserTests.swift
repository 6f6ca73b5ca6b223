import Foundation
import XCTest
@testable import KeyholdKit

/// Keyhold's TOML 1.0 parser: what it reads, and that every malformed text is an error with a
/// line and column, never a crash (the reason it replaced a parser that aborted on `[{`).
final class TOMLParserTests: XCTestCase {
    func parse(_ text: String) throws -> TOMLTable { try TOMLDocument(text: text).root }

    /// The error for `text`, as `line:column: message`.
    func syntaxError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try TOMLDocument(text: text)
            XCTFail("parsed: \(text.debugDescription)", file: file, line: line)
            return nil
        } catch {
            return error.description
        }
    }

    func testStrings() throws {
        let t = try parse(#"""
            basic = "tab\there \"q\" \\ \u00E9 \U0001F600"
            literal = 'C:\path\{x}'
            multi = """
            one
            two"""
            joined = """a \
                  b"""
            quotes = """x"""""
            lit_multi = '''
            raw \n ''quoted'' '''
            crlf = "a"
            """#.replacingOccurrences(of: "crlf = \"a\"", with: "crlf = \"\"\"a\r\nb\"\"\""))
        XCTAssertEqual(t["basic"]?.string, "tab\there \"q\" \\ é 😀")
        XCTAssertEqual(t["literal"]?.string, #"C:\path\{x}"#)
        XCTAssertEqual(t["multi"]?.string, "one\ntwo")
        XCTAssertEqual(t["joined"]?.string, "a b")
        XCTAssertEqual(t["quotes"]?.string, "x\"\"")
        XCTAssertEqual(t["lit_multi"]?.string, "raw \\n ''quoted'' ")
        XCTAssertEqual(t["crlf"]?.string, "a\nb")
    }

    func testNumbersBooleansAndDates() throws {
        let t = try parse("""
            a = +42
            b = -1_000
            c = 0xDEAD_beef
            d = 0o755
            e = 0b1010
            f = 9223372036854775807
            g = -9223372036854775808
            h = 6.626e-34
            i = -0.5
            j = 1e1_0
            k = inf
            l = -nan
            m = true
            n = 1979-05-27T07:32:00.999-07:00
            o = 1979-05-27 07:32:00
            p = 1979-05-27
            q = 07:32:00
            """)
        XCTAssertEqual(t["a"]?.int, 42)
        XCTAssertEqual(t["b"]?.int, -1000)
        XCTAssertEqual(t["c"]?.int, 0xDEADBEEF)
        XCTAssertEqual(t["d"]?.int, 0o755)
        XCTAssertEqual(t["e"]?.int, 10)
        XCTAssertEqual(t["f"]?.int, Int.max)
        XCTAssertEqual(t["g"]?.int, Int.min)
        XCTAssertEqual(t["h"]?.double, 6.626e-34)
        XCTAssertEqual(t["i"]?.double, -0.5)
        XCTAssertEqual(t["j"]?.double, 1e10)
        XCTAssertEqual(t["k"]?.double, .infinity)
        XCTAssertTrue(t["l"]?.double?.isNaN == true)
        XCTAssertEqual(t["m"]?.bool, true)
        XCTAssertEqual(t["n"]?.kindDescription, "a date-time")
        XCTAssertEqual(t["o"]?.kindDescription, "a date-time")
        XCTAssertEqual(t["p"]?.kindDescription, "a date")
        XCTAssertEqual(t["q"]?.kindDescription, "a time")
    }

    func testTablesKeepTheirWrittenOrder() throws {
        let t = try parse("""
            z = 1
            a.y = 2
            [m]
            [b.c]
            [[arr]]
            x = 1
            [arr.sub]
            [[arr]]
            inline = { q = 1, p.r = 2 }
            """)
        XCTAssertEqual(t.keys, ["z", "a", "m", "b", "arr"])
        XCTAssertEqual(t["a"]?.table?["y"]?.int, 2)
        let arr = try XCTUnwrap(t["arr"]?.array)
        XCTAssertEqual(arr.count, 2)
        XCTAssertEqual(arr[0].table?.keys, ["x", "sub"])
        XCTAssertEqual(arr[1].table?["inline"]?.table?.keys, ["q", "p"])
        XCTAssertEqual(arr[1].table?["inline"]?.table?["p"]?.table?["r"]?.int, 2)
    }

    /// Every rule of TOML 1.0 that a hand-edited file breaks, with where the parser stops.
    func testEveryBrokenRuleIsAnErrorWithItsPlace() {
        let cases: [(String, String)] = [
            ("[{\n", "1:2: expected a key, found '{'"),
            ("[", "1:2: expected a key, found the end of the file"),
            ("[a", "1:3: expected ']' to end the table header, found the end of the file"),
            ("[[a]\n", "1:5: expected ']]' to end the table header, found a newline"),
            ("a = 1\na = 2\n", "2:1: 'a' is defined twice"),
            ("[a]\n[a]\n", "2:1: table [a] is defined twice"),
            ("a.b = 1\n[a]\n", "2:1: table [a] is already defined by dotted keys"),
            ("a = {}\n[a]\n", "2:1: table [a] is already defined as an inline table"),
            ("a = {}\na.b = 1\n", "2:1: 'a' is already defined, and dotted keys cannot add to it"),
            ("[a.b]\n[a]\nb.c = 1\n", "3:1: 'a.b' is already defined, and dotted keys cannot add to it"),
            ("a = []\n[[a]]\n", "2:1: 'a' is already defined as an array, not an array of tables"),
            ("[[a]]\n[a]\n", "2:1: 'a' is an array of tables: its elements are [[a]]"),
            ("a = 1\n[a.b]\n", "2:1: 'a' is already defined as an integer, so it cannot hold tables"),
            ("a = \"x\n", "1:5: unterminated string (a basic string ends on its line; use \"\"\" for several lines)"),
            ("a = 'x\n", "1:5: unterminated string (a literal string ends on its line; use ''' for several lines)"),
            ("a = \"\"\"x", "1:5: unterminated string"),
            ("a = \"\\q\"", "1:6: unknown escape '\\q' (use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX or \\UXXXXXXXX)"),
            ("a = \"\\uD800\"", "1:6: \\uD800 is not a Unicode scalar value"),
            ("a = \"\\u12\"", "1:6: \\u needs 4 hexadecimal digits"),
            ("a = \"x\u{1}\"", "1:7: control character U+0001 in a string (write it as an escape, as \\u0009)"),
            ("a = \"d\0e\"", "1:7: control character U+0000 in a string (write it as an escape, as \\u0009)"),
            ("# \u{7F}\n", "1:3: control character U+007F in a comment"),
            ("a = 1\rb = 2", "1:6: expected a newline after the value, found a newline"),
            ("a = 1 b = 2", "1:7: expected a newline after the value, found 'b'"),
            ("a 1", "1:3: expected '=' after the key, found '1'"),
            ("= 1", "1:1: expected a key, found '='"),
            ("a =", "1:4: expected a value, found the end of the file"),
            ("a = [1,,2]", "1:8: expected a value, found ','"),
            ("a = [1 2]", "1:8: expected ',' or ']' in the array, found '2'"),
            ("a = {b = 1,}", "1:12: expected a key, found '}'"),
            ("a = {b = 1\n}", "1:11: expected ',' or '}' in the inline table, found a newline"),
            ("a = 01", "1:5: '01' is not a value (a string is quoted, a number fits in 64 bits)"),
            ("a = 1__0", "1:5: '1__0' is not a value (a string is quoted, a number fits in 64 bits)"),
            ("a = 9223372036854775808", "1:5: '9223372036854775808' is not a value (a string is quoted, a number fits in 64 bits)"),
            ("a = 1.", "1:5: '1.' is not a value (a string is quoted, a number fits in 64 bits)"),
            ("a = 2023-02-29", "1:5: '2023-02-29' is not a value (a string is quoted, a number fits in 64 bits)"),
            ("a = de", "1:5: 'de' is not a value (a string is quoted, a number fits in 64 bits)"),
            ("a = \"\"\"x\"\"\"\"\"\"", "1:9: too many quotes at the end of a multi-line string"),
            ("é = 1", "1:1: expected a key, found 'é'"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(syntaxError(text), expected, text.debugDescription)
        }
    }

    /// Nesting is bounded, so no text can exhaust the stack.
    func testDeepNestingIsAnErrorNotAStackOverflow() {
        let deep = "a = " + String(repeating: "[", count: 100_000)
        XCTAssertEqual(syntaxError(deep), "1:105: arrays and inline tables nested more than 100 deep")
        let inline = "a = " + String(repeating: "{b=", count: 1_000)
        XCTAssertEqual(syntaxError(inline), "1:305: arrays and inline tables nested more than 100 deep")
        let ok = "a = " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertNoThrow(try TOMLDocument(text: ok))
        let longKey = (0...32).map { _ in "k" }.joined(separator: ".") + " = 1"
        XCTAssertEqual(syntaxError(longKey), "1:1: a key of more than 32 dotted parts")
    }

    func testByteOrderMarkAndCRLF() throws {
        let t = try parse("\u{FEFF}a = 1\r\n[b]\r\nc = 'x' # c\r\n")
        XCTAssertEqual(t["a"]?.int, 1)
        XCTAssertEqual(t["b"]?.table?["c"]?.string, "x")
    }

    /// Columns count Unicode scalars, as editors do.
    func testColumnsCountScalarsNotBytes() {
        XCTAssertEqual(syntaxError("a = \"ééé\" x"), "1:11: expected a newline after the value, found 'x'")
    }

    /// Every input that ever crashed a configuration parser Keyhold used (found by the fuzzer
    /// in `Fuzz/`, or reported) is an error with a line, through the loader the daemon uses.
    func testFuzzRegressionsAreErrors() throws {
        let dir = ConfigurationTests.repositoryRoot.appendingPathComponent("Fuzz/Regressions/configuration")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertGreaterThanOrEqual(files.count, 1)
        XCTAssertTrue(files.contains("toml-parse-key-assert.toml"))
        for name in files {
            let data = try Data(contentsOf: dir.appendingPathComponent(name))
            guard let text = String(data: data, encoding: .utf8) else { continue }
            let errors = ConfigurationLoader.validate(text: text, file: name)
            XCTAssertFalse(errors.isEmpty, "\(name) loaded")
            for error in errors { XCTAssertNotNil(error.line, "\(name): \(error)") }
        }
    }
}
