import CSessionIBus
import XCTest

/// Which key events the companion counts as keys that passed IBus before it commits a character:
/// each transition the daemon wrote, never the desktop's autorepeat of a held key (mutter hands
/// every repeat to the input method), which would let a picked character overtake its Backspace.
final class IBusKeyCountTests: XCTestCase {
    private let e: UInt32 = 18, x: UInt32 = 45
    /// The backend's state, as the companion owns it (zeroed: no key down).
    private var state = khi_state()

    func testPressAndReleaseCountRepeatsDoNot() {
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 1, "a press")
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 0, "the desktop's repeat of the held key")
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 0)
        XCTAssertEqual(khi_count_key_event(&state, e, 1), 1, "its release")
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 1, "pressed again")
    }

    func testKeysAreTrackedApart() {
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 1)
        XCTAssertEqual(khi_count_key_event(&state, x, 0), 1, "another key held over it (rollover)")
        XCTAssertEqual(khi_count_key_event(&state, x, 0), 0)
        XCTAssertEqual(khi_count_key_event(&state, e, 1), 1)
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 1)
    }

    func testAReleaseWithoutItsPressCounts() {
        // The press came before the companion connected: the daemon still wrote the release.
        XCTAssertEqual(khi_count_key_event(&state, x, 1), 1)
    }

    func testAFocusChangeForgetsKeysDown() {
        // A key released while no text input had the focus never reaches IBus; its next press
        // must count, or the next character would wait for a key that already passed.
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 1)
        khi_forget_keys_down(&state)
        XCTAssertEqual(khi_count_key_event(&state, e, 0), 1)
    }

    func testKeycodesBeyondTheTableCount() {
        XCTAssertEqual(khi_count_key_event(&state, 5000, 0), 1)
        XCTAssertEqual(khi_count_key_event(&state, 5000, 0), 1)
    }
}
