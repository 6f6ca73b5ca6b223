/// One step of typing a character: a keystroke (its key tapped with its level modifiers) or a
/// single raw transition, for Unicode methods that hold a key across several taps.
public enum KeystrokeStep: Hashable, Sendable {
    case tap(Keystroke)
    case down(KeyCode)
    case up(KeyCode)
    /// Typed by the session companion (the `session` method), with no modifier held.
    case handOff(Character)
}

/// Turns characters into keystrokes: the layout's own key when it has one, else the configured
/// Unicode method (docs/ARCHITECTURE.md, Output).
public struct KeystrokePlanner {
    public var layout: KeyboardLayout
    public var unicodeMethod: UnicodeMethod
    /// The key that the desktop's XKB options make Multi_key, for the compose method.
    public var composeKey: KeyCode

    public init(layout: KeyboardLayout, unicodeMethod: UnicodeMethod = .console, composeKey: KeyCode = .compose) {
        self.layout = layout; self.unicodeMethod = unicodeMethod; self.composeKey = composeKey
    }

    public enum PlanError: Error, Equatable {
        /// The Unicode method needs a character (a hex digit) that the layout cannot type.
        case layoutLacks(Character)
    }

    /// Appends the steps that type `character`. `capsLock` is the output's Caps Lock state: the
    /// layout says what each key types under it.
    public func plan(_ character: Character, capsLock: Bool, into steps: inout [KeystrokeStep]) throws(PlanError) {
        if let stroke = directStroke(for: character, capsLock: capsLock) {
            steps.append(.tap(stroke))
            return
        }
        if unicodeMethod == .session {
            steps.append(.handOff(character))
            return
        }
        for scalar in character.unicodeScalars {
            try planUnicode(scalar.value, capsLock: capsLock, into: &steps)
        }
    }

    /// The layout's keystroke for `character` under the Caps Lock state: as it is, or with Shift
    /// inverted when Caps Lock changes that key's case; nil when neither types it (then the
    /// Unicode method does). A plan for a character it types is that one `.tap`.
    func directStroke(for character: Character, capsLock: Bool) -> Keystroke? {
        guard let stroke = layout.keystroke(for: character) else { return nil }
        guard capsLock else { return stroke }
        var flipped = stroke
        flipped.modifiers.formSymmetricDifference(.shift)
        for candidate in [stroke, flipped]
        where layout.character(for: candidate.key, modifiers: candidate.modifiers, capsLock: true) == character {
            return candidate
        }
        return nil
    }

    /// `directStroke(for:capsLock:)` of the ASCII character `byte`, from the layout's table.
    @inline(__always) func directStroke(forASCII byte: UInt8, capsLock: Bool) -> Keystroke? {
        capsLock ? directStroke(for: Character(Unicode.Scalar(byte)), capsLock: true) : layout.keystroke(forASCII: byte)
    }

    private func planUnicode(_ value: UInt32, capsLock: Bool, into steps: inout [KeystrokeStep]) throws(PlanError) {
        switch unicodeMethod {
        case .console, .auto:   // `auto` is resolved before it gets here; the console's is the fallback
            steps.append(.down(.leftAlt))
            for digit in String(value) { steps.append(.tap(Keystroke(KeyCode.keypadDigits[Int(digit.asciiValue! - 48)]))) }
            steps.append(.up(.leftAlt))
        case .ctrlShiftU, .session:   // `session` hands whole characters off above; this is its fallback
            steps += [.down(.leftCtrl), .down(.leftShift), .tap(Keystroke(.u)), .up(.leftShift), .up(.leftCtrl)]
            try appendHex(String(value, radix: 16), capsLock: capsLock, into: &steps)
            steps.append(.tap(Keystroke(.space)))
        case .compose:
            steps += [.tap(Keystroke(composeKey)), .tap(Keystroke(composeKey))]
            try appendHex(ComposeTable.hexDigits(value), capsLock: capsLock, into: &steps)
        }
    }

    private func appendHex(_ hex: String, capsLock: Bool, into steps: inout [KeystrokeStep]) throws(PlanError) {
        for digit in hex {
            guard let stroke = directStroke(for: digit, capsLock: capsLock) else { throw .layoutLacks(digit) }
            steps.append(.tap(stroke))
        }
    }
}
