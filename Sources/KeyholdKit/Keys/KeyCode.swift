/// One value per key code (`KeyCode.count` of them), stored inline: an entry changes with no
/// heap buffer behind it and no uniqueness check, as the tables a key passes through want.
public typealias PerKeyCode<Element> = InlineArray<0x300, Element>

/// An evdev key code (`KEY_*` in linux/input-event-codes.h). KeyholdKit never includes Linux
/// headers, so the codes live here as plain numbers with their kernel names.
public struct KeyCode: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    /// One past the largest key code the kernel defines (`KEY_CNT`); per-key tables use this size.
    public static let count = 0x300

    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// Looks a key up by its evdev name without `KEY_`, case-insensitive (`e`, `leftshift`, `KEY_ESC`).
    /// A scan of the names, not a dictionary: a configuration names a handful of keys, and
    /// hashing every name into a dictionary was 400,000 instructions of each daemon start.
    public init?(name: String) {
        var key = name.lowercased()
        if key.hasPrefix("key_") { key.removeFirst(4) }
        if let entry = KeyCode.nameTable.first(where: { $0.0 == key }) {
            rawValue = entry.1
        } else if let alias = KeyCode.aliases.first(where: { $0.0 == key }),
                  let entry = KeyCode.nameTable.first(where: { $0.0 == alias.1 }) {
            rawValue = entry.1
        } else {
            return nil
        }
    }

    /// Friendly names users type, and the evdev names they stand for.
    private static let aliases: [(String, String)] = [
        ("escape", "esc"), ("return", "enter"), ("ctrl", "leftctrl"), ("shift", "leftshift"), ("alt", "leftalt"),
        ("altgr", "rightalt"), ("super", "leftmeta"), ("meta", "leftmeta"), ("del", "delete"), ("caps", "capslock"),
        ("period", "dot"),
    ]

    /// The evdev name without `KEY_`, lower case (`leftshift`); `code123` for unnamed codes.
    public var name: String { KeyCode.namesByCode[rawValue] ?? "code\(rawValue)" }
    public var description: String { name }

    /// Every known key name, for suggestions in error messages.
    public static var allNames: [String] { nameTable.map(\.0) }

    public static func < (a: KeyCode, b: KeyCode) -> Bool { a.rawValue < b.rawValue }

    private static let namesByCode: [UInt16: String] = {
        var map = [UInt16: String](minimumCapacity: nameTable.count)
        for (name, code) in nameTable where map[code] == nil { map[code] = name }
        return map
    }()
}

// The keys the engine itself needs by name.
public extension KeyCode {
    static let esc = KeyCode(1)
    static let one = KeyCode(2), two = KeyCode(3), nine = KeyCode(10), zero = KeyCode(11)
    static let minus = KeyCode(12), equal = KeyCode(13)
    static let backspace = KeyCode(14), tab = KeyCode(15)
    static let q = KeyCode(16), w = KeyCode(17), e = KeyCode(18), r = KeyCode(19), t = KeyCode(20)
    static let y = KeyCode(21), u = KeyCode(22), i = KeyCode(23), o = KeyCode(24), p = KeyCode(25)
    static let enter = KeyCode(28), leftCtrl = KeyCode(29)
    static let a = KeyCode(30), s = KeyCode(31), d = KeyCode(32), f = KeyCode(33), g = KeyCode(34)
    static let h = KeyCode(35), j = KeyCode(36), k = KeyCode(37), l = KeyCode(38)
    static let leftShift = KeyCode(42)
    static let z = KeyCode(44), x = KeyCode(45), c = KeyCode(46), v = KeyCode(47), b = KeyCode(48)
    static let n = KeyCode(49), m = KeyCode(50)
    static let rightShift = KeyCode(54), leftAlt = KeyCode(56), space = KeyCode(57), capsLock = KeyCode(58)
    static let f1 = KeyCode(59), numLock = KeyCode(69)
    static let kp7 = KeyCode(71), kp8 = KeyCode(72), kp9 = KeyCode(73), kp4 = KeyCode(75), kp5 = KeyCode(76)
    static let kp6 = KeyCode(77), kp1 = KeyCode(79), kp2 = KeyCode(80), kp3 = KeyCode(81), kp0 = KeyCode(82)
    static let kpEnter = KeyCode(96), rightCtrl = KeyCode(97), rightAlt = KeyCode(100)
    static let up = KeyCode(103), pageUp = KeyCode(104), left = KeyCode(105), right = KeyCode(106), down = KeyCode(108)
    static let pageDown = KeyCode(109)
    static let delete = KeyCode(111)
    static let leftMeta = KeyCode(125), rightMeta = KeyCode(126), compose = KeyCode(127)

    /// Whether a press of it (no Ctrl, Alt or Meta held) changes a text field's text: the typing
    /// keys of the main block and the keypad, Space, Tab, Enter, BackSpace and Delete; not
    /// modifiers, Esc, function, navigation or media keys, which a program may take and say
    /// nothing of its text.
    @inline(__always) var editsText: Bool {
        switch rawValue {
        case 2...28, 30...41, 43...53, 55, 57, 71...83, 86, 89, 96, 98, 111, 117, 118, 121, 124: return true
        default: return false
        }
    }

    /// Ctrl, Alt and Meta, which make a typing key a shortcut (not AltGr: it types characters).
    @inline(__always) var makesShortcuts: Bool {
        switch rawValue {
        case 29, 97, 56, 125, 126: return true
        default: return false
        }
    }

    /// Keypad digits 0...9, as typed for the console Unicode method.
    static let keypadDigits: [KeyCode] = [kp0, kp1, kp2, kp3, kp4, kp5, kp6, kp7, kp8, kp9]

    /// The digit 1...9 this key stands for on the top row, or on the keypad with Num Lock on,
    /// used to pick a callout.
    func candidateNumber(numLock: Bool) -> Int? {
        if (2...10).contains(rawValue) { return Int(rawValue) - 1 }
        guard numLock else { return nil }
        switch rawValue {
        case 79, 80, 81: return Int(rawValue) - 78
        case 75, 76, 77: return Int(rawValue) - 71
        case 71, 72, 73: return Int(rawValue) - 64
        default: return nil
        }
    }
}
