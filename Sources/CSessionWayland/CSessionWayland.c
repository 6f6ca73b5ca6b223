#define _GNU_SOURCE
#include "CSessionWayland.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

// The virtual keyboard's keymap is named so: the seat sends it back to every client whenever
// this keyboard types (wlroots re-sends the active keyboard's keymap), and it is not the desktop's.
#define OWN_KEYMAP_NAME "keyhold-session"
enum { MAX_MAPPED = 128, FIRST_KEYCODE = 9 };

// Editing keys the daemon types on its own keyboard, on their keycodes in every evdev keymap.
// The virtual keyboard's keymap has them there too: the seat sends a program the keymap of the
// keyboard that typed last, and GTK 3 looks a key binding up by keycode in the keymap it holds
// when it handles the key, not the one the key came with. A BackSpace still waiting in GTK when
// this keyboard's keymap arrived found no binding there (measured in sway: a pick left eé).
// In ascending order of keycode (khw_slot_keycode counts on it).
static const struct { uint32_t keycode; const char *keysym; } kept_keys[] = {
    {9, "Escape"}, {22, "BackSpace"}, {23, "Tab"}, {36, "Return"}, {104, "KP_Enter"},
    {110, "Home"}, {111, "Up"}, {112, "Prior"}, {113, "Left"}, {114, "Right"}, {115, "End"},
    {116, "Down"}, {117, "Next"}, {118, "Insert"}, {119, "Delete"},
};
enum { KEPT_COUNT = sizeof kept_keys / sizeof kept_keys[0] };

static uint32_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

// ---- the seat's keyboard: the desktop's keymap

static void keyboard_keymap(void *data, struct wl_keyboard *kb, uint32_t format, int32_t fd, uint32_t size) {
    (void)kb;
    struct khw_state *s = data;
    if (format != WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 || size == 0) { close(fd); return; }
    char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    char *text = strndup(map, size);
    munmap(map, size);
    if (!text) return;
    if (strstr(text, "xkb_keycodes \"" OWN_KEYMAP_NAME "\"")) { free(text); return; }
    if (s->desktop_keymap && strcmp(s->desktop_keymap, text) == 0) { free(text); return; }
    free(s->desktop_keymap);
    s->desktop_keymap = text;
    s->keymap_generation++;
}
static void keyboard_enter(void *d, struct wl_keyboard *k, uint32_t s, struct wl_surface *f, struct wl_array *a) { (void)d; (void)k; (void)s; (void)f; (void)a; }
static void keyboard_leave(void *d, struct wl_keyboard *k, uint32_t s, struct wl_surface *f) { (void)d; (void)k; (void)s; (void)f; }
static void keyboard_key(void *d, struct wl_keyboard *k, uint32_t s, uint32_t t, uint32_t key, uint32_t st) { (void)d; (void)k; (void)s; (void)t; (void)key; (void)st; }
static void keyboard_modifiers(void *d, struct wl_keyboard *k, uint32_t s, uint32_t a, uint32_t b, uint32_t c, uint32_t g) { (void)d; (void)k; (void)s; (void)a; (void)b; (void)c; (void)g; }
static void keyboard_repeat_info(void *d, struct wl_keyboard *k, int32_t r, int32_t delay) { (void)d; (void)k; (void)r; (void)delay; }
static const struct wl_keyboard_listener keyboard_listener = {
    keyboard_keymap, keyboard_enter, keyboard_leave, keyboard_key, keyboard_modifiers, keyboard_repeat_info,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
    struct khw_state *s = data;
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !s->keyboard) {
        s->keyboard = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(s->keyboard, &keyboard_listener, s);
    } else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && s->keyboard) {
        wl_keyboard_destroy(s->keyboard);   // wl_keyboard.release needs version 3; destroy is local
        s->keyboard = NULL;
    }
}
static void seat_name(void *d, struct wl_seat *s, const char *n) { (void)d; (void)s; (void)n; }
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static const struct zwlr_foreign_toplevel_manager_v1_listener toplevels_listener;
static void registry_global(void *data, struct wl_registry *r, uint32_t name, const char *interface, uint32_t version) {
    struct khw_state *s = data;
    if (strcmp(interface, wl_seat_interface.name) == 0 && !s->seat) {
        s->seat = wl_registry_bind(r, name, &wl_seat_interface, version < 2 ? version : 2);
        wl_seat_add_listener(s->seat, &seat_listener, s);
    } else if (strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) == 0 && !s->manager) {
        s->manager = wl_registry_bind(r, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
    } else if (strcmp(interface, zwlr_foreign_toplevel_manager_v1_interface.name) == 0 && !s->toplevels) {
        s->toplevels = wl_registry_bind(r, name, &zwlr_foreign_toplevel_manager_v1_interface, version < 2 ? version : 2);
        zwlr_foreign_toplevel_manager_v1_add_listener(s->toplevels, &toplevels_listener, s);
    }
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n) { (void)d; (void)r; (void)n; }
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

