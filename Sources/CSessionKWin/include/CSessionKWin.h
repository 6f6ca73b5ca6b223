#ifndef KEYHOLD_CSESSIONKWIN_H
#define KEYHOLD_CSESSIONKWIN_H
#include <stdint.h>

// keyhold-session on KDE Plasma: KWin's input method (zwp_input_method_v1) as the commit
// surface. KWin starts the program its "Virtual Keyboard" setting names and offers the input
// method, and the input panel, only on the connection it hands that program (WAYLAND_SOCKET).
// Text is committed to the focused text input (text-input v1, v2 or v3: Qt, GTK); the picker is
// an input panel overlay KWin places under the text cursor (drawn with Pango, PickerPanel.c).
// Nothing grabs the keyboard: the daemon reads the keys from evdev. It runs on the connection
// CSessionWayland opened, whose dispatch delivers its events. And KDE's keyboard layouts
// (KDEKeyboardLayouts.c).
//
// No state of its own: everything lives in the structs the caller owns (zeroed), passed to
// every call; the listeners and D-Bus callbacks get them as their data.

struct wl_display;
struct wl_registry;
struct wl_compositor;
struct wl_shm;
struct wl_surface;
struct zwp_input_method_v1;
struct zwp_input_panel_v1;
struct zwp_input_panel_surface_v1;
struct zwp_input_method_context_v1;

// The picker's panel surface.
struct kpp_state {
    struct wl_surface *surface;
    struct zwp_input_panel_surface_v1 *panel_surface;
    int visible;
};

struct khim_state {
    struct wl_display *display;   // CSessionWayland's connection: not closed here
    struct wl_registry *registry;
    struct zwp_input_method_v1 *input_method;
    struct zwp_input_panel_v1 *input_panel;
    struct wl_compositor *compositor;
    struct wl_shm *shm;
    // The focused text input's context, while KWin says one has the focus.
    struct zwp_input_method_context_v1 *context;
    uint32_t serial;   // of the text input's last committed state: commits name it
    int purpose;
    int focus_changes;
    unsigned focus_generation;   // counts every activate and deactivate
    // When the focused program last told KWin of its text (CLOCK_MONOTONIC µs; 0: not since it
    // got the focus).
    int64_t last_state_update;
    // Since the focus came: surrounding texts KWin passed on, and how many differed from the one
    // before (a digest of text, cursor and anchor).
    int text_events, text_changes;
    uint64_t text_digest;
    struct kpp_state picker;
};

// Binds the input method and the panel on `display` (CSessionWayland's): 1, or 0 when this
// connection is not offered them.
int khim_open(struct khim_state *s, struct wl_display *display);
void khim_close(struct khim_state *s);
// Whether a program's text input has the focus (KWin activated a context).
int khim_active(const struct khim_state *s);
// The focused text input's content purpose (text-input-unstable-v1 values: 8 password, also
// for a field that hides its text; 12 terminal); -1 without one.
int khim_purpose(const struct khim_state *s);
// When the focused program last told KWin of its text input's state (its text, its cursor: a
// text-input state update, passed on as surrounding_text and commit_state), CLOCK_MONOTONIC µs;
// 0 when it has sent none since it got the focus. An update counts once the text has changed
// twice since the focus came: KWin passes one on as a program takes the focus, and again as the
// program states it (Konsole, which then says nothing of keys).
int64_t khim_last_state_update(const struct khim_state *s);
// Changes whenever a text input gains or loses the focus.
unsigned khim_focus_generation(const struct khim_state *s);
// How often the focused text input came or went since the last call.
int khim_take_focus_changes(struct khim_state *s);
// Commits UTF-8 text to the focused text input: 0, or -1 when none has the focus.
int khim_commit(struct khim_state *s, const char *text);
// The picker: the base character and the candidates numbered 1..count, `selected` (0: the base)
// highlighted, drawn into a panel surface KWin shows at the text cursor; a `header` (NULL or "":
// none; the highlighted candidate's name) is a line above them; no `base` (NULL or ""): a
// search's candidates alone. 0, or -1 when it cannot be drawn.
int khim_show_picker(struct khim_state *s, const char *base, const char *const *candidates, int count, int selected,
                     const char *header);
void khim_hide_picker(struct khim_state *s);
int khim_picker_visible(const struct khim_state *s);

// KDE's keyboard layouts: kxkbrc's list, the current one as KWin's org.kde.keyboard service
// says (asked without waiting: its answer comes through GLib's main context).
struct khk_state {
    void *bus;            // GDBusConnection *
    unsigned current;     // the current layout's index in kxkbrc's list
    int changes;
};
// 1 in a KDE session (the session bus reached), else 0.
int khk_open(struct khk_state *s);
void khk_close(struct khk_state *s);
// The current layout, its variant and KDE's XKB options: 1, or 0 when KDE's settings name no
// layouts (KWin then uses the system's, the seat's keymap).
int khk_current(const struct khk_state *s, char *layout, int layout_size, char *variant, int variant_size, char *options, int options_size);
// How often the layout or the list changed since the last call.
int khk_take_changes(struct khk_state *s);

// KWin's input-method slot (KWinInputMethodSlot.c): what System Settings' Apply does besides
// writing kwinrc, on the session bus. Tells the programs that watch kwinrc (KWin) that KEY of
// GROUP changed, as KConfig's Notify flag does: 1 once the signal has left (a write to the local
// bus socket is waited for), 0 without a session bus.
int khs_announce_config_change(const char *file, const char *group, const char *key);
// Whether NAME has an owner on the session bus (fcitx5's org.fcitx.Fcitx5: it runs in this
// session): 1 or 0 (also without a session bus).
int khs_bus_name_has_owner(const char *name);
// Shows the user a notification through the desktop's notification server (the request written,
// its answer not waited for): 1 when it was asked, 0 without a session bus.
int khs_notify(const char *summary, const char *body);

#endif
