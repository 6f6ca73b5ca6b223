#ifndef KEYHOLD_CSESSIONWAYLAND_H
#define KEYHOLD_CSESSIONWAYLAND_H
#include <stdint.h>

// keyhold-session's Wayland backend: a zwp_virtual_keyboard_v1 with a keymap of its own (the
// characters it types, each on a key of that keymap), and the desktop's keymap as the seat's
// wl_keyboard reports it. One connection per process; not thread-safe.

// Connects to $WAYLAND_DISPLAY, with a virtual keyboard or (0: GNOME, KDE, which keep virtual
// keyboards to themselves) only to read the keymap; returns the connection's fd, or -1 no
// compositor, -2 the compositor has no zwp_virtual_keyboard_manager_v1, -3 no seat.
int khw_open(int with_virtual_keyboard);
void khw_close(void);
// The open connection (NULL before khw_open): CSessionInputMethod binds KWin's input method on it.
struct wl_display;
struct wl_display *khw_display(void);
// Dispatches what the compositor sent (`readable`: read the socket first; 0: only what is
// already read) and flushes requests; 1 when the desktop's keymap changed, 0 if not, -1 when
// the connection is lost.
int khw_dispatch(int readable);
// Types one Unicode scalar (press and release on a key of the virtual keyboard's keymap, the
// keymap uploaded again when the character is new): 0, or -1 when it has no keysym (or the
// connection has no virtual keyboard).
int khw_type(uint32_t codepoint);
// Sends the requests: 0, or -1 when the connection is lost.
int khw_flush(void);
// Waits until the compositor has handled every request sent: 0, or -1 when the connection is lost.
int khw_sync(void);
// The desktop's keymap as XKB text (malloc'd; the caller frees), NULL before the seat sent one.
char *khw_keymap_text(void);
// The virtual keyboard's keymap for these keysyms, the i-th on XKB keycode khw_slot_keycode(i),
// with the editing keys (BackSpace, Delete, Return, arrows...) on their evdev keycodes
// (malloc'd). Kept small (one key type, no compatibility rules): each client compiles it
// whenever this keyboard types after another.
char *khw_keymap_for(const uint32_t *keysyms, int count);
// The XKB keycode of the virtual keyboard's i-th character: from 9 up, past the editing keys'.
uint32_t khw_slot_keycode(int slot);
// Whether the compositor reports the active window (zwlr_foreign_toplevel_manager_v1).
int khw_follows_focus(void);
// How often another window became active (or none) since the last call.
int khw_take_focus_changes(void);
// The active window's app_id and whether it is fullscreen: 1, or 0 when none is active (or the
// compositor does not say).
int khw_focus(char *app_id, int app_id_size, int *fullscreen);

#endif