// ---- the active window (wlr-foreign-toplevel-management): another one activated closes a callout

static void toplevel_title(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, const char *t) { (void)d; (void)h; (void)t; }
// Each handle's data (its listener's, which is its user data): the state it belongs to, its
// app_id and its last states, read at done. Made when the handle comes, freed when it closes.
struct toplevel { struct khw_state *s; char app_id[256]; int activated, fullscreen; };
static void toplevel_app_id(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *a) {
    (void)h;
    struct toplevel *t = data;
    snprintf(t->app_id, sizeof t->app_id, "%s", a ? a : "");
}
static void toplevel_output(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *o) { (void)d; (void)h; (void)o; }
static void toplevel_state(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_array *states) {
    (void)h;
    struct toplevel *t = data;
    t->activated = t->fullscreen = 0;
    uint32_t *state;
    wl_array_for_each(state, states) {
        if (*state == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED) t->activated = 1;
        if (*state == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN) t->fullscreen = 1;
    }
}
static void toplevel_done(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
    struct toplevel *t = data;
    struct khw_state *s = t->s;
    if (t->activated && h != s->active_toplevel) {
        // The first report after binding is where the focus already was, not a change.
        if (s->active_toplevel) s->focus_changes++;
        s->active_toplevel = h;
    } else if (!t->activated && h == s->active_toplevel) {
        s->active_toplevel = NULL;
        s->focus_changes++;
    }
}
static void toplevel_closed(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
    struct toplevel *t = data;
    if (h == t->s->active_toplevel) t->s->active_toplevel = NULL;
    free(t);
    zwlr_foreign_toplevel_handle_v1_destroy(h);
}
static const struct zwlr_foreign_toplevel_handle_v1_listener toplevel_listener = {
    toplevel_title, toplevel_app_id, toplevel_output, toplevel_output, toplevel_state, toplevel_done, toplevel_closed,
};
static void toplevel_new(void *data, struct zwlr_foreign_toplevel_manager_v1 *m, struct zwlr_foreign_toplevel_handle_v1 *h) {
    (void)m;
    struct toplevel *t = calloc(1, sizeof *t);
    if (!t) { zwlr_foreign_toplevel_handle_v1_destroy(h); return; }
    t->s = data;
    zwlr_foreign_toplevel_handle_v1_add_listener(h, &toplevel_listener, t);
}
static void toplevels_finished(void *data, struct zwlr_foreign_toplevel_manager_v1 *m) {
    struct khw_state *s = data;
    zwlr_foreign_toplevel_manager_v1_destroy(m);
    s->toplevels = NULL;
}
static const struct zwlr_foreign_toplevel_manager_v1_listener toplevels_listener = { toplevel_new, toplevels_finished };

// ---- the virtual keyboard's keymap

// The slot-th keycode from FIRST_KEYCODE that is not a kept key's: one step past each kept
// keycode at or below it (kept_keys is in ascending order), so a keymap of n characters costs n
// times the few kept keys, not a walk from the first keycode for each.
uint32_t khw_slot_keycode(int slot) {
    uint32_t keycode = FIRST_KEYCODE + (uint32_t)slot;
    for (int i = 0; i < KEPT_COUNT; i++) if (kept_keys[i].keycode <= keycode) keycode++;
    return keycode;
}

