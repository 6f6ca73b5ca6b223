import CSystemd
import Glibc
import XCTest

/// CSystemd opens libsystemd on first use instead of at exec; its functions reach the library.
/// (The test bundle links libsystemd itself, for SleepMonitorTests: that keyhold does not is
/// what `ldd` shows, and run-e2e's daemon tests exercise sd-login and sd-bus through CSystemd.)
final class SystemdLibraryTests: XCTestCase {
    func testCallsReachLibsystemd() {
        XCTAssertEqual(keyhold_systemd_available(), 1, "libsystemd.so.0 opens")
        var bus: OpaquePointer?
        XCTAssertGreaterThanOrEqual(sd_bus_new(&bus), 0)
        XCTAssertNotNil(bus)
        XCTAssertEqual(sd_bus_set_bus_client(bus, 1), 0, "a call on the object libsystemd made")
        XCTAssertNil(sd_bus_unref(bus))
        // sd-login answers for a seat as logind would: an error number, not a crash, where none runs.
        var session: UnsafeMutablePointer<CChar>?
        var uid: uid_t = 0
        let rc = sd_seat_get_active("seat-that-does-not-exist", &session, &uid)
        XCTAssertLessThan(rc, 0)
        XCTAssertNotEqual(rc, -ENOSYS, "reached libsystemd, not the fallback")
    }
}
