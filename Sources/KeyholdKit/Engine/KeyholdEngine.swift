/// The pure heart of Keyhold: takes key events from grabbed keyboards, decides per key whether it
/// is forwarded unchanged or handled, turns handled keys' timing into gestures, and runs them
/// through the services. Single-threaded and deterministic: times come from the events and from
/// `advance(to:)`, never from a clock. Its place in a key's path: docs/ARCHITECTURE.md, Data path.
///
/// One thread uses it and everything a key passes through, so release builds of KeyholdKit and
/// KeyholdLinux leave out the runtime's dynamic exclusivity checks (Package.swift).
public final class KeyholdEngine {
    public let services: KeyboardServices
    public var bindings: KeyBindings {
        didSet { boundKeys = Self.keys(boundIn: bindings) }
    }
    public var recognizer: GestureRecognizer
    /// Whoever watches the trace (the simulator, `keyhold monitor`, the picker's companion, a
    /// library user's own), any number side by side. Weak: each owns or outlives the engine.
    private var observers: [WeakEngineObserver] = []
    /// Whether an observer records keys (`EngineObserver.recordsKeys`): without, a key builds no
    /// trace entry and loads no reference. Callouts reach every observer.
    private var isObserved = false
    /// Called when Backspace+Escape+Enter are held together; the daemon exits.
    public var onPanic: (() -> Void)?
    /// Whether handled keys and callouts are active; paused, every key is forwarded. Pausing
    /// closes an open callout (keeping what it shows) and drops pending long presses and repeats.
    public var isPaused = false {
        didSet {
            passesThrough = isPaused || forwardsEverything
            guard isPaused && !oldValue else { return }
            services.calloutContext.close()
            services.searchContext.close(typed: "")
            recognizer.cancelAll()
        }
    }
    /// No text field has the focus (a game, a video player: `ApplicationSettings`): every key is
    /// forwarded as it comes, held while held, as when paused; the user's pause stays theirs.
    public private(set) var forwardsEverything = false {
        didSet { passesThrough = isPaused || forwardsEverything }
    }
    /// Paused, or forwarding everything: keys go out unchanged, without feedback.
    private var passesThrough = false
    /// Whether callouts open at all (`[callouts] enabled`).
    public var calloutsEnabled: Bool

    /// How a key that is down was routed, so its release goes the same way.
    private enum Route: UInt8 { case idle, forwarded, handled, consumed, dualRole }
    private var routes = PerKeyCode<Route>(repeating: .idle)
    /// The action of each handled key that is down.
    private var actions = [KeyboardAction?](repeating: nil, count: KeyCode.count)
    /// Keys with a binding in some layer: any other key goes down without a binding lookup.
    private var boundKeys: OutputKeyState
    /// Keys physically down, for the panic escape.
    private var physical = OutputKeyState()
    /// Dual-role keys that are down: a handful at most.
    private struct HeldDualRole {
        var key: KeyCode
        var role: KeyBinding.DualRole
        var pressedAt: Timestamp
        /// Another key went down meanwhile: the release only undoes the hold.
        var interrupted = false
        /// The layer to go back to, for a layer hold.
        var previousLayer: KeyboardType?
    }
    private var dualRoles: [HeldDualRole] = []
    /// Which keys' characters have callouts, so a press does not look them up again.
    private var calloutMemo = CalloutMemo()
    public private(set) var now = Timestamp.zero

    public init(services: KeyboardServices, configuration: KeyholdConfiguration = KeyholdConfiguration()) {
        self.services = services
        self.bindings = configuration.bindings
        self.boundKeys = Self.keys(boundIn: configuration.bindings)
        self.recognizer = GestureRecognizer(settings: configuration.gestures)
        self.calloutsEnabled = configuration.callouts.enabled
        self.calloutTimeoutMicroseconds = configuration.callouts.timeoutMilliseconds * 1000
        let calloutObserver: (CalloutEvent) -> Void = { [weak reach] event in
            guard let self = reach?.engine else { return }
            self.calloutTouched = self.now
            if !self.observers.isEmpty { self.publish(.callout(event, self.now)) }
        }
        services.calloutContext.observers.append(calloutObserver)
        services.searchContext.observers.append(calloutObserver)
    }

