import CSessionIBus
import XCTest

/// Which keys that pass IBus the companion expects the focused program to speak of (its text
/// changed) before it commits a character after them: BackSpace and Delete delete, a key that
/// types a character inserts, modifiers and shortcuts edit nothing (no word would come).
final class IBusKeyEditTests: XCTestCase {
    private let control: UInt32 = 1 << 2, alt: UInt32 = 1 << 3, shift: UInt32 = 1 << 0

    func testDeletingKeys() {
        XCTAssertEqual(khi_key_edit(0xff08, 0), Int32(KHI_EDIT_DELETE), "BackSpace")
        XCTAssertEqual(khi_key_edit(0xffff, 0), Int32(KHI_EDIT_DELETE), "Delete")
    }

    func testKeysThatTypeACharacter() {
        XCTAssertEqual(khi_key_edit(0x65, 0), Int32(KHI_EDIT_INSERT), "e")
        XCTAssertEqual(khi_key_edit(0x45, shift), Int32(KHI_EDIT_INSERT), "shift-E")
        XCTAssertEqual(khi_key_edit(0x20, 0), Int32(KHI_EDIT_INSERT), "space")
        XCTAssertEqual(khi_key_edit(0xe9, 0), Int32(KHI_EDIT_INSERT), "é on a layout that has it")
    }

    func testKeysThatEditNothing() {
        XCTAssertEqual(khi_key_edit(0xffe1, 0), Int32(KHI_EDIT_NONE), "Shift_L")
        XCTAssertEqual(khi_key_edit(0xff0d, 0), Int32(KHI_EDIT_NONE), "Return")
        XCTAssertEqual(khi_key_edit(0xff09, 0), Int32(KHI_EDIT_NONE), "Tab")
        XCTAssertEqual(khi_key_edit(0xff1b, 0), Int32(KHI_EDIT_NONE), "Escape")
        XCTAssertEqual(khi_key_edit(0xff51, 0), Int32(KHI_EDIT_NONE), "Left")
        XCTAssertEqual(khi_key_edit(0x61, control), Int32(KHI_EDIT_NONE), "ctrl-a")
        XCTAssertEqual(khi_key_edit(0x66, alt), Int32(KHI_EDIT_NONE), "alt-f")
    }
}
