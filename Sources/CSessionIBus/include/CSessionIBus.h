#ifndef KEYHOLD_CSESSIONIBUS_H
#define KEYHOLD_CSESSIONIBUS_H
#include <pthread.h>
#include <stdint.h>

// keyhold-session on GNOME (and any desktop where IBus is the input method): IBus as the commit
// surface. It commits text to the focused input context and shows the picker as a lookup table,
// which the desktop's own IBus panel (GNOME Shell's candidate popup) draws at the text caret. It
// does so as IBus's panel extension (org.freedesktop.IBus.Panel.Extension.Emoji, taken with
// REPLACE_EXISTING; ibus's own emoji panel waits in the queue and gets it back when
// keyhold-session stops), so the user's engine, its composition and the layout are never
// touched: no engine is switched. And GNOME's input sources (GNOMEInputSources.c).
//
// No state of its own: everything lives in the structs the caller owns (zeroed), passed to
// every call; callbacks run from GLib's default main context, which the caller dispatches, but
// for the count of keys passing IBus, kept by GDBus's worker thread under the state's lock, which
// says so on the state's eventfd. Nothing here waits: round trips are started and their answers
// come through the main context.

enum { KHI_MAX_PENDING = 256, KHI_KEY_BITS = 1024, KHI_TRACE = 16, KHI_ANSWERS = 32 };

// A ProcessKeyEvent seen and not yet answered: its caller and serial.
struct khi_pending {
    char *sender;
    uint32_t serial;
    int counts;   // a key transition, not a repeat (khi_count_key_event)
    int trace;    // its slot in `trace` (-1: none)
    int edits;    // what the key does to a text field (khi_key_edit)
};

// What a key press does to a text field when the engine lets it through: nothing known, inserts
// a character, deletes one (BackSpace, Delete).
enum { KHI_EDIT_NONE = 0, KHI_EDIT_INSERT = 1, KHI_EDIT_DELETE = 2 };

struct khi_state {
    void *bus;     // IBusBus *
    void *panel;   // IBusPanelService *
    int named;
    char *focused_path;
    int purpose;
    int focus_changes;
    void *shown_table;   // IBusLookupTable *: hidden as it is (visible FALSE), not replaced
    int shown_auxiliary; // the auxiliary text is visible
    // The keys passing IBus, kept by GDBus's worker thread: under `lock`.
    pthread_mutex_t lock;
    struct khi_pending pending[KHI_MAX_PENDING];
    uint64_t keys_passed;
    // The last key that passed IBus (not taken by the engine) and edits text, since the count
    // started: its KHI_EDIT_ kind, and when it passed (CLOCK_MONOTONIC µs).
    int edit_kind;
    int64_t edit_passed_at;
    // The keys IBus has seen go down and not up (see khi_count_key_event).
    uint8_t keys_down[KHI_KEY_BITS / 8];
    // The last KHI_TRACE key events IBus was asked about, for a wait that ran out: keycode, then
    // bit 16 a release, bit 17 counted (not a repeat), bit 18 answered; `trace_next` the oldest.
    uint32_t trace[KHI_TRACE];
    unsigned trace_next;
    // When (CLOCK_MONOTONIC µs) the last KHI_ANSWERS key events were answered, repeats included:
    // each answer puts one event back into mutter's queue (khi_recent_answers).
    int64_t answered_at[KHI_ANSWERS];
    unsigned answers;
    char *own_name;
    unsigned filter_id;
    // Written (eventfd) whenever keys pass: the caller's poll wakes.
    int wake_fd;
    // The round trips under way (khi_sync_start, khi_sync_panel_start): answered when set.
    unsigned sync_generation, panel_generation;
    int sync_answered, panel_answered;
};