    /// What the callout context's observer reaches the engine through, so that the engine itself
    /// is never referenced weakly: an object referenced weakly gets a side table, and every retain
    /// and release of it then takes the runtime's slow path (about 95 instructions instead of 18,
    /// several times on every key).
    private final class Reach {
        unowned let engine: KeyholdEngine
        init(_ engine: KeyholdEngine) { self.engine = engine }
    }
    private lazy var reach = Reach(self)

    /// Builds standard services for a configuration, typing onto `output`.
    public convenience init(configuration: KeyholdConfiguration = KeyholdConfiguration(), output: KeyEventOutput,
                            layout: KeyboardLayout = USLayout(), keyboardContext: KeyboardContext? = nil,
                            calloutContext: CalloutContext? = nil) {
        self.init(services: KeyboardServices(configuration: configuration, output: output, layout: layout,
                                             keyboardContext: keyboardContext, calloutContext: calloutContext),
                  configuration: configuration)
    }

    /// How long an open callout or search may go untouched (`[callouts] timeout_ms`; 0: forever).
    public var calloutTimeoutMicroseconds: Int
    /// When the open callout last opened, moved or saw a key.
    private var calloutTouched = Timestamp.zero

    /// Whether the picker is open, as a callout or as a search.
    @inline(__always) private var pickerIsOpen: Bool { services.calloutContext.isOpen || services.searchContext.isOpen }

    /// When the open callout or search closes by itself; nil when none is open or it never does.
    private var calloutDeadline: Timestamp? {
        guard calloutTimeoutMicroseconds > 0, pickerIsOpen else { return nil }
        return calloutTouched.adding(microseconds: calloutTimeoutMicroseconds)
    }

    /// When the daemon's timer must next call `advance(to:)`.
    public var nextDeadline: Timestamp? {
        .earliest(recognizer.nextDeadline, calloutDeadline)
    }

    /// Fires every gesture due at or before `time`, and closes a callout left alone too long.
    /// Inlined into `handle`: most keys find nothing timed and make no call for it.
    @inline(__always) public func advance(to time: Timestamp) {
        if recognizer.isTracking || pickerIsOpen { fireDue(upTo: time) }
        if time > now { now = time }
    }

    private func fireDue(upTo time: Timestamp) {
        while recognizer.isTracking || pickerIsOpen {
            let callout = calloutDeadline.flatMap { $0 <= time ? $0 : nil }
            if let due = recognizer.nextDue(at: callout ?? time) {
                now = due.time
                guard let action = actions[Int(due.key.rawValue)] else { continue }
                run(due.gesture, key: due.key, action: action)
            } else if let callout {
                now = callout
                dismissCallout()
            } else {
                break
            }
        }
    }

    /// Adds an observer of the trace; the others keep theirs. Adding one twice adds it once.
    public func addObserver(_ observer: EngineObserver) {
        guard !observers.contains(where: { $0.observer === observer }) else { return }
        observers.append(WeakEngineObserver(observer: observer))
        observersChanged()
    }

    public func removeObserver(_ observer: EngineObserver) {
        observers.removeAll { $0.observer === observer || $0.observer == nil }
        observersChanged()
    }

    /// Asks the observers again whether they record keys; call it when an answer changed (the
    /// control socket's, when the first `keyhold monitor` connects or the last one goes).
    public func observersChanged() {
        isObserved = observers.contains { $0.observer?.recordsKeys == true }
    }

    /// Tells the observers, if one records keys (without, a key builds no entry).
    @inline(__always) private func observe(_ entry: @autoclosure () -> TraceEntry) {
        if isObserved { publish(entry()) }
    }

    private func publish(_ entry: TraceEntry) {
        for box in observers { box.observer?.record(entry) }
    }

