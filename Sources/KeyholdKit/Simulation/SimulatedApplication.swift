/// A stand-in for the focused program, receiving the virtual keyboard's events and keeping the
/// text it would show: the layout's characters, Backspace, cursor keys, Ctrl+letter as a control
/// character (as a raw terminal), and the three Unicode input methods. `keyhold simulate` prints
/// its text; tests compare it exactly.
public final class SimulatedApplication: KeyEventOutput {
    public let layout: KeyboardLayout
    public let composeKey: KeyCode
    public private(set) var characters: [Character] = []
    public private(set) var cursor = 0
    /// Every event received, in order.
    public private(set) var events: [(key: KeyCode, state: KeyState)] = []
    /// Keys down right now, for checking that nothing is left held.
    public private(set) var keyState = OutputKeyState()
    public private(set) var isCapsLockOn = false

    private var consoleDigits: String?
    private var hexEntry: String?
    private var composeCount = 0
    private var composeDigits: String?

    public init(layout: KeyboardLayout = USLayout(), composeKey: KeyCode = .compose) {
        self.layout = layout; self.composeKey = composeKey
    }

    public var text: String { String(characters) }

    public func send(_ key: KeyCode, _ state: KeyState) {
        events.append((key, state))
        keyState.set(key, down: state != .up)
        switch state {
        case .up:
            if key == .leftAlt, let digits = consoleDigits {
                consoleDigits = nil
                if let value = UInt32(digits), let scalar = Unicode.Scalar(value) { insert(Character(scalar)) }
            }
        case .down:
            if key == .leftAlt { consoleDigits = "" }
            if layout.modifierMap.role(of: key) == .capsLock { isCapsLockOn.toggle() }
            type(key)
        case .autoRepeat:
            type(key)
        }
    }

    private var modifiers: ModifierKeys {
        let map = layout.modifierMap
        var m: ModifierKeys = []
        for key in map.modifierKeys where keyState.isDown(key) { m.formUnion(map.modifiers(of: key)!) }
        return m
    }

    private func type(_ key: KeyCode) {
        if layout.modifierMap.isModifierOrLock(key) { return }
        let mods = modifiers
        if mods.contains(.alt), consoleDigits != nil {
            if let i = KeyCode.keypadDigits.firstIndex(of: key) { consoleDigits! += String(i) }
            return
        }
        if mods.contains(.control) && mods.contains(.shift) && key == .u { hexEntry = ""; return }
        if let hex = hexEntry {
            if key == .space || key == .enter {
                hexEntry = nil
                if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) { insert(Character(scalar)) }
            } else if let c = layout.character(for: key, modifiers: mods.intersection([.shift, .altGr])), c.isHexDigit {
                hexEntry = hex + String(c)
            }
            return
        }
        if key == composeKey {
            composeCount += 1
            if composeCount == 2 { composeDigits = ""; composeCount = 0 }
            return
        }
        if let digits = composeDigits {
            guard let c = layout.character(for: key, modifiers: mods.intersection([.shift, .altGr])), c.isHexDigit else {
                composeDigits = nil; return
            }
            let all = digits + String(c)
            if all.count == 6 {
                composeDigits = nil
                if let value = UInt32(all, radix: 16), let scalar = Unicode.Scalar(value) { insert(Character(scalar)) }
            } else { composeDigits = all }
            return
        }
        composeCount = 0
        switch key {
        case .backspace: if cursor > 0 { characters.remove(at: cursor - 1); cursor -= 1 }
        case .delete: if cursor < characters.count { characters.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        default:
            guard let c = layout.character(for: key, modifiers: mods.intersection([.shift, .altGr]), capsLock: isCapsLockOn) else { return }
            if mods.contains(.control) {
                // A terminal turns Ctrl+letter into the control character (Ctrl+C is 0x03).
                if let ascii = c.asciiValue, c.isLetter { insert(Character(Unicode.Scalar(ascii & 0x1f))) }
                return
            }
            if mods.contains(.alt) || mods.contains(.meta) { return }
            insert(c)
        }
    }

    private func insert(_ c: Character) {
        characters.insert(c, at: cursor); cursor += 1
    }
}
