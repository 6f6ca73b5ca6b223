import Foundation
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// Reading configuration files (KeyholdKit only parses text).
final class ConfigurationFileTests: XCTestCase {
    func testReadingFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyhold-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let missing = dir.appendingPathComponent("missing.toml").path
        XCTAssertNil(try ConfigurationLoader.loadIfPresent(path: missing))
        do {
            _ = try ConfigurationLoader.load(path: missing)
            XCTFail("loaded a missing file")
        } catch {
            XCTAssertEqual(error.file, missing)
            XCTAssertNil(error.line)
            XCTAssertEqual(error.description, "\(missing): cannot read the file: No such file or directory")
        }

        let good = dir.appendingPathComponent("good.toml")
        try Data("[gestures]\nlong_press_ms = 450\n".utf8).write(to: good)
        XCTAssertEqual(try ConfigurationLoader.load(path: good.path).gestures.longPressDelay, 450)
        XCTAssertEqual(try ConfigurationLoader.loadIfPresent(path: good.path)?.gestures.longPressDelay, 450)

        let bad = dir.appendingPathComponent("bad.toml")
        try Data("[output]\n\nunicode_method = \"compse\"\n".utf8).write(to: bad)
        do {
            _ = try ConfigurationLoader.load(path: bad.path)
            XCTFail("loaded a bad file")
        } catch {
            XCTAssertEqual(error.description, "\(bad.path):3: output.unicode_method: unknown unicode method 'compse' (one of auto, console, ctrl-shift-u, compose, session) (did you mean 'compose'?)")
            print("example:", error)
        }

        let latin1 = dir.appendingPathComponent("latin1.toml")
        try Data([0x23, 0x20, 0xE9, 0x0A]).write(to: latin1)
        XCTAssertThrowsError(try ConfigurationLoader.load(path: latin1.path)) { error in
            XCTAssertEqual((error as? ConfigurationError)?.message, "the file is not valid UTF-8")
        }
        XCTAssertThrowsError(try ConfigurationLoader.load(path: dir.path)) { error in
            XCTAssertEqual((error as? ConfigurationError)?.message, "cannot read the file: Is a directory")
        }
    }

    func testTheOneFileReaderBoundsWhatItReads() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyhold-read-\(getpid())").path
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x61, count: 100)))
        XCTAssertEqual(try readWholeFile(path, limit: 100).count, 100)
        XCTAssertThrowsError(try readWholeFile(path, limit: 99)) { XCTAssertEqual($0 as? FileReadError, .tooLarge(limit: 99)) }
        XCTAssertEqual(try readWholeTextFile(path), String(repeating: "a", count: 100))
        XCTAssertThrowsError(try readWholeFile(path + ".missing")) {
            XCTAssertEqual(($0 as? FileReadError)?.description, "No such file or directory")
        }
    }
}