    /// Handles one key event from a grabbed keyboard.
    public func handle(_ event: KeyEvent) {
        advance(to: event.time)   // and now = event.time, if later
        if pickerIsOpen { calloutTouched = now }
        observe(.input(event))
        let key = event.code, i = Int(key.rawValue)
        guard i < KeyCode.count else { return }
        switch event.state {
        case .autoRepeat:
            // One repeat policy: the virtual keyboard repeats what it holds down itself (EV_REP,
            // and desktops repeat held keys on their own), and handled keys repeat through
            // `repeatPress`; a grabbed keyboard's kernel repeats are therefore never passed on.
            // A forwarded key's repeats still sound, in time with the ones the device makes.
            if routes[i] == .forwarded && !passesThrough { forwardedFeedback(.repeatPress, key) }
        case .down:
            guard routes[i] == .idle else { return }
            physical.set(key, down: true)
            if physical.isDown(.backspace) && physical.isDown(.esc) && physical.isDown(.enter) {
                observe(.panic(now))
                onPanic?()
            }
            keyDown(key)
        case .up:
            physical.set(key, down: false)
            keyUp(key)
        }
    }

    private func keyDown(_ key: KeyCode) {
        if services.searchContext.isOpen && searchTakes(key) { return }
        let context = services.keyboardContext
        // A bound key is handled even when it is a modifier: it then acts as its binding says
        // (`rightalt = "keyboardType:symbolic"`), not as a held modifier.
        if !passesThrough, boundKeys.contains(key), let binding = bindings.binding(for: key, in: context.keyboardType) {
            boundKeyDown(key, binding)
            return
        }
        let modifier = context.modifierMap.modifiers(of: key)
        otherKeyWentDown(key, isModifier: modifier != nil)
        if let modifier { context.heldModifiers.formUnion(modifier) }
        if calloutTakes(key) { return }
        guard modifier == nil, !passesThrough, !context.isShortcutHeld else { forwardDown(key); return }
        let action: KeyboardAction
        switch defaultPress(for: key) {
        case .forwarded:
            forwardDown(key); return
        case .known(let index):
            if typeOnPressAtOnce(key, index) { return }
            action = calloutMemo.action(at: index)
        case .asked(let asked):
            action = asked
        }
        let wiring = standardWiring()
        if let standard = wiring.gestureHandler, wiring.asksMemosProvider {
            // `action` is a character this very provider has callouts for (`defaultPress`): the
            // standard handler types it on press and opens its callout on a long press (so it
            // does not repeat), as asking it would say.
            if defersFeedback && !isObserved, case .character(let text) = action {
                typeOnPress(key, text, action, standard)
            } else {
                press(key, action, longPress: true, repeats: false)
            }
            return
        }
        // A key whose press, release and long press the handler can do nothing with is left as
        // if Keyhold were not there; one it acts on at release or long press only (KeyboardKit's
        // image key) is the handler's, and its press types nothing.
        let handler = services.actionHandler
        guard handler.canHandle(.press, on: action) || handler.canHandle(.release, on: action)
                || handler.canHandle(.longPress, on: action)
        else { forwardDown(key); return }
        let longPress = calloutsEnabled && handler.canHandle(.longPress, on: action)
        press(key, action, longPress: longPress, repeats: !longPress && handler.canHandle(.repeatPress, on: action))
    }

    /// A key the configuration binds went down: the same rules, with the binding's gestures.
    private func boundKeyDown(_ key: KeyCode, _ binding: KeyBinding) {
        otherKeyWentDown(key, isModifier: false)
        if calloutTakes(key) { return }
        if let dual = binding.dualRole {
            holdDown(key, dual); return
        }
        if services.keyboardContext.isShortcutHeld {
            forwardDown(key); return
        }
        // Bound gestures come on top of the key's own press unless the binding names one.
        let action = binding.actions[.press] ?? layoutCharacter(for: key).map { .character(String($0)) } ?? .key(key)
        let handler = services.actionHandler
        let longPress = binding.actions[.longPress] != nil || (calloutsEnabled && handler.canHandle(.longPress, on: action))
        let repeats = !longPress && (binding.actions[.repeatPress] != nil || handler.canHandle(.repeatPress, on: action))
        press(key, action, longPress: longPress, repeats: repeats)
    }

