#define _GNU_SOURCE
#include "CSessionKWin.h"
#include "PickerPanel.h"
#include "input-method-unstable-v1-client-protocol.h"
#include <string.h>
#include <time.h>
#include <wayland-client.h>

static void note_state_update(struct khim_state *s) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->last_state_update = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void context_surrounding_text(void *data, struct zwp_input_method_context_v1 *c, const char *t, uint32_t cursor, uint32_t anchor) {
    (void)c;
    struct khim_state *s = data;
    uint64_t digest = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)(t ? t : ""); *p; p++) digest = (digest ^ *p) * 0x100000001b3ULL;
    digest = (digest ^ cursor) * 0x100000001b3ULL;
    digest = (digest ^ anchor) * 0x100000001b3ULL;
    if (s->text_events > 0 && digest != s->text_digest) s->text_changes++;
    s->text_events++;
    s->text_digest = digest;
    // KWin passes a program's text on as it takes the focus and again as the program states it
    // (with a commit_state too): Konsole's came 5 times with 1 change, then nothing after keys; a
    // Qt or GTK field had changed 7 times and more by its first pick. A program speaks of its
    // text once it changed twice.
    if (s->text_changes >= 2) note_state_update(s);
}
static void context_reset(void *d, struct zwp_input_method_context_v1 *c) { (void)d; (void)c; }
static void context_content_type(void *data, struct zwp_input_method_context_v1 *c, uint32_t hint, uint32_t p) {
    (void)c;
    struct khim_state *s = data;
    // (text-input-unstable-v1's values) Qt marks a password field by its hint, hidden text
    // (0x40), not by its purpose (8, password).
    s->purpose = (hint & 0x40) ? 8 : (int)p;
}
static void context_invoke_action(void *d, struct zwp_input_method_context_v1 *c, uint32_t button, uint32_t index) {
    (void)d; (void)c; (void)button; (void)index;
}
static void context_commit_state(void *data, struct zwp_input_method_context_v1 *c, uint32_t serial) {
    (void)c;
    struct khim_state *s = data;
    s->serial = serial;
    if (s->text_changes >= 2) note_state_update(s);   // as a surrounding text (above)
}
static void context_preferred_language(void *d, struct zwp_input_method_context_v1 *c, const char *l) { (void)d; (void)c; (void)l; }
static const struct zwp_input_method_context_v1_listener context_listener = {
    context_surrounding_text, context_reset, context_content_type, context_invoke_action,
    context_commit_state, context_preferred_language,
};

static void method_activate(void *data, struct zwp_input_method_v1 *m, struct zwp_input_method_context_v1 *c) {
    (void)m;
    struct khim_state *s = data;
    // KWin activates again without a deactivate when the focus moves between text inputs.
    if (s->context && s->context != c) zwp_input_method_context_v1_destroy(s->context);
    s->context = c;
    s->serial = 0;
    s->purpose = 0;
    s->last_state_update = 0;
    s->text_events = 0;
    s->text_changes = 0;
    zwp_input_method_context_v1_add_listener(c, &context_listener, s);
    s->focus_changes++;
    s->focus_generation++;
}
static void method_deactivate(void *data, struct zwp_input_method_v1 *m, struct zwp_input_method_context_v1 *c) {
    (void)m;
    struct khim_state *s = data;
    if (c == s->context) { s->context = NULL; s->purpose = -1; s->focus_changes++; s->focus_generation++; }
    zwp_input_method_context_v1_destroy(c);
}
static const struct zwp_input_method_v1_listener method_listener = { method_activate, method_deactivate };

static void registry_global(void *data, struct wl_registry *r, uint32_t name, const char *interface, uint32_t version) {
    (void)version;
    struct khim_state *s = data;
    if (strcmp(interface, zwp_input_method_v1_interface.name) == 0 && !s->input_method) {
        s->input_method = wl_registry_bind(r, name, &zwp_input_method_v1_interface, 1);
        zwp_input_method_v1_add_listener(s->input_method, &method_listener, s);
    } else if (strcmp(interface, zwp_input_panel_v1_interface.name) == 0 && !s->input_panel) {
        s->input_panel = wl_registry_bind(r, name, &zwp_input_panel_v1_interface, 1);
    } else if (strcmp(interface, wl_compositor_interface.name) == 0 && !s->compositor) {
        s->compositor = wl_registry_bind(r, name, &wl_compositor_interface, 1);
    } else if (strcmp(interface, wl_shm_interface.name) == 0 && !s->shm) {
        s->shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
    }
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n) { (void)d; (void)r; (void)n; }
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

int khim_open(struct khim_state *s, struct wl_display *display) {
    if (!display) return 0;
    s->display = display;
    s->purpose = -1;
    s->registry = wl_display_get_registry(display);
    wl_registry_add_listener(s->registry, &registry_listener, s);
    if (wl_display_roundtrip(display) < 0 || !s->input_method) { khim_close(s); return 0; }
    return 1;
}

void khim_close(struct khim_state *s) {
    kpp_close(&s->picker);
    if (s->context) zwp_input_method_context_v1_destroy(s->context);
    if (s->input_method) zwp_input_method_v1_destroy(s->input_method);
    if (s->input_panel) zwp_input_panel_v1_destroy(s->input_panel);
    if (s->compositor) wl_compositor_destroy(s->compositor);
    if (s->shm) wl_shm_destroy(s->shm);
    if (s->registry) wl_registry_destroy(s->registry);
    memset(s, 0, sizeof *s);
    s->purpose = -1;
}

int khim_active(const struct khim_state *s) { return s->context != NULL; }
int khim_purpose(const struct khim_state *s) { return s->context ? s->purpose : -1; }

int64_t khim_last_state_update(const struct khim_state *s) { return s->last_state_update; }
unsigned khim_focus_generation(const struct khim_state *s) { return s->focus_generation; }

int khim_take_focus_changes(struct khim_state *s) {
    int n = s->focus_changes;
    s->focus_changes = 0;
    return n;
}

int khim_commit(struct khim_state *s, const char *text) {
    if (!s->context) return -1;
    zwp_input_method_context_v1_commit_string(s->context, s->serial, text);
    return 0;
}

int khim_show_picker(struct khim_state *s, const char *base, const char *const *candidates, int count, int selected,
                     const char *header) {
    return kpp_show(&s->picker, s->compositor, s->shm, s->input_panel, base, candidates, count, selected, header);
}
void khim_hide_picker(struct khim_state *s) { kpp_hide(&s->picker); }
int khim_picker_visible(const struct khim_state *s) { return s->picker.visible; }
