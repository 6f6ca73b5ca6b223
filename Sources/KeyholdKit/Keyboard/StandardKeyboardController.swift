/// Types text through a `KeystrokePlanner` onto a `KeyEventOutput`, tracking which keys are down
/// so that held modifiers can be lifted around typed characters and nothing is ever left held.
/// Which keys are modifiers and locks comes from the keymap (the context's modifier map): a
/// Caps Lock that `ctrl:nocaps` makes Ctrl is lifted like Ctrl, and does not toggle Caps Lock.
open class StandardKeyboardController: KeyboardController {
    public var planner: KeystrokePlanner
    public let output: KeyEventOutput
    public unowned let keyboardContext: KeyboardContext
    /// Keys down on the output right now.
    public private(set) var keyState = OutputKeyState()
    /// Called with characters the planner cannot type (a layout missing hex digits).
    public var onUntypable: ((Character) -> Void)?

    private var steps: [KeystrokeStep] = []
    private var map: ModifierMap { keyboardContext.modifierMap }

    public init(planner: KeystrokePlanner, output: KeyEventOutput, keyboardContext: KeyboardContext) {
        self.planner = planner; self.output = output; self.keyboardContext = keyboardContext
        steps.reserveCapacity(32)
    }

    open func insertText(_ text: String) {
        var lifted: [KeyCode] = []
        if let byte = text.asciiByte,
           let stroke = planner.directStroke(forASCII: UInt8(byte), capsLock: keyboardContext.isCapsLockOn),
           stroke.modifiers.isEmpty || !handsOffWhole(text) {
            // One ASCII character the layout types, what most keys type: one tap, found with
            // no grapheme breaking, Character or plan.
            var planHeld: ModifierKeys = []
            perform(.tap(stroke), planHeld: &planHeld, lifted: &lifted)
        } else if handsOffWhole(text), let companionOutput = output as? TextHandOffOutput {
            // An input method commits strings: all of it goes that way, so no part typed as keys
            // takes another path in and arrives out of order, and no level modifier typed at
            // machine speed is lost (GNOME hands each key to IBus and back, and an AltGr released
            // meanwhile was already up for its key: measured, ł€ on de arrived as le).
            liftModifiers(except: [], into: &lifted)
            companionOutput.handOff(text, fallback: text.flatMap { fallbackTransitions(for: $0) })
        } else {
            for character in text { insert(character, lifted: &lifted) }
        }
        if !lifted.isEmpty { restore(lifted) }
    }

    /// Whether `text` goes whole to a companion that commits strings (the `session` method with an
    /// input method): more than one character, or one the layout types only with a modifier
    /// nobody holds.
    private func handsOffWhole(_ text: String) -> Bool {
        guard planner.unicodeMethod == .session, (output as? TextHandOffOutput)?.companionCommitsText == true else { return false }
        guard text.count == 1, let character = text.first else { return !text.isEmpty }
        guard let stroke = planner.directStroke(for: character, capsLock: keyboardContext.isCapsLockOn) else { return true }
        return stroke.modifiers.keys.contains { !isHeld(ModifierKeys(key: $0)!) }
    }

    /// Whether a key the keymap gives `modifier` is down on the output.
    private func isHeld(_ modifier: ModifierKeys) -> Bool {
        map.modifierKeys.contains(where: { keyState.isDown($0) && map.modifiers(of: $0) == modifier })
    }

    /// Types one character: the layout's keystroke when it has one, else the planned steps.
    private func insert(_ character: Character, lifted: inout [KeyCode]) {
        let capsLock = keyboardContext.isCapsLockOn
        var planHeld: ModifierKeys = []
        if let stroke = planner.directStroke(for: character, capsLock: capsLock) {
            // What most keys type: the plan would be this one tap, so no plan is built.
            perform(.tap(stroke), planHeld: &planHeld, lifted: &lifted)
            return
        }
        steps.removeAll(keepingCapacity: true)
        do { try planner.plan(character, capsLock: capsLock, into: &steps) } catch {
            onUntypable?(character); return
        }
        for step in steps { perform(step, planHeld: &planHeld, lifted: &lifted) }
    }

    open func deleteBackward(times: Int) { tap(.backspace, times: times) }

    open func adjustTextPosition(by offset: Int) { tap(offset < 0 ? .left : .right, times: abs(offset)) }

    open func keyDown(_ key: KeyCode) { send(key, .down) }
    open func keyUp(_ key: KeyCode) { if keyState.isDown(key) { send(key, .up) } }
    /// Nothing to send: a key held down on the virtual keyboard is repeated by the device itself
    /// (EV_REP, or the desktop's own repeat), so Keyhold never adds repeats of its own.
    open func keyRepeat(_ key: KeyCode) {}

    open func releaseAllKeys() {
        for key in keyState.downKeys { send(key, .up) }
    }

    open func releaseAllKeys(except kept: [KeyCode]) {
        for key in keyState.downKeys where !kept.contains(key) { send(key, .up) }
    }

    open func assumeDown(_ keys: [KeyCode]) {
        for key in keys { keyState.set(key, down: true) }
    }

    /// Taps a key `times` times with no modifier held.
    public func tap(_ key: KeyCode, times: Int = 1) {
        guard times > 0 else { return }
        var lifted: [KeyCode] = []
        liftModifiers(except: [], into: &lifted)
        for _ in 0..<times { send(key, .down); send(key, .up) }
        restore(lifted)
    }