    /// Any key going down makes held dual-role keys holds, not taps; any but a modifier cancels
    /// the pending long press and repeat of the keys held before it (rollover).
    @inline(__always) private func otherKeyWentDown(_ key: KeyCode, isModifier: Bool) {
        if !dualRoles.isEmpty {
            for j in dualRoles.indices { dualRoles[j].interrupted = true }
        }
        if !isModifier { recognizer.otherKeyPressed(key) }
    }

    /// With the search open, a key edits, pages or ends it; true when that used the key up. A
    /// key it has no use for closes it, typing nothing, and goes on as usual.
    private func searchTakes(_ key: KeyCode) -> Bool {
        let intent = services.searchContext.intent(for: key, typing: layoutCharacter(for: key), in: services.keyboardContext)
        switch intent {
        case .ignore:
            return false
        case .typeThrough:
            endSearch(intent)
            return false
        default:
            otherKeyWentDown(key, isModifier: false)
            if intent == .cancel { endSearch(intent) } else { services.actionHandler.handle(intent) }
            routes[Int(key.rawValue)] = .consumed
            return true
        }
    }

    /// Closes the search typing nothing: the handler's `intent` (Esc or a key going on), then
    /// closed whatever the handler did, so a handler that does nothing with searches never keeps
    /// the keyboard in one.
    private func endSearch(_ intent: CharacterSearchIntent) {
        services.actionHandler.handle(intent)
        if services.searchContext.isOpen { services.searchContext.close(typed: "") }
    }

    /// With a callout open, a key picks, moves or closes it; true when that used the key up.
    @inline(__always) private func calloutTakes(_ key: KeyCode) -> Bool {
        services.calloutContext.isOpen && openCalloutTakes(key)
    }

    private func openCalloutTakes(_ key: KeyCode) -> Bool {
        let callouts = services.calloutContext
        let intent = callouts.intent(for: key, in: services.keyboardContext)
        switch intent {
        case .ignore:
            return false
        case .typeThrough:
            services.actionHandler.handle(intent)
            return false
        default:
            services.actionHandler.handle(intent)
            routes[Int(key.rawValue)] = .consumed
            return true
        }
    }

    /// What `press` and `run(.press)` do for a character the standard handler types on press,
    /// with no observer to tell and feedback deferred, in the order that gets it out soonest:
    /// typed first, then the key's route and long press recorded (the typing never reads them).
    /// The first press of a letter comes here; the next ones take `typeOnPressAtOnce`.
    private func typeOnPress(_ key: KeyCode, _ text: String, _ action: KeyboardAction, _ standard: StandardKeyboardActionHandler) {
        let context = services.keyboardContext
        context.currentKey = key
        standard.keyboardController.insertText(text)
        context.currentKey = nil
        typedOnPress(key, action, standard)
    }

    /// `typeOnPress` for a letter pressed before (so the memo knows its action) that is one ASCII
    /// character on a key of its own in the layout, when the standard handler and controller
    /// (exactly those classes: a subclass may type otherwise) would type it: a tap of that key,
    /// first thing, with no action, string or plan made on the way to the write. Most keys anyone
    /// types go this way (`scripts/callgrind-keys`: about 400 instructions fewer per tap than
    /// `typeOnPress`, nearly all before the write); true when it took the key.
    @inline(__always) private func typeOnPressAtOnce(_ key: KeyCode, _ index: Int) -> Bool {
        let byte = calloutMemo.asciiByte(at: index)
        guard byte != 0, defersFeedback, !isObserved else { return false }
        let wiring = standardWiring()
        guard wiring.typeOnOneKey(ascii: byte, capsLock: services.keyboardContext.isCapsLockOn), let standard = wiring.gestureHandler
        else { return false }
        typedOnPress(key, calloutMemo.action(at: index), standard)
        return true
    }

