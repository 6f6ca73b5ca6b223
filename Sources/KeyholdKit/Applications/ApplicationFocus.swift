/// What has the keyboard focus, as the graphical session says (the companion reports it):
/// which application, and whether a text field of which purpose. Where the desktop says nothing
/// the focus is `.unknown`, and Keyhold behaves as the configuration alone says.
public struct ApplicationFocus: Hashable, Sendable {
    /// What the desktop says of the focused widget.
    public enum TextField: String, Hashable, Sendable, CaseIterable {
        /// The desktop does not say.
        case unknown
        /// No text field: a game, a video player (a fullscreen window that takes no text).
        case none
        case normal
        /// A password field: no picker, no candidates.
        case password
        /// A terminal (its programs take keys, not always text).
        case terminal
    }

    /// The application's ids, most specific first: the Wayland app_id, or X11's WM_CLASS
    /// instance and class. Empty: not known.
    public var ids: [String]
    public var textField: TextField

    public init(ids: [String] = [], textField: TextField = .unknown) {
        self.ids = ids.filter { !$0.isEmpty }
        self.textField = textField
    }

    public static let unknown = ApplicationFocus()

    /// The first id, for `keyhold status`.
    public var name: String? { ids.first }
}
