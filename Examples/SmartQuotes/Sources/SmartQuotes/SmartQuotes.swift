import KeyholdKit

/// Types typographic quotes: " opens “ and closes ”, ' becomes ’. Holding either still opens
/// its callouts (the locale's quotation marks), as the standard handler does.
public final class SmartQuotesActionHandler: StandardKeyboardActionHandler {
    private var quoteIsOpen = false

    public override func action(for gesture: KeyboardGesture, on action: KeyboardAction) -> KeyboardAction.GestureAction? {
        guard gesture == .press, case .character(let c) = action else { return super.action(for: gesture, on: action) }
        switch c {
        case "\"":
            quoteIsOpen.toggle()
            let quote = quoteIsOpen ? "“" : "”"
            return { $0.insertText(quote) }
        case "'":
            return { $0.insertText("’") }
        default:
            return super.action(for: gesture, on: action)
        }
    }
}

/// The keyboard: the standard services, with the smart-quotes handler.
open class SmartQuotesKeyboardViewController: KeyboardInputViewController {
    open override func viewDidLoad() {
        keyboardActionHandler = SmartQuotesActionHandler(inputViewController: self)
        super.viewDidLoad()
    }
}
