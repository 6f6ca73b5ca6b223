/// KeyboardKit's standard action handler, for physical keys: characters type on press, backspace
/// deletes, a long press on a character opens its callouts, and every handled gesture triggers
/// feedback. Subclass it and override `action(for:on:)` to change what a gesture does. (Its own
/// helpers are `standard…Action(for:)`, so a subclass may name its helpers as KeyboardKit's
/// articles do, `longPressAction(for:)` and `releaseAction(for:)`, without clashing.)
open class StandardKeyboardActionHandler: KeyboardActionHandler, StandardBehavior {
    public typealias GestureAction = KeyboardAction.GestureAction

    public var keyboardController: KeyboardController {
        didSet { wiringRevision &+= 1 }
    }
    public unowned var keyboardContext: KeyboardContext
    public unowned var calloutContext: CalloutContext
    /// The picker as a search: the services' (they give it to the handler they are given).
    public var searchContext = CharacterSearchContext()
    public var calloutActionProvider: CalloutActionProvider {
        didSet { wiringRevision &+= 1 }
    }
    /// Bumped when the controller or the callout provider is replaced: the engine's
    /// `StandardWiring` is found again then, and otherwise need not look at either.
    private(set) var wiringRevision = 0
    public var feedbackHandler: KeyboardFeedbackHandler

    public init(keyboardController: KeyboardController, keyboardContext: KeyboardContext, calloutContext: CalloutContext,
                calloutActionProvider: CalloutActionProvider, feedbackHandler: KeyboardFeedbackHandler) {
        self.keyboardController = keyboardController; self.keyboardContext = keyboardContext
        self.calloutContext = calloutContext; self.calloutActionProvider = calloutActionProvider
        self.feedbackHandler = feedbackHandler
        hasStandardBehavior = type(of: self) == StandardKeyboardActionHandler.self
    }

    /// Exactly this class: `standardEffect` is then known to be what `action(for:on:)` does.
    public private(set) var hasStandardBehavior = false

    /// The standard handler of a controller's services, as KeyboardKit subclasses are made;
    /// `keyboardController` types elsewhere than the services' text proxy. (Its second parameter
    /// lets a subclass declare its own `init(inputViewController:)`, as KeyboardKit's articles
    /// do, without `override`, and still call this one.)
    public init(inputViewController: KeyboardInputViewController, keyboardController: KeyboardController? = nil) {
        let services = inputViewController.services
        self.keyboardController = keyboardController ?? services.keyboardController
        keyboardContext = services.keyboardContext
        calloutContext = services.calloutContext; calloutActionProvider = services.calloutActionProvider
        searchContext = services.searchContext
        feedbackHandler = services.feedbackHandler
        hasStandardBehavior = type(of: self) == StandardKeyboardActionHandler.self
    }

    /// The key whose gesture is being handled (the context's; callouts remember it).
    public var currentKey: KeyCode? { keyboardContext.currentKey }

    open func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool {
        hasStandardBehavior ? standardEffect(for: gesture, on: action) != nil : self.action(for: gesture, on: action) != nil
    }

    /// Runs what the gesture does, if anything, then its feedback (which the feedback handler may
    /// give a gesture that does nothing, as a heavy haptic on a long-pressed return).
    open func handle(_ gesture: KeyboardGesture, on action: KeyboardAction) {
        if hasStandardBehavior {
            _ = performWithoutFeedback(gesture, on: action)
        } else {
            self.action(for: gesture, on: action)?(keyboardController)
        }
        triggerFeedback(for: gesture, on: action)
    }

    /// What `handle(_:on:)` does but the feedback, for an engine that decides feedback after the
    /// key is written (`KeyholdEngine.defersFeedback`), and only for exactly this class (a
    /// subclass's `handle` may do more than the standard effect): false when the gesture does
    /// nothing (`canHandle` is false), and then no feedback is due either.
    func performWithoutFeedback(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool {
        guard let effect = standardEffect(for: gesture, on: action) else { return false }
        perform(effect, on: keyboardController)
        return true
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
        case .longPress: return opensCallout(action) ? closure(for: .openCallout(action)) : nil
        case .doubleTap: return nil
        }
    }

    /// What a press does: type, delete, hold a key down, switch a layer or locale.
    open func standardPressAction(for action: KeyboardAction) -> GestureAction? {
        standardPressEffect(for: action).map(closure(for:))
    }

    /// What a release does: let go of a key-like action's key.
    open func standardReleaseAction(for action: KeyboardAction) -> GestureAction? {
        standardReleaseEffect(for: action).map(closure(for:))
    }

    // MARK: - The standard gestures as values

    /// What a standard gesture does, as a value. The closures above are made from it; a handler
    /// of exactly this class (nothing overridden) runs it directly, so a key costs no closure
    /// allocations (each press asked `canHandle` for three gestures, each building one).
    private enum Effect {
        case insert(String), delete(times: Int), tap(KeyCode), move(by: Int)
        /// A key held down or let go on the output; the modifier it is, kept in the context.
        case hold(KeyCode, ModifierKeys?), lift(KeyCode, ModifierKeys?)
        case toggle(KeyboardType), nextLocale, nothing, closeCallout, openCallout(KeyboardAction), openSearch
        indirect case both(Effect?, Effect?)
    }

