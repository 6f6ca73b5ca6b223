import KeyholdLinux
import XCTest

/// `keyhold run`'s own options are read without ArgumentParser; anything else is left to it.
final class DaemonOptionsTests: XCTestCase {
    func parse(_ line: String) -> DaemonOptions? {
        DaemonOptions.fastPath(ArraySlice(line.split(separator: " ").map(String.init)))
    }

    func testRunsOwnOptions() {
        XCTAssertEqual(parse("run"), DaemonOptions())
        XCTAssertEqual(parse("run --config /etc/k.toml --control none --verbose --lock-memory"),
                       DaemonOptions(config: "/etc/k.toml", control: "none", verbose: true, lockMemory: true))
        XCTAssertEqual(parse("run --config=/a=b.toml --lock-memory"), DaemonOptions(config: "/a=b.toml", lockMemory: true))
    }

    func testAnythingElseGoesToArgumentParser() {
        for line in ["", "status", "run --help", "run -h", "run --config", "run --config --verbose", "run --config=",
                     "run --verbose=yes", "run --verbose --verbose", "run --config a --config b", "run extra",
                     "run --lock-memory --colour"] {
            XCTAssertNil(parse(line), line)
        }
    }
}
