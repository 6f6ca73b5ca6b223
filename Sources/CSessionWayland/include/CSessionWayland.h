#ifndef KEYHOLD_CSESSIONWAYLAND_H
#define KEYHOLD_CSESSIONWAYLAND_H
#include <stdint.h>

// keyhold-session's Wayland backend (wlroots compositors: sway, Hyprland, river, labwc...): the
// compositor as the display connection (the seat's keymap, the active window through
// wlr-foreign-toplevel-management), and a zwp_virtual_keyboard_v1 with a keymap of its own as a
// commit surface (each character on a key of that keymap). GNOME's and KDE's backends open it
// without the virtual keyboard, for the seat's keymap.
//
// No state of its own: everything lives in the `khw_state` the caller owns (zeroed, then
// khw_open), passed to every call; the listeners get it as their data. Nothing here waits: a
// round trip is started (khw_sync_start) and its answer comes with a later dispatch.

struct wl_display;
struct wl_registry;
struct wl_seat;
struct wl_keyboard;
struct wl_callback;
struct zwp_virtual_keyboard_manager_v1;
struct zwp_virtual_keyboard_v1;
struct zwlr_foreign_toplevel_manager_v1;
struct zwlr_foreign_toplevel_handle_v1;

enum { KHW_MAX_MAPPED = 128 };

struct khw_state {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_seat *seat;
    struct wl_keyboard *keyboard;
    struct zwp_virtual_keyboard_manager_v1 *manager;
    struct zwp_virtual_keyboard_v1 *virtual_keyboard;
    struct zwlr_foreign_toplevel_manager_v1 *toplevels;
    struct zwlr_foreign_toplevel_handle_v1 *active_toplevel;
    int focus_changes;
    char *desktop_keymap;   // malloc'd XKB text
    unsigned keymap_generation, reported_generation;
    // Character i is on XKB keycode khw_slot_keycode(i) of the virtual keyboard's keymap.
    uint32_t mapped[KHW_MAX_MAPPED];
    int mapped_count;
    struct wl_callback *sync;   // the round trip under way
    int sync_answered;
};

// Connects to $WAYLAND_DISPLAY (`s` zeroed by the caller), with a virtual keyboard or (0: GNOME,
// KDE, which keep virtual keyboards to themselves) only to read the keymap; returns the
// connection's fd, or -1 no compositor, -2 the compositor has no zwp_virtual_keyboard_manager_v1,
// -3 no seat.
int khw_open(struct khw_state *s, int with_virtual_keyboard);
void khw_close(struct khw_state *s);
// Dispatches what the compositor sent (`readable`: read the socket first; 0: only what is
// already read) and flushes requests; 1 when the desktop's keymap changed, 0 if not, -1 when
// the connection is lost.
int khw_dispatch(struct khw_state *s, int readable);
// Types one Unicode scalar (press and release on a key of the virtual keyboard's keymap, the
// keymap uploaded again when the character is new): 0, or -1 when it has no keysym (or the
// connection has no virtual keyboard).
int khw_type(struct khw_state *s, uint32_t codepoint);
// Sends the requests: 0 all sent, 1 when the compositor is slow to read and some wait (flush
// again once the fd is writable), -1 when the connection is lost.
int khw_flush(struct khw_state *s);
// Starts a round trip: once answered (khw_sync_done after a dispatch), the compositor has
// handled every request sent before it.
int khw_sync_start(struct khw_state *s);
// 1 when the round trip last started has been answered (or none is under way), else 0.
int khw_sync_done(const struct khw_state *s);
// The desktop's keymap as XKB text (malloc'd; the caller frees), NULL before the seat sent one.
char *khw_keymap_text(const struct khw_state *s);
// The virtual keyboard's keymap for these keysyms, the i-th on XKB keycode khw_slot_keycode(i),
// with the editing keys (BackSpace, Delete, Return, arrows...) on their evdev keycodes
// (malloc'd). Kept small (one key type, no compatibility rules): each client compiles it
// whenever this keyboard types after another.
char *khw_keymap_for(const uint32_t *keysyms, int count);
// The XKB keycode of the virtual keyboard's i-th character: from 9 up, past the editing keys'.
uint32_t khw_slot_keycode(int slot);
// Whether the compositor reports the active window (zwlr_foreign_toplevel_manager_v1).
int khw_follows_focus(const struct khw_state *s);
// How often another window became active (or none) since the last call.
int khw_take_focus_changes(struct khw_state *s);
// The active window's app_id and whether it is fullscreen: 1, or 0 when none is active (or the
// compositor does not say).
int khw_focus(const struct khw_state *s, char *app_id, int app_id_size, int *fullscreen);

#endif
