/// KeyboardKit's standard action handler, for physical keys: characters type on press, backspace
/// deletes, a long press on a character opens its callouts, and every handled gesture triggers
/// feedback. Subclass it and override `action(for:on:)` to change what a gesture does. (Its own
/// helpers are `standard…Action(for:)`, so a subclass may name its helpers as KeyboardKit's
/// articles do, `longPressAction(for:)` and `releaseAction(for:)`, without clashing.)
/// Stored properties are `@exclusivity(unchecked)` (one thread, every key): see ``KeyholdEngine``.
open class StandardKeyboardActionHandler: KeyboardActionHandler {
    public typealias GestureAction = KeyboardAction.GestureAction

    @exclusivity(unchecked) public var keyboardController: KeyboardController
    @exclusivity(unchecked) public unowned var keyboardContext: KeyboardContext
    @exclusivity(unchecked) public unowned var calloutContext: CalloutContext
    @exclusivity(unchecked) public var calloutActionProvider: CalloutActionProvider
    @exclusivity(unchecked) public var feedbackHandler: KeyboardFeedbackHandler

    public init(keyboardController: KeyboardController, keyboardContext: KeyboardContext, calloutContext: CalloutContext,
                calloutActionProvider: CalloutActionProvider, feedbackHandler: KeyboardFeedbackHandler) {
        self.keyboardController = keyboardController; self.keyboardContext = keyboardContext
        self.calloutContext = calloutContext; self.calloutActionProvider = calloutActionProvider
        self.feedbackHandler = feedbackHandler
    }

    /// The standard handler of a controller's services, as KeyboardKit subclasses are made;
    /// `keyboardController` types elsewhere than the services' text proxy. (Its second parameter
    /// lets a subclass declare its own `init(inputViewController:)`, as KeyboardKit's articles
    /// do, without `override`, and still call this one.)
    public init(inputViewController: KeyboardInputViewController, keyboardController: KeyboardController? = nil) {
        let services = inputViewController.services
        self.keyboardController = keyboardController ?? services.keyboardController
        keyboardContext = services.keyboardContext
        calloutContext = services.calloutContext; calloutActionProvider = services.calloutActionProvider
        feedbackHandler = services.feedbackHandler
    }

    /// The key whose gesture is being handled (the context's; callouts remember it).
    public var currentKey: KeyCode? { keyboardContext.currentKey }

    open func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool {
        self.action(for: gesture, on: action) != nil
    }

    /// Runs what the gesture does, if anything, then its feedback (which the feedback handler may
    /// give a gesture that does nothing, as a heavy haptic on a long-pressed return).
    open func handle(_ gesture: KeyboardGesture, on action: KeyboardAction) {
        self.action(for: gesture, on: action)?(keyboardController)
        triggerFeedback(for: gesture, on: action)
    }