    /// `action(for:on:)` of this class, as a value (kept gesture for gesture in step with it;
    /// `StandardActionHandlerTests` compares the two).
    @inline(__always) private func standardEffect(for gesture: KeyboardGesture, on action: KeyboardAction) -> Effect? {
        switch gesture {
        case .press: return standardPressEffect(for: action)
        case .release: return standardReleaseEffect(for: action)
        case .tap:
            let press = standardPressEffect(for: action), release = standardReleaseEffect(for: action)
            return press == nil && release == nil ? nil : .both(press, release)
        case .repeatPress: return action.repeatsWhenHeld ? standardPressEffect(for: action) : nil
        case .longPress: return opensCallout(action) ? .openCallout(action) : nil
        case .doubleTap: return nil
        }
    }

    @inline(__always) private func standardPressEffect(for action: KeyboardAction) -> Effect? {
        switch action {
        case .character(let text), .text(let text), .emoji(let text): return .insert(text)
        case .space: return .insert(" ")
        case .tab: return .insert("\t")
        case .primary: return .insert("\n")
        case .backspace: return .delete(times: 1)
        case .escape: return .tap(.esc)
        case .moveCursorBackward: return .move(by: -1)
        case .moveCursorForward: return .move(by: 1)
        case .shift, .control, .option, .command, .capsLock, .key:
            guard let key = Self.outputKey(for: action) else { return nil }
            // A key bound to a modifier acts as one: later keys see it held.
            return .hold(key, keyboardContext.modifierMap.modifiers(of: key))
        case .keyboardType(let type): return .toggle(type)
        case .nextLocale: return .nextLocale
        case .search: return .openSearch
        case .none: return .nothing   // handled by doing nothing: the key is swallowed
        case .custom, .image, .dismissKeyboard: return nil
        }
    }

    private func standardReleaseEffect(for action: KeyboardAction) -> Effect? {
        // KeyboardKit dismisses on release; what Keyhold shows is the callout picker.
        if action == .dismissKeyboard { return .closeCallout }
        guard let key = Self.outputKey(for: action) else { return nil }
        return .lift(key, keyboardContext.modifierMap.modifiers(of: key))
    }

    /// A long press on a character opens its callouts, if it has any.
    private func opensCallout(_ action: KeyboardAction) -> Bool {
        guard case .character = action else { return false }
        return !calloutActionProvider.calloutActions(for: action).isEmpty
    }

    /// The effect as a gesture action. It holds the handler weakly, as the closures that change
    /// the context always did; one kept after the handler is gone does nothing.
    private func closure(for effect: Effect) -> GestureAction {
        { [weak self] in self?.perform(effect, on: $0) }
    }

    private func perform(_ effect: Effect, on controller: KeyboardController) {
        switch effect {
        case .insert(let text): controller.insertText(text)
        case .delete(let times): controller.deleteBackward(times: times)
        case .tap(let key): controller.keyDown(key); controller.keyUp(key)
        case .move(let offset): controller.adjustTextPosition(by: offset)
        case .hold(let key, let modifier):
            if let modifier { keyboardContext.heldModifiers.insert(modifier) }
            controller.keyDown(key)
        case .lift(let key, let modifier):
            if let modifier { keyboardContext.heldModifiers.remove(modifier) }
            controller.keyUp(key)
        case .toggle(let type): keyboardContext.keyboardType = keyboardContext.keyboardType == type ? .alphabetic : type
        case .nextLocale: keyboardContext.selectNextLocale()
        case .nothing: break
        case .closeCallout: calloutContext.close()
        case .openCallout(let action): openCallout(for: action)
        case .openSearch: openSearch()
        case .both(let press, let release):
            if let press { perform(press, on: controller) }
            if let release { perform(release, on: controller) }
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

    /// Opens the picker as a search (an open callout closes first, keeping what it shows), which
    /// finds characters by their names in English and the callout locales' languages.
    open func openSearch() {
        calloutContext.close()
        searchContext.locales = keyboardContext.locales
        searchContext.open()
        if searchContext.isOpen { feedbackHandler.triggerAudioFeedback(.system) }
    }

    open func handle(_ intent: CharacterSearchIntent) {
        let search = searchContext
        switch intent {
        case .choose(let n):
            guard let text = search.candidate(n) else { return }   // no such candidate: the key does nothing
            typeSearchChoice(text)
        case .commit:
            if let text = search.candidate(search.highlighted + 1) { typeSearchChoice(text) } else { search.close(typed: "") }
        case .cancel, .typeThrough: search.close(typed: "")
        case .append(let character):
            guard search.append(character) else { return }
            feedbackHandler.triggerAudioFeedback(.input)
            return
        case .deleteBackward:
            search.deleteBackward()
            feedbackHandler.triggerAudioFeedback(.delete)
            return
        case .page(let delta): search.turnPage(by: delta)
        case .move(let delta): search.moveHighlight(by: delta)
        case .ignore: return
        }
        feedbackHandler.triggerHapticFeedback(.selectionChanged)
        feedbackHandler.triggerAudioFeedback(.system)
    }

    /// Types the search's choice through the controller (the output path every key takes), then closes it.
    open func typeSearchChoice(_ text: String) {
        keyboardController.insertText(text)
        searchContext.close(typed: text)
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