char *khw_keymap_for(const uint32_t *keysyms, int count) {
    size_t cap = 1024 + (size_t)count * 96, len = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    len += snprintf(text + len, cap - len,
                    "xkb_keymap {\nxkb_keycodes \"" OWN_KEYMAP_NAME "\" {\n  minimum = 8;\n  maximum = %u;\n",
                    khw_slot_keycode(MAX_MAPPED - 1));
    for (int i = 0; i < KEPT_COUNT; i++) len += snprintf(text + len, cap - len, "  <E%d> = %u;\n", i, kept_keys[i].keycode);
    for (int i = 0; i < count; i++) len += snprintf(text + len, cap - len, "  <K%d> = %u;\n", i, khw_slot_keycode(i));
    len += snprintf(text + len, cap - len,
                    "};\nxkb_types \"" OWN_KEYMAP_NAME "\" {\n  type \"ONE_LEVEL\" { modifiers = none; level_name[Level1] = \"Any\"; };\n};\n"
                    "xkb_compatibility \"" OWN_KEYMAP_NAME "\" { };\nxkb_symbols \"" OWN_KEYMAP_NAME "\" {\n");
    for (int i = 0; i < KEPT_COUNT; i++) len += snprintf(text + len, cap - len, "  key <E%d> { [ %s ] };\n", i, kept_keys[i].keysym);
    for (int i = 0; i < count; i++) {
        char name[64];
        if (xkb_keysym_get_name(keysyms[i], name, sizeof name) < 0) snprintf(name, sizeof name, "0x%08x", keysyms[i]);
        len += snprintf(text + len, cap - len, "  key <K%d> { [ %s ] };\n", i, name);
    }
    snprintf(text + len, cap - len, "};\n};\n");
    return text;
}

// Uploads the keymap of the mapped characters.
static int upload_keymap(struct khw_state *s) {
    char *text = khw_keymap_for(s->mapped, s->mapped_count);
    if (!text) return -1;
    size_t len = strlen(text);
    int fd = memfd_create("keyhold-session-keymap", MFD_CLOEXEC);
    int ok = fd >= 0 && write(fd, text, len + 1) == (ssize_t)(len + 1);   // with its NUL, as keymaps are sent
    free(text);
    if (!ok) { if (fd >= 0) close(fd); return -1; }
    zwp_virtual_keyboard_v1_keymap(s->virtual_keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)(len + 1));
    close(fd);   // the request carries a duplicate
    return 0;
}

// ---- the public functions

int khw_open(struct khw_state *s, int with_virtual_keyboard) {
    s->display = wl_display_connect(NULL);
    if (!s->display) return -1;
    s->registry = wl_display_get_registry(s->display);
    wl_registry_add_listener(s->registry, &registry_listener, s);
    if (wl_display_roundtrip(s->display) < 0) { khw_close(s); return -1; }
    if (with_virtual_keyboard && !s->manager) { khw_close(s); return -2; }
    if (!s->seat) { khw_close(s); return -3; }
    s->mapped_count = 0;
    s->sync_answered = 1;
    if (with_virtual_keyboard) {
        s->virtual_keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(s->manager, s->seat);
        if (upload_keymap(s) != 0) { khw_close(s); return -1; }
    }
    // The seat's capabilities, then the keyboard's keymap.
    if (wl_display_roundtrip(s->display) < 0 || wl_display_roundtrip(s->display) < 0) { khw_close(s); return -1; }
    return wl_display_get_fd(s->display);
}

void khw_close(struct khw_state *s) {
    if (!s->display) return;
    if (s->sync) wl_callback_destroy(s->sync);
    if (s->virtual_keyboard) zwp_virtual_keyboard_v1_destroy(s->virtual_keyboard);
    if (s->keyboard) wl_keyboard_destroy(s->keyboard);
    if (s->manager) zwp_virtual_keyboard_manager_v1_destroy(s->manager);
    if (s->toplevels) zwlr_foreign_toplevel_manager_v1_destroy(s->toplevels);   // handles go with the connection
    if (s->seat) wl_seat_destroy(s->seat);
    if (s->registry) wl_registry_destroy(s->registry);
    wl_display_flush(s->display);
    wl_display_disconnect(s->display);
    free(s->desktop_keymap);
    memset(s, 0, sizeof *s);
}

