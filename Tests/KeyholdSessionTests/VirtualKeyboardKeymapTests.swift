import CSessionWayland
import CXKBCommon
import Glibc
import XCTest

/// The keymap keyhold-session gives its Wayland virtual keyboard: compiled as a compositor
/// compiles it (xkbcommon), each character is on its key, and the keymap the compositor sends
/// back to clients still carries the name the companion recognises as its own.
final class VirtualKeyboardKeymapTests: XCTestCase {
    private func compile(_ text: String) throws -> OpaquePointer {
        let context = try XCTUnwrap(xkb_context_new(XKB_CONTEXT_NO_FLAGS))
        defer { xkb_context_unref(context) }
        return try XCTUnwrap(xkb_keymap_new_from_string(context, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS),
                             "xkbcommon rejects the keymap:\n\(text)")
    }

    private func keymapText(for characters: [Unicode.Scalar]) throws -> String {
        let keysyms = characters.map { xkb_utf32_to_keysym($0.value) }
        XCTAssertFalse(keysyms.contains(0))
        let text = try XCTUnwrap(khw_keymap_for(keysyms, Int32(keysyms.count)))
        defer { free(text) }
        return String(cString: text)
    }

    func testEveryCharacterIsOnItsOwnKey() throws {
        let characters: [Unicode.Scalar] = ["é", "ł", "€", "ẞ", "\u{1F600}", "\u{0301}", "a"]
        let keymap = try compile(try keymapText(for: characters))
        defer { xkb_keymap_unref(keymap) }
        let state = try XCTUnwrap(xkb_state_new(keymap))
        defer { xkb_state_unref(state) }
        for (i, character) in characters.enumerated() {
            let keycode = xkb_keycode_t(9 + i)
            XCTAssertEqual(xkb_state_key_get_utf32(state, keycode), character.value, "key \(keycode)")
        }
        XCTAssertEqual(xkb_state_key_get_utf32(state, xkb_keycode_t(9 + characters.count)), 0, "no key beyond the characters")
    }

    func testTheCompiledKeymapKeepsItsName() throws {
        let keymap = try compile(try keymapText(for: ["é"]))
        defer { xkb_keymap_unref(keymap) }
        let serialized = try XCTUnwrap(xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1))
        defer { free(serialized) }
        XCTAssertTrue(String(cString: serialized).contains("xkb_keycodes \"keyhold-session\""))
    }

    func testAnEmptyKeymapCompiles() throws {
        xkb_keymap_unref(try compile(try keymapText(for: [])))
    }
}
