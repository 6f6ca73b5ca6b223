#ifndef KEYHOLD_CSESSIONOVERLAY_H
#define KEYHOLD_CSESSIONOVERLAY_H
#include <poll.h>

// keyhold-session's picker overlay: GTK 3, on Wayland a wlr-layer-shell surface (gtk-layer-shell)
// that never takes keyboard focus, on X11 an override-redirect popup. Drawn only while a callout
// is open. It runs from GLib's default main context, which the companion dispatches inside its
// own poll loop (GLibLoop.swift). Not thread-safe.

// Opens GTK on the session's display: 1, or 0 when there is no display or nowhere to show the
// overlay without taking focus (a Wayland compositor without wlr-layer-shell: GNOME).
int kho_init(void);
// Lays out a picker without showing it, so the first real one does not load the theme and fonts.
void kho_warm_up(void);
// Starts a new picker: the base character (index 0), then kho_add for candidates 1...n, then
// kho_present with the selected index.
void kho_begin(const char *base);
void kho_add(const char *candidate);
void kho_present(int selected);
// Highlights another index (0: the base character).
void kho_select(int selected);
void kho_hide(void);
// 1 while the overlay is mapped.
int kho_visible(void);
// The index of a candidate clicked since the last call (0: the base character), or -1.
int kho_take_pick(void);
// 1 when the pointer is over the overlay (a click there is the overlay's, not "elsewhere").
int kho_pointer_inside(void);
// 1 when the picker is placed at the text caret where applications report it (X11 with the
// AT-SPI accessibility bus); else it shows at the bottom centre.
int kho_follows_caret(void);
// Why AT-SPI cannot say what has the focus though its bus is up (the registry does not answer),
// or NULL.
const char *kho_accessibility_error(void);

#include <stdint.h>
// What has the focus, as its application says through AT-SPI: 0 unknown, 1 an editable text,
// 2 a password field, 3 a terminal, 4 something else; its pid (0: unknown) and when the focus
// last moved (CLOCK_MONOTONIC ms).
int kho_focus_kind(int *pid, int64_t *at_ms);
// When the focus last moved, as AT-SPI's events said (cheap: no D-Bus call).
int64_t kho_focus_moved_at(void);
#endif
