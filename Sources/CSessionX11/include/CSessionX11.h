// keyhold-session's X11 backend: the X server as the display connection (the keymap as XKB text
// through xkbcommon-x11, the focused window, clicks, the keys of Keyhold's virtual keyboard the
// server has delivered, through XInput 2), and XTest as a commit surface: any character is typed
// by giving it, for a moment, a spare keycode (one the keymap leaves empty).
//
// No state of its own: everything lives in the `khx_state` the caller owns (zeroed, then
// khx_open), passed to every call. Nothing here waits for the server but the few queries that
// read its state (the keymap, the focused window); a round trip is started and its answer
// looked for later (khx_sync_start, khx_sync_done).
#ifndef CSESSIONX11_H
#define CSESSIONX11_H
#include <stdint.h>

enum { KHX_MAX_SPARE = 32 };

struct khx_spare {
    uint8_t keycode;
    uint32_t codepoint;   // 0: empty
    int64_t last_used;    // CLOCK_MONOTONIC ns
};

struct khx_state {
    void *display;   // Display *
    int xkb_event_base;
    // A hash of every keysym on keycodes that are not spares: what the desktop's keymap is.
    uint64_t keymap_fingerprint;
    int keysyms_per_keycode;
    struct khx_spare spares[KHX_MAX_SPARE];
    int spare_count;
    int xi_opcode;         // -1 until XInput 2 is set up
    int followed_device;   // -1: none
    uint64_t transitions_seen;
    int clicks;            // pointer button presses (not wheel) since khx_take_clicks
    int focus_changes;     // the keyboard focus moved to another top-level window
    unsigned int sync_sequence;   // the round trip under way (its request's sequence); 0: none
    int sync_answered;
};

// Opens $DISPLAY into `s` (zeroed by the caller), checks XTest and XKB, finds the spare keycodes
// and asks for keymap and focus events. Returns the connection's fd, or -1 (no display), -2 (no
// XTest), -3 (no XKB), -4 (no spare keycode).
int khx_open(struct khx_state *s);
void khx_close(struct khx_state *s);
// How many spare keycodes were found.
int khx_spare_count(const struct khx_state *s);
// Queues the key events that type one Unicode code point (press and release): 0; -1 when the
// code point cannot be typed; or, when every spare keycode was used too recently to take another
// character (a program may not have read the last one yet), the nanoseconds to wait before
// asking again.
int64_t khx_type(struct khx_state *s, uint32_t codepoint);
// Writes what is queued to the server.
void khx_flush(struct khx_state *s);
// Starts a round trip: once it is answered (khx_sync_done), the server has processed everything
// written before (and delivered the key events).
void khx_sync_start(struct khx_state *s);
// 1 when the round trip last started is answered (reading what the socket has, never waiting),
// 0 not yet; -1 when the connection is lost.
int khx_sync_done(struct khx_state *s);
// Gives every spare keycode back its empty mapping (at exit). Returns how many were restored.
int khx_restore(struct khx_state *s);
// The X keycodes holding a character now (at most `capacity`); returns how many.
int khx_temporary_keycodes(const struct khx_state *s, uint8_t *keycodes, int capacity);
// Reads the X events waiting; returns 1 when the desktop replaced the keymap (not this process's
// own one-key changes), -1 when the connection is lost.
int khx_dispatch(struct khx_state *s);
// Follows the X input device named `name` (Keyhold's virtual keyboard) through XInput 2 raw
// events: how many key transitions from it the server has delivered. Returns 1 when the
// device was found, 0 when not (then the count stays 0), -1 without XInput 2.2.
int khx_follow_device(struct khx_state *s, const char *name);
// Key transitions from the followed device the server has delivered since khx_follow_device or
// khx_reset_count.
uint64_t khx_transitions_seen(const struct khx_state *s);
// Pointer button presses (any pointer, anywhere) read since the last call (needs
// khx_follow_device to have set up XInput 2).
int khx_take_clicks(struct khx_state *s);
// How often the keyboard focus moved into another top-level window since the last call.
int khx_take_focus_changes(struct khx_state *s);
// Counts from zero again (after reading what the server sent).
void khx_reset_count(struct khx_state *s);
// The application whose window has the keyboard focus: WM_CLASS instance and class, its
// _NET_WM_PID (0: not set) and whether it is fullscreen (_NET_WM_STATE_FULLSCREEN, or a window
// as big as the screen where no window manager says so). 1, or 0 when no window has the focus.
int khx_focus(struct khx_state *s, char *instance, int instance_size, char *klass, int klass_size, int *pid, int *fullscreen);
// The keymap as XKB text (malloc'd; the caller frees it), or NULL.
char *khx_keymap_text(struct khx_state *s);
#endif
