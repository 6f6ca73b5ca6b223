import Foundation
import XCTest

/// Runs the built `keyhold` executable, as a user would.
final class CommandLineTests: XCTestCase {
    /// The test runner sits next to the executable in the build products folder.
    var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keyhold")
    }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("\(binary.path) is not built (swift build --build-tests builds it)")
        }
    }

    func keyhold(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out; process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    func testSimulatePrintsTypedText() throws {
        XCTAssertEqual(try keyhold("simulate", "d:e t:600 u:e t:50 d:2 t:30 u:2").stdout, "é\n")
        XCTAssertEqual(try keyhold("simulate", "--locale", "pl", "d:z t:600 u:z t:50 d:2 t:30 u:2").stdout, "ż\n")
        let traced = try keyhold("simulate", "--trace", "d:e t:600 u:e d:esc u:esc")
        XCTAssertEqual(traced.stdout, "e\n")
        XCTAssertTrue(traced.stderr.contains("500ms callout open e 1è 2é 3ê 4ë 5ē 6ė 7ę"), traced.stderr)
        let bad = try keyhold("simulate", "d:e t:x")
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "keyhold simulate: step 2 't:x': time must be a whole number of milliseconds\n")
    }

    /// `[output] layout` applies to simulate too: on AZERTY the Q key types a and 2 types é.
    func testSimulateUsesTheConfiguredLayout() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keyhold-fr-\(getpid()).toml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "[output]\nlayout = \"fr\"\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try keyhold("simulate", "--config", file.path, "d:q u:q d:2 u:2").stdout, "aé\n")
        XCTAssertEqual(try keyhold("simulate", "d:q u:q d:2 u:2").stdout, "q2\n")
        let unknown = try keyhold("simulate", "--locale", "xx", "d:e u:e")
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.stderr, "keyhold simulate: unknown callout locale 'xx'\n")
    }

    func testCheckExitCodes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyhold-cli-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.toml"), bad = dir.appendingPathComponent("bad.toml")
        try "[bindings]\ncapslock = \"escape\"\n".write(to: good, atomically: true, encoding: .utf8)
        try "[gestures]\nlong_pres_ms = 3\n".write(to: bad, atomically: true, encoding: .utf8)
        let ok = try keyhold("check", good.path)
        XCTAssertEqual(ok.status, 0)
        XCTAssertEqual(ok.stdout, "\(good.path): ok\n")
        let broken = try keyhold("check", bad.path)
        XCTAssertEqual(broken.status, 2)
        XCTAssertEqual(broken.stderr, "\(bad.path):2: gestures.long_pres_ms: unknown key (did you mean 'long_press_ms'?)\n")
        XCTAssertEqual(try keyhold("check", dir.appendingPathComponent("missing.toml").path).status, 2)
    }

    /// Inputs that once crashed the configuration parser: `keyhold check` names the file and the
    /// line and exits 2, as for any other mistake.
    func testCheckOfFilesThatOnceCrashedTheParser() throws {
        let dir = ConfigurationTests.repositoryRoot.appendingPathComponent("Fuzz/Regressions/configuration")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
            let path = dir.appendingPathComponent(name).path
            let result = try keyhold("check", path)
            XCTAssertEqual(result.status, 2, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("\(path):"), "\(name): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("crashed"), "\(name): \(result.stderr)")
        }
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("keyhold-brace-\(getpid()).toml")
        defer { try? FileManager.default.removeItem(at: bad) }
        try "[{\n".write(to: bad, atomically: true, encoding: .utf8)
        let result = try keyhold("check", bad.path)
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "\(bad.path):1:2: syntax error: expected a key, found '{'\n")
        // The daemon refuses to start on it, saying why, with the status systemd does not restart on.
        let run = try keyhold("run", "--config", bad.path, "--control", "none")
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, "keyhold: \(bad.path):1:2: syntax error: expected a key, found '{'\n")
    }

    /// Scripts that once crashed `keyhold simulate` (found by `scripts/fuzz simulation-script`):
    /// each is an error naming its step, exit 2.
    func testSimulateScriptsThatOnceCrashed() throws {
        let dir = ConfigurationTests.repositoryRoot.appendingPathComponent("Fuzz/Regressions/simulation-script")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertTrue(files.contains("time-overflow.txt"))
        for name in files {
            let script = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            let result = try keyhold("simulate", script)
            XCTAssertEqual(result.status, 2, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("keyhold simulate: step "), "\(name): \(result.stderr)")
        }
        XCTAssertEqual(try keyhold("simulate", "d:e t:20155555555555530 u:2").stderr,
                       "keyhold simulate: step 2 't:20155555555555530': time is at most 86400000 ms (a day) per step\n")
    }

    func testComposeFileCoversCallouts() throws {
        let table = try keyhold("compose-file").stdout
        XCTAssertTrue(table.contains("<Multi_key> <Multi_key> <0> <0> <0> <0> <e> <9> : \"é\" U00E9"))
        XCTAssertTrue(table.contains(": \"ẞ\" U1E9E"))
    }
}