    /// Performs one planned step. `planHeld` are the modifiers the plan itself holds down (Alt for
    /// the console method), which its taps must not lift.
    private func perform(_ step: KeystrokeStep, planHeld: inout ModifierKeys, lifted: inout [KeyCode]) {
        switch step {
        case .down(let key):
            let modifier = map.modifiers(of: key) ?? []
            liftModifiers(except: planHeld.union(modifier), into: &lifted)
            planHeld.formUnion(modifier)
            send(key, .down)
        case .up(let key):
            planHeld.subtract(map.modifiers(of: key) ?? [])
            send(key, .up)
        case .handOff(let character):
            liftModifiers(except: [], into: &lifted)
            let fallback = fallbackTransitions(for: character)
            if let companionOutput = output as? TextHandOffOutput {
                companionOutput.handOff(String(character), fallback: fallback)
            } else {
                for t in fallback { output.send(t.key, t.state) }
            }
        case .tap(let stroke):
            liftModifiers(except: stroke.modifiers.union(planHeld), into: &lifted)
            if stroke.modifiers.isEmpty {   // most characters: no modifier to add
                tapAlone(stroke.key)
                return
            }
            let missing = stroke.modifiers.keys.compactMap { standard -> KeyCode? in
                let modifier = ModifierKeys(key: standard)!
                return isHeld(modifier) ? nil : map.key(for: modifier) ?? standard
            }
            for key in missing { send(key, .down) }
            tapAlone(stroke.key)
            for key in missing.reversed() { send(key, .up) }
        }
    }

    /// `character` typed with `ctrl-shift-u` instead, as transitions that leave every key as it
    /// was: what the queue types when the companion does not.
    private func fallbackTransitions(for character: Character) -> [KeyTransition] {
        var fallbackPlanner = planner
        fallbackPlanner.unicodeMethod = .ctrlShiftU
        var steps: [KeystrokeStep] = []
        try? fallbackPlanner.plan(character, capsLock: keyboardContext.isCapsLockOn, into: &steps)
        var transitions: [KeyTransition] = []
        for step in steps {
            switch step {
            case .down(let key): transitions.append(KeyTransition(key, .down))
            case .up(let key): transitions.append(KeyTransition(key, .up))
            case .tap(let stroke):
                let modifiers = stroke.modifiers.keys.map { map.key(for: ModifierKeys(key: $0)!) ?? $0 }
                for key in modifiers { transitions.append(KeyTransition(key, .down)) }
                transitions += [KeyTransition(stroke.key, .down), KeyTransition(stroke.key, .up)]
                for key in modifiers.reversed() { transitions.append(KeyTransition(key, .up)) }
            case .handOff: break
            }
        }
        return transitions
    }

    /// A tap of `key`, released first if it was down. A key known to type a character is no lock
    /// key (`mayLock` false): its tap then needs no look at the keymap.
    @inline(__always) private func tapAlone(_ key: KeyCode, mayLock: Bool = true) {
        if keyState.isDown(key) { send(key, .up) }
        if mayLock { send(key, .down) } else { record(key, .down) }
        send(key, .up)
    }

    /// Types the ASCII character `byte` as `insertText` would when the layout has it on a key of
    /// its own, with no modifier to add (most letters): the engine's way for a letter with callouts
    /// on press, with no string, action or plan on the way to the write. `capsLock` is the
    /// context's, which the engine has at hand. False when it is not on such a key: nothing was
    /// typed.
    final func typeOnOneKey(ascii byte: UInt8, capsLock: Bool) -> Bool {
        guard let stroke = planner.directStroke(forASCII: byte, capsLock: capsLock),
              stroke.modifiers.isEmpty else { return false }
        var lifted: [KeyCode] = []
        liftModifiers(except: [], into: &lifted)
        tapAlone(stroke.key, mayLock: false)
        if !lifted.isEmpty { restore(lifted) }
        return true
    }

    /// Releases held modifiers that are not wanted, remembering them to press again afterwards.
    /// Inlined: most typed characters find nothing held (one load), with no call or keymap to ask.
    @inline(__always) private func liftModifiers(except wanted: ModifierKeys, into lifted: inout [KeyCode]) {
        if !keyState.isEmpty { liftHeldModifiers(except: wanted, into: &lifted) }
    }

    private func liftHeldModifiers(except wanted: ModifierKeys, into lifted: inout [KeyCode]) {
        for key in map.modifierKeys where keyState.isDown(key) {
            if let m = map.modifiers(of: key), !wanted.isSuperset(of: m) {
                send(key, .up); lifted.append(key)
            }
        }
    }

    private func restore(_ lifted: [KeyCode]) {
        for key in lifted where !keyState.isDown(key) { send(key, .down) }
    }

    @inline(__always) private func send(_ key: KeyCode, _ state: KeyState) {
        record(key, state)
        // The keymap's lock keys toggle on press, whether forwarded or sent by a binding (the
        // LEDs the desktop or console sets back confirm it); asked once the key is out.
        if state == .down {
            switch map.role(of: key) {
            case .capsLock: keyboardContext.isCapsLockOn.toggle()
            case .numLock: keyboardContext.isNumLockOn.toggle()
            default: break
            }
        }
    }

    /// The key's new state, kept and sent.
    @inline(__always) private func record(_ key: KeyCode, _ state: KeyState) {
        keyState.set(key, down: state != .up)
        output.send(key, state)
    }
}
