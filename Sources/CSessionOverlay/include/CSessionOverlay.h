#ifndef KEYHOLD_CSESSIONOVERLAY_H
#define KEYHOLD_CSESSIONOVERLAY_H
#include <stdint.h>

// keyhold-session's picker overlay: GTK 3, on Wayland a wlr-layer-shell surface (gtk-layer-shell)
// that never takes keyboard focus (mapped for the session's life, a transparent pixel between
// pickers), on X11 an override-redirect popup while a callout is open. It runs from GLib's
// default main context, which the companion dispatches inside its own poll loop (GLibLoop.swift,
// Companion.swift). And AT-SPI: what has the focus, and where its caret is (CaretLocator.c).
//
// No state of its own: everything lives in the `kho_state` the caller owns (zeroed, then
// kho_init), passed to every call; GTK's and AT-SPI's callbacks get it as their data.

enum { KHO_MAX_CELLS = 40 };

// What AT-SPI says of the focus (CaretLocator.c).
struct khc_state {
    void *focused;         // AtspiAccessible *: the one that last gained the focus
    int64_t focused_at;    // CLOCK_MONOTONIC ms of the last focus event
    int started;
    char registry_error[200];
    // The focused program's word on its text (ProgramAnswer.c): when it last said text was
    // inserted or deleted (CLOCK_MONOTONIC µs), the bus name of the program that last said so,
    // and the call under way to it.
    int follows_text;
    int64_t inserted_at, deleted_at;
    char speaking[128];
    unsigned ping_generation;
    int ping_answered;
};

struct kho_state {
    int layer_shell;
    int follows_caret;   // X11 with an accessibility bus: screen coordinates of the caret
    void *window, *row, *header;  // GtkWidget *: the header is a search's query, above the row
    void *cells[KHO_MAX_CELLS];
    int cell_count;
    int first_index;     // the index of cells[0]: 0, the base character; 1 in a search (no base)
    int picked;          // a candidate clicked, until kho_take_pick; -1: none
    int shown;           // a picker is presented (the layer-shell surface stays mapped between)
    struct khc_state accessibility;
    // Whether the session bus has the accessibility bus's launcher (org.a11y.Bus) now: watched
    // without activating it, so asking it again never waits for it to start.
    int accessibility_bus_up;
    unsigned accessibility_bus_watch;
};

// Opens GTK on the session's display: 1, or 0 when there is no display or nowhere to show the
// overlay without taking focus (a Wayland compositor without wlr-layer-shell: GNOME).
int kho_init(struct kho_state *s);
// Lays out a picker without showing it, so the first real one does not load the theme and fonts;
// on Wayland maps the (idle, invisible) surface every picker then shows in.
void kho_warm_up(struct kho_state *s);
// Starts a new picker: the base character (index 0), then kho_add for candidates 1...n, then
// kho_present with the selected index.
void kho_begin(struct kho_state *s, const char *base);
// Starts a search's picker: the candidates, which kho_add numbers from 1, without a base character.
void kho_begin_search(struct kho_state *s);
// The line above the candidates: the highlighted one's name (a search's query before it); ""
// hides it. Always 28 px tall (and 2 px above the candidates), as KWin's panel's.
void kho_set_header(struct kho_state *s, const char *header);
void kho_add(struct kho_state *s, const char *candidate);
void kho_present(struct kho_state *s, int selected);
// Highlights another index (0: the base character).
void kho_select(struct kho_state *s, int selected);
void kho_hide(struct kho_state *s);
// 1 while a picker is shown.
int kho_visible(const struct kho_state *s);
// The index of a candidate clicked since the last call (0: the base character), or -1.
int kho_take_pick(struct kho_state *s);
// 1 when the pointer is over the overlay (a click there is the overlay's, not "elsewhere").
int kho_pointer_inside(const struct kho_state *s);
// 1 when the picker is placed at the text caret where applications report it (X11 with the
// AT-SPI accessibility bus); else it shows at the bottom centre.
int kho_follows_caret(const struct kho_state *s);
// Why AT-SPI cannot say what has the focus though its bus is up (the registry does not answer),
// or NULL.
const char *kho_accessibility_error(const struct kho_state *s);
// Asks AT-SPI's registry again (it may answer a moment after the session started): 1 when it
// answers now and the focus is followed, else 0.
int kho_retry_accessibility(struct kho_state *s);
// Starts watching for the accessibility bus's launcher on the session bus (answered through
// GLib's main context); kho_accessibility_bus_up then says whether it runs.
void kho_watch_accessibility_bus(struct kho_state *s);
int kho_accessibility_bus_up(const struct kho_state *s);
// What has the focus, as its application says through AT-SPI: 0 unknown, 1 an editable text,
// 2 a password field, 3 a terminal, 4 something else; its pid (0: unknown) and when the focus
// last moved (CLOCK_MONOTONIC ms). Asks the application (AT-SPI's timeout: 100 ms).
int kho_focus_kind(struct kho_state *s, int *pid, int64_t *at_ms);
// When the focus last moved, as AT-SPI's events said (cheap: no D-Bus call).
int64_t kho_focus_moved_at(const struct kho_state *s);

// AT-SPI where there is no overlay (GNOME): follows the focus as kho_init does (CaretLocator.c):
// 1, or 0 where there is no accessibility bus or its registry does not answer.
int khc_start(struct khc_state *s);
// Also follows what the focused program says of its text (ProgramAnswer.c): 1, or 0 when AT-SPI
// is not started or the listener cannot be had.
int khc_follow_text(struct khc_state *s);
// 1 when the program that has the focus has said its text changed (since khc_follow_text).
int khc_focused_speaks(const struct khc_state *s);
// When the focused program last said text was deleted (`deleted` 1) or inserted (0), CLOCK_MONOTONIC µs.
int64_t khc_text_changed_at(const struct khc_state *s, int deleted);
// Asks the focused program something its main loop answers: 0 sent (khc_ping_done then says when
// answered; a newer call forgets an older one), -1 when nothing has the focus.
int khc_ping_start(struct khc_state *s);
int khc_ping_done(const struct khc_state *s);
#endif
