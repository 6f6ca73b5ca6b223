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
            let keycode = khw_slot_keycode(Int32(i))
            XCTAssertEqual(xkb_state_key_get_utf32(state, keycode), character.value, "key \(keycode)")
        }
        XCTAssertEqual(xkb_state_key_get_utf32(state, khw_slot_keycode(Int32(characters.count))), 0, "no key beyond the characters")
    }

    /// A key the daemon typed that a program handles after this keyboard's keymap arrived is
    /// read with it (GTK 3's key bindings): the editing keys mean the same in both keymaps, and
    /// no character takes their keycodes, however many are typed.
    func testTheEditingKeysKeepTheirKeycodes() throws {
        let characters = (0..<128).map { Unicode.Scalar(0x100 + $0)! }
        let keymap = try compile(try keymapText(for: characters))
        defer { xkb_keymap_unref(keymap) }
        let expected: [(xkb_keycode_t, UInt32)] = [(9, 0xff1b), (22, 0xff08), (23, 0xff09), (36, 0xff0d), (111, 0xff52),
                                                   (113, 0xff51), (114, 0xff53), (116, 0xff54), (119, 0xffff)]
        for (keycode, keysym) in expected {
            var syms: UnsafePointer<xkb_keysym_t>?
            XCTAssertEqual(xkb_keymap_key_get_syms_by_level(keymap, keycode, 0, 0, &syms), 1, "key \(keycode)")
            XCTAssertEqual(syms?.pointee, keysym, "key \(keycode)")
        }
        let characterKeys = Set((0..<characters.count).map { khw_slot_keycode(Int32($0)) })
        XCTAssertEqual(characterKeys.count, characters.count)
        XCTAssertTrue(characterKeys.isDisjoint(with: expected.map(\.0)))
        XCTAssertLessThanOrEqual(characterKeys.max()!, 255, "X programs (Xwayland) read keycodes up to 255")
        // No keycode left unused: the 128 characters and the 15 kept keys fill 9 to 151.
        XCTAssertEqual(characterKeys.min(), 10)
        XCTAssertEqual(characterKeys.max(), 9 + 128 + 15 - 1)
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