    /// After a character typed on press: its feedback, the key's route and action, and its long press.
    @inline(__always) private func typedOnPress(_ key: KeyCode, _ action: KeyboardAction, _ standard: StandardKeyboardActionHandler) {
        pendingFeedback.append(.handled(standard, .press, action))
        let i = Int(key.rawValue)
        routes[i] = .handled
        actions[i] = action
        recognizer.press(key, at: now, longPress: true, repeats: false)
    }

    /// What the engine may do itself for the services' handler and controller, found again only
    /// when they were rewired.
    @inline(__always) private func standardWiring() -> StandardWiring {
        if let wiring, wiring.isCurrent(for: services) { return wiring }
        let found = StandardWiring(services)
        wiring = found
        return found
    }
    private var wiring: StandardWiring?

    /// A handled key went down: its gestures are timed from now, and its press runs.
    private func press(_ key: KeyCode, _ action: KeyboardAction, longPress: Bool, repeats: Bool) {
        let i = Int(key.rawValue)
        routes[i] = .handled
        actions[i] = action
        recognizer.press(key, at: now, longPress: longPress, repeats: repeats)
        run(.press, key: key, action: action)
    }

    private func keyUp(_ key: KeyCode) {
        let i = Int(key.rawValue)
        if routes[i] == .forwarded, let modifier = services.keyboardContext.modifierMap.modifiers(of: key) {
            let context = services.keyboardContext, map = context.modifierMap
            // Another forwarded key may still hold the same modifier (both Shifts; a Caps Lock
            // that the keymap makes Ctrl beside Ctrl).
            let stillHeld = map.modifierKeys.contains {
                $0 != key && routes[Int($0.rawValue)] == .forwarded && map.modifiers(of: $0) == modifier
            }
            if !stillHeld { context.heldModifiers.subtract(modifier) }
        }
        switch routes[i] {
        case .idle: return
        case .forwarded:
            forward(key, .up)
        case .consumed:
            break
        case .dualRole:
            holdUp(key)
        case .handled:
            let action = actions[i]!
            let doubleTap = recognizer.release(key, at: now)
            run(.release, key: key, action: action)
            if doubleTap { run(.doubleTap, key: key, action: action) }
            actions[i] = nil   // only a handled key has one
        }
        routes[i] = .idle
    }

    /// A dual-role key went down: its hold is in force at once.
    private func holdDown(_ key: KeyCode, _ role: KeyBinding.DualRole) {
        routes[Int(key.rawValue)] = .dualRole
        var held = HeldDualRole(key: key, role: role, pressedAt: now)
        if case .keyboardType(let layer) = role.hold {
            let context = services.keyboardContext
            held.previousLayer = context.keyboardType
            context.keyboardType = layer
            observe(.gesture(key, .press, role.hold, now))
        } else {
            run(.press, key: key, action: role.hold)
        }
        dualRoles.append(held)
    }

    /// A dual-role key went up: the hold is undone; a tap (short, nothing pressed meanwhile)
    /// then runs the tap action.
    private func holdUp(_ key: KeyCode) {
        guard let j = dualRoles.firstIndex(where: { $0.key == key }) else { return }
        let held = dualRoles.remove(at: j)
        if let previous = held.previousLayer {
            services.keyboardContext.keyboardType = previous
            observe(.gesture(key, .release, held.role.hold, now))
        } else {
            run(.release, key: key, action: held.role.hold)
        }
        let delay = Int64(recognizer.settings.longPressDelay) * 1000
        guard !held.interrupted, now.microseconds - held.pressedAt.microseconds < delay else { return }
        run(.press, key: key, action: held.role.tap)
        run(.release, key: key, action: held.role.tap)
    }

    /// What picks the character a key types now: Shift and AltGr held, Caps Lock.
    private var level: (modifiers: ModifierKeys, capsLock: Bool) {
        let context = services.keyboardContext
        return (context.heldModifiers.intersection([.shift, .altGr]), context.isCapsLockOn)
    }