// Connects to the user's ibus-daemon (its address from ~/.config/ibus/bus, per display) and
// takes the extension's name: 1, or 0 when no ibus-daemon runs, -1 when the name could not be had.
int khi_open(struct khi_state *s);
void khi_close(struct khi_state *s);
// The eventfd that becomes readable when keys pass IBus (read it, then khi_keys_passed).
int khi_wake_fd(const struct khi_state *s);
// 1 while connected to ibus-daemon with the extension's name (it reconnects by itself when
// ibus-daemon restarts).
int khi_ready(const struct khi_state *s);
// 1 when an application's input context has the focus (not IBus's "fake" context, which stands
// for no text input at all), 0 when none has.
int khi_focused(const struct khi_state *s);
// The focused context's purpose (IBusInputPurpose: 0 free form, 8 password, 10 terminal, ...).
int khi_purpose(const struct khi_state *s);
// How often the focus moved between input contexts (or to none) since the last call.
int khi_take_focus_changes(struct khi_state *s);
// Commits UTF-8 text to the focused context: 0, or -1 when no application's context has the focus.
int khi_commit(struct khi_state *s, const char *utf8);
// Starts a round trip to ibus-daemon: once answered (khi_sync_done), it has handled everything
// sent before. -1 when not connected.
int khi_sync_start(struct khi_state *s);
int khi_sync_done(const struct khi_state *s);
// Starts a round trip to the IBus panel's main thread (GNOME Shell's, on GNOME), through
// ibus-daemon; -1 when not connected. Answered (or failed, or timed out after a second) when
// khi_sync_panel_done says 1.
int khi_sync_panel_start(struct khi_state *s);
int khi_sync_panel_done(const struct khi_state *s);
// Starts counting keys that have passed IBus (their ProcessKeyEvent answered) from zero.
void khi_reset_keys(struct khi_state *s);
// How many keys have passed IBus since the count started.
uint64_t khi_keys_passed(struct khi_state *s);
// The last key that passed IBus and edits text since the count started (KHI_EDIT_NONE: none), and
// when it passed: the program gets it after that.
int khi_last_edit(struct khi_state *s, int64_t *at_us);
// What a press of `keyval` with modifiers `state` does to a text field (KHI_EDIT_); exported for
// its tests.
int khi_key_edit(uint32_t keyval, uint32_t state);
// Whether a key event IBus is asked about counts as a key that passed: a release, or a press of
// a key not already down (a press of one down is the desktop's autorepeat); remembers which keys
// are down. Called by the counting filter under the lock; exported for its tests.
int khi_count_key_event(struct khi_state *s, uint32_t keycode, int released);
// The key events IBus was last asked about, oldest first, as "30v 30^ 14v* ..." (v down, ^ up,
// * not answered yet, r a repeat), into `out`: for the log when the keys' wait runs out.
void khi_describe_recent_keys(struct khi_state *s, char *out, size_t size);
// Notes that IBus answered a key event at `at_us` (the filter, under the lock; exported for its
// tests).
void khi_note_answer(struct khi_state *s, int64_t at_us);
// How many key events IBus answered at or after `since_us` (CLOCK_MONOTONIC), repeats included,
// up to KHI_ANSWERS: at most that many are still in mutter's event queue ahead of a commit.
int khi_recent_answers(struct khi_state *s, int64_t since_us);
// Forgets which keys are down, as a change of focus does (under the lock).
void khi_forget_keys_down(struct khi_state *s);
// The picker as a lookup table: `count` candidates labelled 1..n, horizontal, `cursor` highlighted,
// `auxiliary` (NULL or "": none) above it.
void khi_show_table(struct khi_state *s, const char *const *candidates, int count, int cursor, const char *auxiliary);
void khi_hide_table(struct khi_state *s);

// GNOME's input sources (GNOMEInputSources.c).
struct khg_state {
    void *settings;   // GSettings *
    int changes;
};
// 1 in a GNOME session with its settings schema, else 0.
int khg_open(struct khg_state *s);
void khg_close(struct khg_state *s);
// The current input source's layout and variant (an IBus engine's own layout, asked of `ibus`)
// and GNOME's XKB options: 1, or 0 before khg_open succeeded.
int khg_current(const struct khg_state *s, struct khi_state *ibus, char *layout, int layout_size, char *variant, int variant_size,
                char *options, int options_size);
// How often the sources, the current one or the options changed since the last call.
int khg_take_changes(struct khg_state *s);

#endif
