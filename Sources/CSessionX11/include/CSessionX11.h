// keyhold-session's X11 backend: types any character through XTest by giving it, for a moment,
// a spare keycode (one the keymap leaves empty), and reads the desktop's keymap as XKB text
// through xkbcommon-x11. Kept in C so Swift sees five functions, not Xlib.
#ifndef CSESSIONX11_H
#define CSESSIONX11_H
#include <stdint.h>

// Opens $DISPLAY, checks XTest and XKB, finds the spare keycodes and asks for keymap change
// events. Returns the connection's fd, or -1 (no display), -2 (no XTest), -3 (no XKB),
// -4 (no spare keycode).
int khx_open(void);
// How many spare keycodes were found.
int khx_spare_count(void);
// Queues the key events that type one Unicode code point (press and release). Returns 0, or -1
// when the code point cannot be typed.
int khx_type(uint32_t codepoint);
// Writes what is queued to the server.
void khx_flush(void);
// Waits until the server has processed everything written (and delivered the key events).
void khx_sync(void);
// Gives every spare keycode back its empty mapping (at exit). Returns how many were restored.
int khx_restore(void);
// The X keycodes holding a character now (at most `capacity`); returns how many.
int khx_temporary_keycodes(uint8_t *keycodes, int capacity);
// Reads the X events waiting; returns 1 when the desktop replaced the keymap (not this process's
// own one-key changes).
int khx_dispatch(void);
// Follows the X input device named `name` (Keyhold's virtual keyboard) through XInput 2 raw
// events: how many key transitions from it the server has delivered. Returns 1 when the
// device was found, 0 when not (then khx_transitions_seen stays 0), -1 without XInput 2.2.
int khx_follow_device(const char *name);
// Key transitions from the followed device the server has delivered since khx_follow_device or
// khx_reset_count.
uint64_t khx_transitions_seen(void);
// Pointer button presses (any pointer, anywhere) read since the last call (needs
// khx_follow_device to have set up XInput 2).
int khx_take_clicks(void);
// How often the keyboard focus moved into another top-level window since the last call.
int khx_take_focus_changes(void);
// Reads the X events waiting, then counts from zero again. Returns what khx_dispatch returned.
int khx_reset_count(void);
// The application whose window has the keyboard focus: WM_CLASS instance and class, its
// _NET_WM_PID (0: not set) and whether it is fullscreen (_NET_WM_STATE_FULLSCREEN, or a window
// as big as the screen where no window manager says so). 1, or 0 when no window has the focus.
int khx_focus(char *instance, int instance_size, char *klass, int klass_size, int *pid, int *fullscreen);
// The keymap as XKB text (malloc'd; the caller frees it), or NULL.
char *khx_keymap_text(void);
void khx_close(void);
#endif