    /// The character `key` types now, if any but whitespace.
    private func layoutCharacter(for key: KeyCode) -> Character? {
        let level = self.level
        return layoutCharacter(for: key, modifiers: level.modifiers, capsLock: level.capsLock)
    }

    private func layoutCharacter(for key: KeyCode, modifiers: ModifierKeys, capsLock: Bool) -> Character? {
        guard let character = services.layout.character(for: key, modifiers: modifiers, capsLock: capsLock),
              !character.isWhitespaceFastASCII else { return nil }
        return character
    }

    /// What a key with no binding does when it goes down: forwarded, or the action of the
    /// character it types when that has callouts (`known`: its place in the memo).
    private enum DefaultPress { case forwarded, known(Int), asked(KeyboardAction) }

    /// A key with no binding is handled when the character it types has callouts; else forwarded.
    private func defaultPress(for key: KeyCode) -> DefaultPress {
        guard calloutsEnabled else { return .forwarded }
        let level = self.level
        let state = CalloutMemo.state(modifiers: level.modifiers, capsLock: level.capsLock)
        switch calloutMemo.answer(for: key, state: state, services: services) {
        case .some(let index): return .known(index)
        case .none: return .forwarded
        case .unknown:
            let provider = services.calloutActionProvider
            let action = layoutCharacter(for: key, modifiers: level.modifiers, capsLock: level.capsLock)
                .map { KeyboardAction.character(String($0)) }
            let handled = action.flatMap { provider.calloutActions(for: $0).isEmpty ? nil : $0 }
            calloutMemo.remember(handled, for: key, state: state)
            return handled.map { .asked($0) } ?? .forwarded
        }
    }

    /// What a forwarded key is in KeyboardKit's words, so it gets the standard feedback too (a
    /// click for every letter, the delete sound for backspace), though the handler never sees it.
    private func forwardedAction(for key: KeyCode, modifiers: ModifierKeys, capsLock: Bool) -> KeyboardAction {
        switch key {
        case .backspace: return .backspace
        case .space: return .space
        case .tab: return .tab
        case .enter, .kpEnter: return .primary(.return)
        case .esc: return .escape
        case .left: return .moveCursorBackward
        case .right: return .moveCursorForward
        case .leftShift, .rightShift: return .shift
        case .capsLock: return .capsLock
        case .leftCtrl, .rightCtrl: return .control
        case .leftAlt, .rightAlt: return .option
        case .leftMeta, .rightMeta: return .command
        default: return layoutCharacter(for: key, modifiers: modifiers, capsLock: capsLock).map { .character(String($0)) } ?? .key(key)
        }
    }

    /// Runs a gesture: a binding for that gesture is tapped as its own action; otherwise the
    /// handler decides what the gesture does on the key's action. The handler is asked first
    /// (`canHandle`) for every gesture; the context names the key meanwhile.
    private func run(_ gesture: KeyboardGesture, key: KeyCode, action: KeyboardAction) {
        let handler = services.actionHandler, context = services.keyboardContext
        context.currentKey = key
        defer { context.currentKey = nil }
        let locale = isObserved ? context.locale : nil   // to report a switch
        // A press never looks for a binding (`press` was given the bound one): no optional
        // action is made and destroyed on the way to a handled key's output.
        if gesture != .press, routes[Int(key.rawValue)] != .dualRole, boundKeys.contains(key),
           let bound = bindings.binding(for: key, in: context.keyboardType)?.actions[gesture] {
            observe(.gesture(key, gesture, bound, now))
            if handler.canHandle(.press, on: bound) { handler.handle(.press, on: bound) }
            if handler.canHandle(.release, on: bound) { handler.handle(.release, on: bound) }
        } else {
            observe(.gesture(key, gesture, action, now))
            if defersFeedback, let standard = standardWiring().gestureHandler {
                // One look at what the gesture does, which also says whether it does anything.
                if standard.performWithoutFeedback(gesture, on: action) { pendingFeedback.append(.handled(standard, gesture, action)) }
            } else if handler.canHandle(gesture, on: action) {
                handler.handle(gesture, on: action)
            }
        }
        if let locale, context.locale != locale { observe(.locale(context.locale, now)) }
    }

