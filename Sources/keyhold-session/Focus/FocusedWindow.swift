/// The window that has the keyboard focus, as the display server says: the application's ids
/// (Wayland app_id; X11 WM_CLASS instance and class), its process where known (X11
/// _NET_WM_PID), and whether it is fullscreen.
struct FocusedWindow: Equatable {
    var ids: [String]
    var pid: Int32?
    var fullscreen: Bool
}
