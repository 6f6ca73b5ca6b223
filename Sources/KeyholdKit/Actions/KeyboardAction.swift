/// What a key does, in KeyboardKit's vocabulary. A key's gestures (press, long press, ...) are
/// handled by running them on its action through the `KeyboardActionHandler`.
public enum KeyboardAction: Hashable, Sendable {
    /// Types one character (and opens its callouts on long press).
    case character(String)
    /// Types a string.
    case text(String)
    case backspace
    case space
    case tab
    case primary(PrimaryType)
    case escape
    case shift
    case capsLock
    case control
    case option
    case command
    case moveCursorBackward
    case moveCursorForward
    /// Switches the active layer (a keyboard type in KeyboardKit's words).
    case keyboardType(KeyboardType)
    /// Cycles the configured locales.
    case nextLocale
    /// Opens the picker as a search: characters by name (`CharacterSearchContext`).
    case search
    case emoji(String)
    /// A named action for custom handlers to implement.
    case custom(named: String)
    /// Does nothing, swallowing the key.
    case none
    /// Sends this key to the virtual keyboard unchanged.
    case key(KeyCode)
    /// KeyboardKit's "hide the keyboard". A physical keyboard cannot hide; what Keyhold shows on
    /// its own is the callout picker, so the standard handler closes an open callout on release,
    /// keeping what it shows.
    case dismissKeyboard
    /// KeyboardKit's image key. Linux keyboards have no image keys: the standard handler does
    /// nothing with it (the key passes through unchanged); custom handlers give it a meaning.
    case image(description: String, keyboardImageName: String, imageName: String)

    /// What one gesture does on an action: a closure run with the text proxy.
    public typealias GestureAction = (KeyboardController) -> Void

    /// KeyboardKit's shorthand for the return key, `.primary(.return)`.
    public static var `return`: KeyboardAction { .primary(.return) }

    /// KeyboardKit's primary (return) key kinds.
    public enum PrimaryType: String, Hashable, Sendable, CaseIterable {
        case `return`, done, go, newLine, ok, search, send
    }

    /// Actions that change input text, which get the input sound.
    public var isInputAction: Bool {
        switch self {
        case .character, .text, .space, .tab, .emoji: return true
        default: return false
        }
    }

    /// Actions that act on the keyboard itself, which get the system sound.
    public var isSystemAction: Bool {
        switch self {
        case .shift, .capsLock, .control, .option, .command, .keyboardType, .nextLocale, .search, .primary, .escape,
             .moveCursorBackward, .moveCursorForward, .custom, .dismissKeyboard:
            return true
        default: return false
        }
    }

    /// Whether holding the key repeats its press action (KeyboardKit repeats backspace; a physical
    /// keyboard user also expects cursor keys, space and plain characters to repeat). A `.key`
    /// is not repeated by Keyhold: it is held down on the virtual keyboard, which repeats it.
    public var repeatsWhenHeld: Bool {
        switch self {
        case .backspace, .moveCursorBackward, .moveCursorForward, .space, .character: return true
        default: return false
        }
    }
}
