#ifndef KEYHOLD_CSESSIONIBUS_H
#define KEYHOLD_CSESSIONIBUS_H
#include <stdint.h>

// keyhold-session's IBus backend (docs/ARCHITECTURE.md, Session): the input method GNOME runs
// (and any desktop where IBus is the input method). It commits text to the focused input
// context and shows the picker as a lookup table, which the desktop's own IBus panel (GNOME
// Shell's candidate popup) draws at the text caret. It does so as IBus's panel extension
// (org.freedesktop.IBus.Panel.Extension.Emoji, taken with REPLACE_EXISTING; ibus's own emoji
// panel waits in the queue and gets it back when keyhold-session stops), so the user's engine,
// its composition and the layout are never touched: no engine is switched. Callbacks run from
// GLib's default main context, which the caller dispatches. Not thread-safe.

// Connects to the user's ibus-daemon (its address from ~/.config/ibus/bus, per display) and
// takes the extension's name: 1, or 0 when no ibus-daemon runs, -1 when the name could not be had.
int khi_open(void);
void khi_close(void);
// 1 while connected to ibus-daemon with the extension's name (it reconnects by itself when
// ibus-daemon restarts).
int khi_ready(void);
// 1 when an application's input context has the focus (not IBus's "fake" context, which stands
// for no text input at all), 0 when none has.
int khi_focused(void);
// The focused context's purpose (IBusInputPurpose: 0 free form, 8 password, 10 terminal, ...).
int khi_purpose(void);
// How often the focus moved between input contexts (or to none) since the last call.
int khi_take_focus_changes(void);
// Commits UTF-8 text to the focused context: 0, or -1 when no application's context has the focus.
int khi_commit(const char *utf8);
// Waits until ibus-daemon has handled everything sent before (a round trip): 0, or -1.
int khi_sync(void);
// Starts counting keys that have passed IBus (their ProcessKeyEvent answered) from zero.
void khi_reset_keys(void);
// Waits at most `timeout_ms` until `count` keys have passed IBus since the count started: 1
// when they have, 0 when the time ran out.
int khi_wait_keys(uint64_t count, int timeout_ms);
// How many keys have passed IBus since the count started.
uint64_t khi_keys_passed(void);
// A round trip to the IBus panel's main thread (GNOME Shell's, on GNOME), through ibus-daemon:
// 0, or -1 when no panel answers within a second.
int khi_sync_panel(void);
// Whether a key event IBus is asked about counts as a key that passed: a release, or a press of
// a key not already down (a press of one down is the desktop's autorepeat); remembers which keys
// are down. Called by the counting filter; exported for its tests.
int khi_count_key_event(uint32_t keycode, int released);
// Forgets which keys are down, as a change of focus does.
void khi_forget_keys_down(void);
// The picker as a lookup table: `count` candidates labelled 1..n, horizontal, `cursor` highlighted.
void khi_show_table(const char *const *candidates, int count, int cursor);
void khi_hide_table(void);

// GNOME's input sources (GNOMEInputSources.c): 1 in a GNOME session with its settings schema, else 0.
int khg_open(void);
// The current input source's layout and variant (an IBus engine's own layout) and GNOME's XKB
// options: 1, or 0 before khg_open succeeded.
int khg_current(char *layout, int layout_size, char *variant, int variant_size, char *options, int options_size);
// How often the sources, the current one or the options changed since the last call.
int khg_take_changes(void);

// KDE's keyboard layouts (KDEKeyboardLayouts.c): kxkbrc's list, the current one as KWin's
// org.kde.keyboard service says: 1 in a KDE session, else 0.
int khk_open(void);
// The current layout, its variant and KDE's XKB options: 1, or 0 when KDE's settings name no
// layouts (KWin then uses the system's, the seat's keymap).
int khk_current(char *layout, int layout_size, char *variant, int variant_size, char *options, int options_size);
// How often the layout or the list changed since the last call.
int khk_take_changes(void);

#endif
