import Glibc
@testable import KeyholdLinux
import XCTest

/// KWin's input-method slot in a user's kwinrc: taken where free, once, never from another input
/// method, given back leaving the file as it was (every other line byte for byte).
final class KWinInputMethodSlotTests: XCTestCase {
    private var home = ""
    private var slot: KWinInputMethodSlot!
    private let entry = "/usr/share/applications/keyhold-session-kwin.desktop"

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-kwinrc-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("mkdtemp failed") }
        home = String(cString: made)
        slot = KWinInputMethodSlot(kwinrc: home + "/.config/kwinrc", record: home + "/.local/state/keyhold/kwin-input-method", entry: entry)
    }

    override func tearDown() {
        removeTree(home)
    }

    private func kwinrc() -> String? { try? readWholeTextFile(slot.kwinrc) }
    private func write(_ text: String) throws { try replaceFile(slot.kwinrc, with: text) }

    func testKConfigLinesKeepTheirBytesAndKeysAreFoundWithFlags() {
        var file = KConfigFile(text: "# KWin\n[Wayland]\nInputMethod[$e] = /opt/x.desktop \nVirtualKeyboardEnabled=true\n\n[Xwayland]\nScale=1\n")
        XCTAssertEqual(file.value(group: "Wayland", key: "InputMethod"), "/opt/x.desktop")
        XCTAssertNil(file.value(group: "Xwayland", key: "InputMethod"))
        XCTAssertEqual(file.value(group: "Xwayland", key: "Scale"), "1")
        file.set(group: "Xwayland", key: "Scale", value: "2")
        XCTAssertEqual(file.text, "# KWin\n[Wayland]\nInputMethod[$e] = /opt/x.desktop \nVirtualKeyboardEnabled=true\n\n[Xwayland]\nScale=2\n")
        XCTAssertEqual(KConfigFile(text: "a=1").text, "a=1\n")
        XCTAssertEqual(KConfigFile(text: "").text, "")
    }

    func testTakenWhereNoFileIsThenGivenBackToNoFileContent() throws {
        XCTAssertEqual(slot.holder(), .nobody)
        XCTAssertEqual(slot.takeIfFree(), .took(entry: entry))
        XCTAssertEqual(kwinrc(), "[Wayland]\nInputMethod=\(entry)\n")
        XCTAssertEqual(slot.holder(), .keyhold(entry))
        XCTAssertEqual(slot.takeIfFree(), .heldByKeyhold(entry))
        XCTAssertEqual(slot.giveBack(), .gaveBack)
        XCTAssertNil(kwinrc(), "made by taking the slot, it goes with it")
        XCTAssertFalse(slot.takenBefore)
    }

    func testAnExistingFileIsAsItWasAfterGivingBack() throws {
        for before in ["[General]\nfoo=bar\n", "[General]\nfoo=bar", "[Wayland]\nVirtualKeyboardEnabled=false\n\n[Plugins]\nx=1\n",
                       "[Wayland]\nInputMethod=\n", "# c\n\n"] {
            try write(before)
            XCTAssertEqual(slot.takeIfFree(), .took(entry: entry), before)
            XCTAssertEqual(slot.holder(), .keyhold(entry), before)
            XCTAssertEqual(slot.giveBack(), .gaveBack, before)
            let expected = before.hasSuffix("\n") ? before : before + "\n"
            XCTAssertEqual(kwinrc(), expected, before)
        }
    }

    func testAnotherInputMethodIsNeverReplacedNorTakenBack() throws {
        try write("[Wayland]\nInputMethod=/usr/share/applications/org.fcitx.Fcitx5.desktop\n")
        XCTAssertEqual(slot.takeIfFree(), .heldByOther("/usr/share/applications/org.fcitx.Fcitx5.desktop"))
        XCTAssertEqual(slot.takeIfFree(again: true), .heldByOther("/usr/share/applications/org.fcitx.Fcitx5.desktop"))
        XCTAssertEqual(slot.giveBack(), .notTaken)
        XCTAssertEqual(kwinrc(), "[Wayland]\nInputMethod=/usr/share/applications/org.fcitx.Fcitx5.desktop\n")
        // Taken, then the user chose fcitx5: giving back leaves their choice.
        try write("")
        XCTAssertEqual(slot.takeIfFree(), .took(entry: entry))
        try write("[Wayland]\nInputMethod=/usr/share/applications/org.fcitx.Fcitx5.desktop\n")
        XCTAssertEqual(slot.giveBack(), .changedByUser)
        XCTAssertEqual(kwinrc(), "[Wayland]\nInputMethod=/usr/share/applications/org.fcitx.Fcitx5.desktop\n")
    }

    func testASlotTheUserClearedIsNotTakenAgainUnlessAsked() throws {
        XCTAssertEqual(slot.takeIfFree(), .took(entry: entry))
        try write("[Wayland]\nInputMethod=\n")   // System Settings: None
        XCTAssertEqual(slot.takeIfFree(), .clearedByUser)
        XCTAssertEqual(kwinrc(), "[Wayland]\nInputMethod=\n")
        XCTAssertEqual(slot.takeIfFree(again: true), .took(entry: entry))
    }

    func testWithoutKeyholdsEntryNothingIsWritten() {
        let bare = KWinInputMethodSlot(kwinrc: slot.kwinrc, record: slot.record, entry: nil)
        XCTAssertEqual(bare.takeIfFree(), .noEntry)
        XCTAssertNil(kwinrc())
        XCTAssertFalse(bare.takenBefore)
    }

    func testALinkedKwinrcStaysALink() throws {
        try write("[General]\n")
        let target = home + "/dotfiles-kwinrc"
        XCTAssertEqual(rename(slot.kwinrc, target), 0)
        XCTAssertEqual(symlink(target, slot.kwinrc), 0)
        XCTAssertEqual(slot.takeIfFree(), .took(entry: entry))
        var status = stat()
        XCTAssertEqual(lstat(slot.kwinrc, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFLNK)
        XCTAssertEqual(try readWholeTextFile(target), "[General]\n\n[Wayland]\nInputMethod=\(entry)\n")
    }

    func testAnInputMethodTheSessionsEnvironmentNamesIsTheUsersChoice() {
        func chosen(_ environment: [String: String]) -> String? { KWinInputMethodSlot.inputMethodChosenByEnvironment { environment[$0] } }
        XCTAssertEqual(chosen(["QT_IM_MODULE": "fcitx"]), "QT_IM_MODULE=fcitx")
        XCTAssertEqual(chosen(["GTK_IM_MODULE": "wayland", "XMODIFIERS": "@im=ibus"]), "XMODIFIERS=@im=ibus")
        XCTAssertNil(chosen(["QT_IM_MODULE": "wayland", "GTK_IM_MODULE": "wayland"]), "KWin's own way in")
        XCTAssertNil(chosen([:]))
    }

    func testTheEntryIsFoundInTheXDGDataDirectories() throws {
        let apps = home + "/share/applications"
        try replaceFile(apps + "/" + KWinInputMethodSlot.entryName, with: "[Desktop Entry]\n")
        let environment = ["HOME": home, "XDG_DATA_DIRS": "/nonexistent:" + home + "/share"]
        let found = KWinInputMethodSlot { environment[$0] }
        XCTAssertEqual(found.entry, apps + "/" + KWinInputMethodSlot.entryName)
        XCTAssertEqual(found.kwinrc, home + "/.config/kwinrc")
        XCTAssertEqual(found.record, home + "/.local/state/keyhold/kwin-input-method")
    }
}

/// rm -r of a test's temporary tree.
private func removeTree(_ path: String) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    if status.st_mode & S_IFMT == S_IFDIR, let names = opendirPath(path) {
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}