    @inline(__always) private func forwardDown(_ key: KeyCode) {
        routes[Int(key.rawValue)] = .forwarded
        forward(key, .down)
    }

    private func forward(_ key: KeyCode, _ state: KeyState) {
        observe(.forwarded(key, state, now))
        let controller = services.keyboardController
        switch state {
        case .down: controller.keyDown(key)
        case .up: controller.keyUp(key)
        case .autoRepeat: controller.keyRepeat(key)
        }
        // Feedback after the key is out: it never delays a keystroke.
        guard !passesThrough, state == .down else { return }
        forwardedFeedback(.press, key)
    }

    /// Whether feedback waits for `playDeferredFeedback()`, which the daemon calls once the
    /// batch's keys are written, instead of being decided at once: working out a forwarded key's
    /// action and the feedback rules costs more than passing the key on. It covers forwarded keys
    /// and the gestures of a standard action handler (exactly `StandardKeyboardActionHandler`,
    /// which then runs the gesture and leaves its feedback to the engine); a handler of another
    /// class triggers its own, as it always does.
    public var defersFeedback = false
    private enum PendingFeedback {
        /// A forwarded key, with the Shift, AltGr and Caps Lock of its press.
        case forwarded(KeyboardGesture, KeyCode, ModifierKeys, capsLock: Bool)
        /// A gesture the standard action handler ran without its feedback: that handler triggers it.
        case handled(StandardKeyboardActionHandler, KeyboardGesture, KeyboardAction)
    }
    private var pendingFeedback: [PendingFeedback] = []

    private func forwardedFeedback(_ gesture: KeyboardGesture, _ key: KeyCode) {
        let level = self.level
        let pending = PendingFeedback.forwarded(gesture, key, level.modifiers, capsLock: level.capsLock)
        if defersFeedback { pendingFeedback.append(pending) } else { trigger(pending) }
    }

    /// Decides and triggers the feedback held back since the last call, in order.
    public func playDeferredFeedback() {
        guard !pendingFeedback.isEmpty else { return }
        for pending in pendingFeedback { trigger(pending) }
        pendingFeedback.removeAll(keepingCapacity: true)
    }

    private func trigger(_ pending: PendingFeedback) {
        switch pending {
        case .forwarded(let gesture, let key, let modifiers, let capsLock):
            services.feedbackHandler.triggerFeedback(
                for: gesture, on: forwardedAction(for: key, modifiers: modifiers, capsLock: capsLock))
        case .handled(let handler, let gesture, let action):
            handler.triggerFeedback(for: gesture, on: action)   // as its `handle` would have
        }
    }

    /// What a reload carries from the running engine to the next, so that a key held across it
    /// stays held (a Shift held while the configuration is reloaded still capitalises the next
    /// letter) and the layer and locale stay as they were.
    public struct HeldState: Sendable {
        /// Keys down and passed through: down on the output, to be released by the next engine.
        public var forwarded: [KeyCode] = []
        public var keyboardType: KeyboardType = .alphabetic
        public var locale: String = "en"
    }

    /// The picker on screen was clicked on candidate `index`: as if its number were pressed
    /// (0, the base character: as Esc). Nothing when no callout is open or there is no such one.
    public func pickCallout(_ index: Int) {
        if services.searchContext.isOpen {
            if index == 0 { endSearch(.cancel) } else { services.actionHandler.handle(CharacterSearchIntent.choose(index)) }
            return
        }
        let callouts = services.calloutContext
        guard callouts.isOpen, (0...callouts.candidates.count).contains(index) else { return }
        services.actionHandler.handle(index == 0 ? CalloutKeyIntent.cancel : .select(index))
    }

