import Glibc
import KeyholdKit
import KeyholdLinux

/// What the companion works with in its session, chosen by the desktop it runs in: the display
/// connection, the commit surface, how a character keeps behind the keys before it, where the
/// current layout is read, and the picker.
///
///     desktop         display      commit surface           ordering            picker
///     X11             X server     XTest                    XInput 2 count      overlay (GTK, at the caret)
///     wlroots         compositor   virtual keyboard         round trip          overlay (layer shell)
///     GNOME           either       IBus (panel extension)   keys passing IBus   IBus's lookup table
///     KDE Plasma      compositor   KWin's input method      the program's word  KWin's input panel
///     KDE with fcitx5 compositor   fcitx5 (Keyhold's addon) keys passing fcitx5 fcitx5's candidate list
final class Desktop {
    let display: DisplayConnection
    let surface: CommitSurface
    let ordering: KeyOrdering
    let layouts: LayoutSource?
    let picker: CandidatePicker?
    /// The companion's own picker overlay (X11, wlroots), which also says through AT-SPI what has
    /// the focus.
    let overlay: PickerOverlay?
    /// What the companion cannot do here and why: the daemon's `keyhold status` shows it.
    var limitation: String? { surface.limitation ?? fixedLimitation }
    private let fixedLimitation: String?

    private init(display: DisplayConnection, surface: CommitSurface, ordering: KeyOrdering, layouts: LayoutSource? = nil,
                 picker: CandidatePicker?, overlay: PickerOverlay? = nil, limitation: String? = nil) {
        self.display = display; self.surface = surface; self.ordering = ordering; self.layouts = layouts
        self.picker = picker; self.overlay = overlay; fixedLimitation = limitation
    }

    enum Choice: Error, CustomStringConvertible {
        case noSession
        var description: String { "no graphical session (neither WAYLAND_DISPLAY nor DISPLAY is set)" }
    }

    /// The session's desktop, from the environment: a Wayland session is typed into through the
    /// compositor (its X clients included, through Xwayland); X11 only where there is no Wayland.
    /// KWin starts the program its Virtual Keyboard setting names with a connection of its own
    /// that alone has the input method (`kwinInputMethod`: WAYLAND_SOCKET, which connecting consumes).
    static func open(wayland: Bool, kwinInputMethod: Bool, currentDesktop: String?) throws -> Desktop {
        let desktops = currentDesktop?.split(separator: ":") ?? []
        if kwinInputMethod {
            let seat = try WaylandDisplay(virtualKeyboard: false)
            let method = try KWinSurface(seat: seat)
            return Desktop(display: seat, surface: method, ordering: KWinOrdering(method: method, seat: seat),
                           layouts: KDEKeyboardLayouts(), picker: KWinPanelPicker(method: method))
        }
        if wayland {
            do throws(WaylandDisplay.OpenError) {
                let compositor = try WaylandDisplay(virtualKeyboard: true)
                let overlay = PickerOverlay()
                return Desktop(display: compositor, surface: VirtualKeyboardSurface(display: compositor),
                               ordering: RoundTripOrdering(display: compositor), picker: overlay, overlay: overlay)
            } catch .noVirtualKeyboard {
                // GNOME and KDE Plasma keep virtual keyboards to their own input methods: in KDE the
                // user's fcitx5 where it is theirs, else IBus (GNOME runs it; elsewhere the user may).
                // (Not fcitx5 in GNOME yet: in CI a pick's é went ahead of its BackSpace there. A GTK
                // program's fcitx5 module likely reports its text as it takes a key, before the
                // key's change, which then proves nothing of the key.)
                if desktops.contains("KDE"), Fcitx5Surface.isChosen(kwinSlot: KDEInputMethodChoice.slot()) {
                    return fcitx5(seat: try WaylandDisplay(virtualKeyboard: false))
                }
                var limitation: String?
                if desktops.contains("KDE") {
                    limitation = KDEInputMethodChoice.takeSlotIfFree(ibusRunning: IBusSurface.isRunning)
                    Log.notice(limitation!)
                }
                return ibus(seat: try WaylandDisplay(virtualKeyboard: false), limitation: limitation)
            }
        }
        guard getenv("DISPLAY") != nil else { throw Choice.noSession }
        // GNOME on X11 runs IBus as on Wayland, and its programs take text through it; XTest
        // would type there too, but the picker would be an overlay of ours and accents would
        // race the keys IBus holds back. Elsewhere IBus is the way where it runs at the start.
        let server = try X11Display()
        if desktops.contains("GNOME") || IBusSurface.isRunning { return ibus(seat: server) }
        let overlay = PickerOverlay()
        return Desktop(display: server, surface: XTestSurface(display: server), ordering: XInputOrdering(display: server),
                       picker: overlay, overlay: overlay)
    }

    /// IBus, with `seat` as the display connection (the compositor's or the X server's): its fd,
    /// its round trips, the seat's keymap where GNOME's settings do not say; the X server also says
    /// which window has the focus and sees clicks.
    private static func ibus(seat: DisplayConnection, limitation: String? = nil) -> Desktop {
        let ibus = IBusSurface()
        return Desktop(display: seat, surface: ibus, ordering: IBusOrdering(ibus: ibus, seat: seat, program: ProgramAnswers()), layouts: GNOMEInputSources(ibus: ibus),
                       picker: IBusLookupTablePicker(ibus: ibus), limitation: limitation)
    }

    /// fcitx5, through Keyhold's addon, with `seat` as the display connection (its keymap).
    private static func fcitx5(seat: DisplayConnection) -> Desktop {
        let fcitx5 = Fcitx5Surface()
        return Desktop(display: seat, surface: fcitx5, ordering: Fcitx5Ordering(link: fcitx5.link),
                       picker: Fcitx5CandidatePicker(link: fcitx5.link))
    }

    /// For the log line on connect.
    var summary: String { surface.summary + (layouts.map { ", \($0.summary)" } ?? "") }

    /// Reads what the display server sent (`readable`: its fd polled readable); true when the
    /// desktop's keymap may have changed.
    func dispatch(readable: Bool) throws(DisplayLost) -> Bool {
        let seatChanged = try display.dispatch(readable: readable)
        guard let layouts else { return seatChanged }
        let changed = layouts.takeChanges()
        return layouts.replacesSeatChanges ? changed : changed || seatChanged
    }

    /// The desktop's keymap as XKB text: the current layout's where the desktop keeps it in its
    /// settings, else the seat's.
    func keymapText() -> String? { layouts?.keymapText() ?? display.keymapText() }

    /// What else than the display's fd the loop polls: the surface's.
    var wakeFD: Int32? { surface.wakeFD }

    func takeFocusChanges() -> Int { surface.takeFocusChanges() + display.takeFocusChanges() }

    /// Puts the desktop back as it was (when stopping).
    func restore() { surface.restore() }
}
