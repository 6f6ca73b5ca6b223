#ifndef KEYHOLD_CSESSIONINPUTMETHOD_H
#define KEYHOLD_CSESSIONINPUTMETHOD_H
#include <stdint.h>

// keyhold-session as KWin's input method (zwp_input_method_v1): KWin starts the program its
// "Virtual Keyboard" setting names and offers the input method, and the input panel, only on the
// connection it hands that program (WAYLAND_SOCKET). Text is committed to the focused text input
// (text-input v1, v2 or v3: Qt, GTK); the picker is an input panel overlay, which KWin places
// under the text cursor. Nothing grabs the keyboard: the daemon reads the keys from evdev. It
// runs on the connection CSessionWayland opened (khw_open), whose dispatch delivers its events.

// Binds the input method and the panel: 1, or 0 when this connection is not offered them.
int khim_open(void);
void khim_close(void);
// Whether a program's text input has the focus (KWin activated a context).
int khim_active(void);
// The focused text input's content purpose (text-input-unstable-v1 values: 8 password, also
// for a field that hides its text; 12 terminal); -1 without one.
int khim_purpose(void);
// When the focused program last told KWin of its text input's state (its text, its cursor: a
// text-input state update, passed on as surrounding_text and commit_state), CLOCK_MONOTONIC µs;
// 0 when it has sent none since it got the focus.
int64_t khim_last_state_update(void);
// Changes whenever a text input gains or loses the focus.
unsigned khim_focus_generation(void);
// How often the focused text input came or went since the last call.
int khim_take_focus_changes(void);
// Commits UTF-8 text to the focused text input: 0, or -1 when none has the focus.
int khim_commit(const char *text);
// The picker: the base character and the candidates numbered 1..count, `selected` (0: the base)
// highlighted, drawn into a panel surface KWin shows at the text cursor. 0, or -1 when it
// cannot be drawn.
int khim_show_picker(const char *base, const char *const *candidates, int count, int selected);
void khim_hide_picker(void);
int khim_picker_visible(void);

#endif
