import Glibc
import SystemPackage

/// KWin's one input-method slot: `[Wayland] InputMethod` in the user's kwinrc, the path of the
/// desktop entry of the program KWin starts as its input method (what System Settings > Keyboard
/// > Virtual Keyboard writes). Where nobody holds it, the companion takes it for Keyhold's entry,
/// once per user (a record in the user's state directory says it did and how the file was), so
/// KDE users need no step; it never takes it from another program, nor again after the user
/// cleared it. `giveBack` undoes it where the slot still holds Keyhold's entry (the package's
/// removal does it for every user). The session bus half (telling KWin, telling the user) is the
/// caller's.
public struct KWinInputMethodSlot: Sendable {
    public static let group = "Wayland", key = "InputMethod"
    /// Keyhold's desktop entry's file name (systemd/keyhold-session-kwin.desktop).
    public static let entryName = "keyhold-session-kwin.desktop"

    public let kwinrc: String
    /// Written when the slot was taken: which entry, whether the group (or the whole file) was
    /// added with it, the (empty) line it replaced.
    public let record: String
    /// Keyhold's desktop entry, the first in the XDG data directories.
    public let entry: String?

    public init(kwinrc: String, record: String, entry: String?) {
        self.kwinrc = kwinrc; self.record = record; self.entry = entry
    }

    /// The user's files from the XDG base directory variables (`environment`: getenv).
    public init(environment: (String) -> String?) {
        let home = environment("HOME") ?? ""
        func base(_ name: String, _ fallback: String) -> String {
            environment(name).flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + fallback
        }
        let data = [base("XDG_DATA_HOME", "/.local/share")]
            + (environment("XDG_DATA_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        self.init(kwinrc: base("XDG_CONFIG_HOME", "/.config") + "/kwinrc",
                  record: base("XDG_STATE_HOME", "/.local/state") + "/keyhold/kwin-input-method",
                  entry: data.map { "\($0)/applications/\(Self.entryName)" }.first { access($0, R_OK) == 0 })
    }

    /// Who holds the slot.
    public enum Holder: Equatable, Sendable {
        case nobody
        /// A Keyhold entry (this one or another installation's).
        case keyhold(String)
        /// Another input method's entry (fcitx5, IBus, maliit, plasma-keyboard): the user's choice.
        case other(String)
    }

    public func holder() -> Holder {
        let value = (try? readWholeTextFile(kwinrc)).flatMap { KConfigFile(text: $0).value(group: Self.group, key: Self.key) } ?? ""
        if value.isEmpty { return .nobody }
        return value.hasSuffix("/" + Self.entryName) ? .keyhold(value) : .other(value)
    }

    /// The input method the user chose outside KWin's slot, as the session's environment names
    /// it for programs (`QT_IM_MODULE=fcitx`, `GTK_IM_MODULE=ibus`, `XMODIFIERS=@im=fcitx`): that
    /// variable, or nil. Keyhold takes no slot from such a choice either.
    public static func inputMethodChosenByEnvironment(_ environment: (String) -> String?) -> String? {
        for name in ["QT_IM_MODULE", "GTK_IM_MODULE", "XMODIFIERS", "SDL_IM_MODULE"] {
            guard let value = environment(name)?.lowercased() else { continue }
            if value.contains("ibus") || value.contains("fcitx") { return "\(name)=\(value)" }
        }
        return nil
    }

    /// Whether the slot was taken for this user before (and not given back since).
    public var takenBefore: Bool { access(record, F_OK) == 0 }

    public enum TakeOutcome: Equatable, Sendable {
        /// Keyhold's entry is in kwinrc now: KWin must be told.
        case took(entry: String)
        /// Keyhold's entry (this or another installation's) is there already.
        case heldByKeyhold(String)
        /// Another input method's: the user's choice.
        case heldByOther(String)
        /// Nobody holds it, but Keyhold took it before: the user cleared it since.
        case clearedByUser
        case noEntry
        case failed(String)
    }

    /// Takes the slot for Keyhold's entry where nobody holds it and it was never taken before
    /// (`again`: also after the user cleared it, as asked on the command line).
    public func takeIfFree(again: Bool = false) -> TakeOutcome {
        switch holder() {
        case .keyhold(let entry): return .heldByKeyhold(entry)
        case .other(let entry): return .heldByOther(entry)
        case .nobody: break
        }
        if takenBefore && !again { return .clearedByUser }
        guard let entry else { return .noEntry }
        var text = "", created = false
        do { text = try readWholeTextFile(kwinrc) } catch .system(.noSuchFileOrDirectory) { created = true } catch { return .failed("\(kwinrc): \(error)") }
        var file = KConfigFile(text: text)
        let addsGroup = file.hasGroup(Self.group) ? "existing" : file.addsBlankLineBefore(Self.group) ? "added after a blank line" : "added"
        let replaced = file.set(group: Self.group, key: Self.key, value: entry)
        // The record first: a crash between the two leaves a record and no entry, which
        // counts as cleared (never an entry without a record, which would never be given back).
        do {
            try replaceFile(record, with: "# keyhold-session took KWin's input-method slot (kwinrc [\(Self.group)] \(Self.key)) for Keyhold\nentry=\(entry)\ngroup=\(addsGroup)\n" + (created ? "file=created\n" : "") + (replaced.map { "replaced=\($0)\n" } ?? ""))
            try replaceFile(kwinrc, with: file.text)
        } catch {
            return .failed("\(error)")
        }
        return .took(entry: entry)
    }

    public enum GiveBackOutcome: Equatable, Sendable {
        /// kwinrc is as it was before: KWin must be told.
        case gaveBack
        /// Keyhold never took it (or gave it back already).
        case notTaken
        /// The user chose another since: nothing to give back.
        case changedByUser
        case failed(String)
    }

    /// Gives the slot back where it still holds the entry Keyhold put there: the line it replaced
    /// put back, else the key removed, and the group too where it came with it and holds nothing
    /// else; the record removed.
    public func giveBack() -> GiveBackOutcome {
        guard let recorded = try? readWholeTextFile(record) else { return .notTaken }
        let fields = Dictionary(recorded.split(separator: "\n").compactMap { line -> (String, String)? in
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { $1 })
        let text = (try? readWholeTextFile(kwinrc)) ?? ""
        var file = KConfigFile(text: text)
        let outcome: GiveBackOutcome
        if let entry = fields["entry"], file.value(group: Self.group, key: Self.key) == entry {
            if let replaced = fields["replaced"] {
                file.set(group: Self.group, key: Self.key, line: replaced)
            } else {
                file.remove(group: Self.group, key: Self.key, removingEmptyGroup: fields["group"]?.hasPrefix("added") ?? false,
                            andBlankLineBefore: fields["group"] == "added after a blank line")
            }
            if file.text.isEmpty && fields["file"] == "created" {
                unlink(kwinrc)
            } else {
                do { try replaceFile(kwinrc, with: file.text) } catch { return .failed("\(error)") }
            }
            outcome = .gaveBack
        } else {
            outcome = .changedByUser
        }
        unlink(record)
        return outcome
    }
}