    open func triggerFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) {
        feedbackHandler.triggerFeedback(for: gesture, on: action)
    }

    /// What `gesture` does on `action`, or nil when it does nothing.
    open func action(for gesture: KeyboardGesture, on action: KeyboardAction) -> GestureAction? {
        switch gesture {
        case .press: return standardPressAction(for: action)
        case .release: return standardReleaseAction(for: action)
        case .tap:
            let press = standardPressAction(for: action), release = standardReleaseAction(for: action)
            guard press != nil || release != nil else { return nil }
            return { press?($0); release?($0) }
        case .repeatPress:
            // A `.key` is held down on the virtual keyboard, which repeats it itself.
            return action.repeatsWhenHeld ? standardPressAction(for: action) : nil
        case .longPress:
            // A long press on a character opens its callouts, if it has any.
            guard case .character = action, !calloutActionProvider.calloutActions(for: action).isEmpty else { return nil }
            return { [weak self] _ in self?.openCallout(for: action) }
        case .doubleTap: return nil
        }
    }

    /// What a press does: type, delete, hold a key down, switch a layer or locale.
    open func standardPressAction(for action: KeyboardAction) -> GestureAction? {
        switch action {
        case .character(let text), .text(let text), .emoji(let text): return { $0.insertText(text) }
        case .space: return { $0.insertText(" ") }
        case .tab: return { $0.insertText("\t") }
        case .primary: return { $0.insertText("\n") }
        case .backspace: return { $0.deleteBackward(times: 1) }
        case .escape: return { $0.keyDown(.esc); $0.keyUp(.esc) }
        case .moveCursorBackward: return { $0.adjustTextPosition(by: -1) }
        case .moveCursorForward: return { $0.adjustTextPosition(by: 1) }
        case .shift, .control, .option, .command, .capsLock, .key:
            guard let key = Self.outputKey(for: action) else { return nil }
            // A key bound to a modifier acts as one: later keys see it held.
            let modifier = keyboardContext.modifierMap.modifiers(of: key)
            return { [weak self] in
                if let modifier { self?.keyboardContext.heldModifiers.insert(modifier) }
                $0.keyDown(key)
            }
        case .keyboardType(let type):
            return { [weak self] _ in
                guard let context = self?.keyboardContext else { return }
                context.keyboardType = context.keyboardType == type ? .alphabetic : type
            }
        case .nextLocale: return { [weak self] _ in self?.keyboardContext.selectNextLocale() }
        case .none: return { _ in }   // handled by doing nothing: the key is swallowed
        case .custom, .image, .dismissKeyboard: return nil
        }
    }

    /// What a release does: let go of a key-like action's key.
    open func standardReleaseAction(for action: KeyboardAction) -> GestureAction? {
        // KeyboardKit dismisses on release; what Keyhold shows is the callout picker.
        if action == .dismissKeyboard { return { [weak self] _ in self?.calloutContext.close() } }
        guard let key = Self.outputKey(for: action) else { return nil }
        let modifier = keyboardContext.modifierMap.modifiers(of: key)
        return { [weak self] in
            if let modifier { self?.keyboardContext.heldModifiers.remove(modifier) }
            $0.keyUp(key)
        }
    }

    /// Opens the callout for a character typed on press, if it has candidates.
    open func openCallout(for action: KeyboardAction) {
        guard case .character(let base) = action else { return }
        let candidates = calloutActionProvider.calloutActions(for: action).compactMap { a -> String? in
            if case .character(let c) = a { return c } else { return nil }
        }
        calloutContext.open(key: currentKey ?? KeyCode(0), base: base, candidates: candidates)
        // The long press itself gave its haptic; opening is a system event, heard as such.
        if calloutContext.isOpen { feedbackHandler.triggerAudioFeedback(.system) }
    }

    open func handle(_ intent: CalloutKeyIntent) {
        switch intent {
        case .select(let n): showCallout(n); calloutContext.close()
        case .next: showCallout(calloutContext.index(movedBy: 1))
        case .previous: showCallout(calloutContext.index(movedBy: -1))
        case .commit, .typeThrough: calloutContext.close()
        case .cancel: showCallout(0); calloutContext.close()
        case .ignore: return
        }
        feedbackHandler.triggerHapticFeedback(.selectionChanged)
        feedbackHandler.triggerAudioFeedback(.system)
    }

    /// Replaces the character the open callout shows with its candidate `index` (0: the base).
    open func showCallout(_ index: Int) {
        let callout = calloutContext
        guard callout.isOpen, index != callout.selectedIndex, (0...callout.candidates.count).contains(index) else { return }
        // One Backspace per code point: a candidate like ą̃ is typed as two, and programs delete
        // combining sequences a code point at a time (GTK, the console, terminals).
        keyboardController.deleteBackward(times: callout.shown.unicodeScalars.count)
        keyboardController.insertText(callout.text(at: index))
        callout.select(index)
    }

    /// The key a key-like action holds on the output.
    public static func outputKey(for action: KeyboardAction) -> KeyCode? {
        switch action {
        case .key(let key): return key
        case .shift: return .leftShift
        case .control: return .leftCtrl
        case .option: return .leftAlt
        case .command: return .leftMeta
        case .capsLock: return .capsLock
        default: return nil
        }
    }
}