    /// Another application has the focus (`ApplicationSettings` for it): its callouts, bindings
    /// and pass-through take over. What was under way belonged to the window that had the focus:
    /// an open callout closes keeping what it shows and pending long presses and repeats are
    /// dropped, so nothing is typed into the next window; keys held go up the way they went down.
    public func focusChanged(to settings: ApplicationSettings) {
        dismissCallout()
        recognizer.cancelAll()
        calloutsEnabled = settings.callouts
        if bindings != settings.bindings { bindings = settings.bindings }
        forwardsEverything = settings.forwardsEverything
    }

    /// A pointer click or a focus change in the session: the callout closes keeping what it
    /// shows, so no later key edits another field; a search closes typing nothing.
    public func dismissCallout() {
        if services.searchContext.isOpen { endSearch(.cancel) }
        guard services.calloutContext.isOpen else { return }
        services.actionHandler.handle(CalloutKeyIntent.typeThrough)
    }

    /// The keys bound in some layer.
    private static func keys(boundIn bindings: KeyBindings) -> OutputKeyState {
        var keys = OutputKeyState()
        for layer in bindings.layers.values {
            for key in layer.keys { keys.set(key, down: true) }
        }
        return keys
    }

    /// Ends this engine's own work for a successor: closes an open callout, drops pending
    /// gestures, lets go of what handled and dual-role keys hold on the output (their physical
    /// releases then go nowhere), and returns the keys passed through that stay down.
    public func handOver() -> HeldState {
        let forwarded = routes.indices.filter { routes[$0] == .forwarded }.map { KeyCode(UInt16($0)) }
        endOwnGestures()
        let context = services.keyboardContext
        services.keyboardController.releaseAllKeys(except: forwarded)
        return HeldState(forwarded: forwarded, keyboardType: context.keyboardType, locale: context.locale)
    }

    /// Takes over from a predecessor's `handOver()`: its passed-through keys are down here too,
    /// with the modifiers they hold in this keymap; its layer and locale apply when this
    /// configuration still has them.
    public func takeOver(_ held: HeldState) {
        let context = services.keyboardContext
        services.keyboardController.assumeDown(held.forwarded)
        for key in held.forwarded {
            routes[Int(key.rawValue)] = .forwarded
            physical.set(key, down: true)
            if let modifier = context.modifierMap.modifiers(of: key) { context.heldModifiers.formUnion(modifier) }
        }
        let standard: [KeyboardType] = [.alphabetic, .numeric, .symbolic, .emojis]
        if standard.contains(held.keyboardType) || bindings.layers[held.keyboardType] != nil { context.keyboardType = held.keyboardType }
        if context.locales.contains(held.locale) { context.locale = held.locale }
    }

    /// Lets go of every key: the output releases what it holds and pending gestures are dropped.
    /// Used on shutdown, when a device vanishes mid-hold, and before suspend.
    public func releaseAll() {
        endOwnGestures()
        physical = OutputKeyState()
        services.keyboardContext.heldModifiers = []
        services.keyboardController.releaseAllKeys()
    }

    /// Ends what the engine itself is in the middle of: an open callout, pending gestures, the
    /// routes of keys down, and dual-role holds (a layer held on one ends with it).
    private func endOwnGestures() {
        services.calloutContext.close()
        services.searchContext.close(typed: "")
        recognizer.cancelAll()
        for i in routes.indices { routes[i] = .idle; actions[i] = nil }
        if let layer = dualRoles.lazy.compactMap(\.previousLayer).first { services.keyboardContext.keyboardType = layer }
        dualRoles.removeAll()
    }

    /// Releases the given keys as if they went up (a device that vanished held them).
    public func release(keys: [KeyCode], at time: Timestamp) {
        for key in keys where routes[Int(key.rawValue)] != .idle { handle(KeyEvent(key, .up, at: time)) }
    }
}

extension Character {
    /// `isWhitespace`, with ASCII answered without the Unicode property lookup (about 400
    /// instructions: most of what a forwarded key's feedback cost).
    @inline(__always) var isWhitespaceFastASCII: Bool {
        if let ascii = asciiValue { return ascii == 0x20 || (0x09...0x0d).contains(ascii) }
        return isWhitespace
    }
}