int khw_dispatch(struct khw_state *s, int readable) {
    if (!s->display) return -1;
    if (readable) {
        // The socket has data: this reads it without waiting.
        if (wl_display_dispatch(s->display) < 0) return -1;
    } else if (wl_display_dispatch_pending(s->display) < 0) {
        return -1;
    }
    if (wl_display_flush(s->display) < 0 && errno != EAGAIN) return -1;
    // Also a keymap that came in during khw_open.
    int changed = s->keymap_generation != s->reported_generation;
    s->reported_generation = s->keymap_generation;
    return changed;
}

int khw_type(struct khw_state *s, uint32_t codepoint) {
    if (!s->virtual_keyboard) return -1;
    xkb_keysym_t keysym = xkb_utf32_to_keysym(codepoint);
    if (keysym == XKB_KEY_NoSymbol) return -1;
    int slot = -1;
    for (int i = 0; i < s->mapped_count; i++) if (s->mapped[i] == keysym) { slot = i; break; }
    if (slot < 0) {
        // Full: start over. A client reads a key with the keymap the seat sent before it, in
        // order, so no earlier character can change under it.
        if (s->mapped_count == KHW_MAX_MAPPED) s->mapped_count = 0;
        slot = s->mapped_count++;
        s->mapped[slot] = keysym;
        if (upload_keymap(s) != 0) { s->mapped_count--; return -1; }
    }
    // Always the keymap again: the compositor may have replaced it (sway applies its keyboard
    // settings to every keyboard, this one included, when they change).
    else if (upload_keymap(s) != 0) return -1;
    uint32_t key = khw_slot_keycode(slot) - 8;
    zwp_virtual_keyboard_v1_key(s->virtual_keyboard, now_ms(), key, WL_KEYBOARD_KEY_STATE_PRESSED);
    zwp_virtual_keyboard_v1_key(s->virtual_keyboard, now_ms(), key, WL_KEYBOARD_KEY_STATE_RELEASED);
    return 0;
}

int khw_flush(struct khw_state *s) {
    if (!s->display) return -1;
    if (wl_display_flush(s->display) >= 0) return 0;
    return errno == EAGAIN ? 1 : -1;
}

static void sync_done(void *data, struct wl_callback *callback, uint32_t serial) {
    (void)serial;
    struct khw_state *s = data;
    if (callback == s->sync) {
        s->sync = NULL;
        s->sync_answered = 1;
    }
    wl_callback_destroy(callback);
}
static const struct wl_callback_listener sync_listener = { sync_done };

int khw_sync_start(struct khw_state *s) {
    if (!s->display) return -1;
    // One at a time: an older one still under way is answered first anyway, and ignored.
    if (s->sync) wl_callback_destroy(s->sync);
    s->sync = wl_display_sync(s->display);
    if (!s->sync) return -1;
    wl_callback_add_listener(s->sync, &sync_listener, s);
    s->sync_answered = 0;
    return khw_flush(s) < 0 ? -1 : 0;
}

int khw_sync_done(const struct khw_state *s) { return s->sync_answered; }

char *khw_keymap_text(const struct khw_state *s) { return s->desktop_keymap ? strdup(s->desktop_keymap) : NULL; }

int khw_follows_focus(const struct khw_state *s) { return s->toplevels != NULL; }

int khw_focus(const struct khw_state *s, char *app_id, int app_id_size, int *fullscreen) {
    if (!s->active_toplevel) return 0;
    struct toplevel *t = zwlr_foreign_toplevel_handle_v1_get_user_data(s->active_toplevel);
    if (!t) return 0;
    snprintf(app_id, (size_t)app_id_size, "%s", t->app_id);
    *fullscreen = t->fullscreen;
    return 1;
}

int khw_take_focus_changes(struct khw_state *s) {
    int n = s->focus_changes;
    s->focus_changes = 0;
    return n;
}
