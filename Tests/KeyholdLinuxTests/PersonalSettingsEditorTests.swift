import Foundation
import Glibc
import KeyholdKit
import KeyholdLinux
import XCTest

/// A user's own settings file changed a key at a time (`keyhold set`, the settings window).
final class PersonalSettingsEditorTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-editor-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw XCTSkip("mkdtemp failed") }
        directory = String(cString: dir)
    }

    override func tearDown() {
        if !directory.isEmpty { _ = try? FileManager.default.removeItem(atPath: directory) }
    }

    /// No file: the first change makes it (and its folder) with the one line; a later one keeps
    /// the user's comments; what is in force is the system's with the file laid over it.
    func testChangesAreWrittenKeepingTheRest() throws {
        let file = directory + "/config/keyhold/config.toml"
        var editor = try PersonalSettingsEditor(file: file, system: KeyholdConfiguration())
        XCTAssertEqual(editor.text, "")
        try editor.set(["callouts", "locales"], to: #"["pl"]"#)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "[callouts]\nlocales = [\"pl\"]\n")

        try "# mine\n[gestures]\nlong_press_ms = 700 # slow\n".write(toFile: file, atomically: true, encoding: .utf8)
        editor = try PersonalSettingsEditor(file: file, system: KeyholdConfiguration())
        try editor.set(["gestures", "long_press_ms"], to: "800")
        try editor.set(["callouts", "locales"], to: #"["pl", "de"]"#)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8),
                       "# mine\n[gestures]\nlong_press_ms = 800\n\n[callouts]\nlocales = [\"pl\", \"de\"]\n")
        XCTAssertEqual(editor.configuration.gestures.longPressDelay, 800)
        XCTAssertEqual(editor.configuration.callouts.locales, ["pl", "de"])
        XCTAssertNil(editor.error)
    }

    /// What the system's file does not let users set, or no valid value, is refused with the
    /// error and not written; a key in a form TOMLEdit does not rewrite likewise.
    func testRefusalsWriteNothing() throws {
        let file = directory + "/config.toml"
        var system = KeyholdConfiguration()
        system.users.allow = ["callouts"]
        try "[gestures]\n".write(toFile: file, atomically: true, encoding: .utf8)
        var editor = try PersonalSettingsEditor(file: file, system: system)
        XCTAssertThrowsError(try editor.set(["gestures", "long_press_ms"], to: "800")) { error in
            guard case .invalid(let errors) = error as? PersonalSettingsEditor.Refusal else { return XCTFail("\(error)") }
            XCTAssertTrue(errors.first?.description.hasPrefix(file + ":") ?? false, "\(errors)")
        }
        XCTAssertThrowsError(try editor.set(["callouts", "order"], to: #""often""#)) { error in
            guard case .invalid = error as? PersonalSettingsEditor.Refusal else { return XCTFail("\(error)") }
        }
        try "callouts.order = \"locale\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        editor = try PersonalSettingsEditor(file: file, system: system)
        XCTAssertThrowsError(try editor.set(["callouts", "order"], to: #""frequent""#)) { error in
            guard case .cannotEdit = error as? PersonalSettingsEditor.Refusal else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "callouts.order = \"locale\"\n")
    }
}
