#define _GNU_SOURCE
#include "CSessionInputMethod.h"
#include "CSessionWayland.h"
#include "PickerPanel.h"
#include "input-method-unstable-v1-client-protocol.h"
#include <string.h>
#include <time.h>
#include <wayland-client.h>

static struct wl_registry *registry;
static struct zwp_input_method_v1 *input_method;
static struct zwp_input_panel_v1 *input_panel;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
// The focused text input's context, while KWin says one has the focus.
static struct zwp_input_method_context_v1 *context;
static uint32_t serial;   // of the text input's last committed state: commits name it
static int purpose = -1;
static int focus_changes;
static unsigned focus_generation;   // counts every activate and deactivate
// When the focused program last told KWin of its text (CLOCK_MONOTONIC µs; 0: not since it got
// the focus).
static int64_t last_state_update;

static void note_state_update(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    last_state_update = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void context_surrounding_text(void *d, struct zwp_input_method_context_v1 *c, const char *t, uint32_t cursor, uint32_t anchor) {
    (void)d; (void)c; (void)t; (void)cursor; (void)anchor;
    note_state_update();
}
static void context_reset(void *d, struct zwp_input_method_context_v1 *c) { (void)d; (void)c; }
static void context_content_type(void *d, struct zwp_input_method_context_v1 *c, uint32_t hint, uint32_t p) {
    (void)d; (void)c;
    // (text-input-unstable-v1's values) Qt marks a password field by its hint, hidden text
    // (0x40), not by its purpose (8, password).
    purpose = (hint & 0x40) ? 8 : (int)p;
}
static void context_invoke_action(void *d, struct zwp_input_method_context_v1 *c, uint32_t button, uint32_t index) {
    (void)d; (void)c; (void)button; (void)index;
}
static void context_commit_state(void *d, struct zwp_input_method_context_v1 *c, uint32_t s) {
    (void)d; (void)c;
    serial = s;
    note_state_update();
}
static void context_preferred_language(void *d, struct zwp_input_method_context_v1 *c, const char *l) { (void)d; (void)c; (void)l; }
static const struct zwp_input_method_context_v1_listener context_listener = {
    context_surrounding_text, context_reset, context_content_type, context_invoke_action,
    context_commit_state, context_preferred_language,
};

static void method_activate(void *d, struct zwp_input_method_v1 *m, struct zwp_input_method_context_v1 *c) {
    (void)d; (void)m;
    // KWin activates again without a deactivate when the focus moves between text inputs.
    if (context && context != c) zwp_input_method_context_v1_destroy(context);
    context = c;
    serial = 0;
    purpose = 0;
    last_state_update = 0;
    zwp_input_method_context_v1_add_listener(c, &context_listener, NULL);
    focus_changes++;
    focus_generation++;
}
static void method_deactivate(void *d, struct zwp_input_method_v1 *m, struct zwp_input_method_context_v1 *c) {
    (void)d; (void)m;
    if (c == context) { context = NULL; purpose = -1; focus_changes++; focus_generation++; }
    zwp_input_method_context_v1_destroy(c);
}
static const struct zwp_input_method_v1_listener method_listener = { method_activate, method_deactivate };

static void registry_global(void *d, struct wl_registry *r, uint32_t name, const char *interface, uint32_t version) {
    (void)d; (void)version;
    if (strcmp(interface, zwp_input_method_v1_interface.name) == 0 && !input_method) {
        input_method = wl_registry_bind(r, name, &zwp_input_method_v1_interface, 1);
        zwp_input_method_v1_add_listener(input_method, &method_listener, NULL);
    } else if (strcmp(interface, zwp_input_panel_v1_interface.name) == 0 && !input_panel) {
        input_panel = wl_registry_bind(r, name, &zwp_input_panel_v1_interface, 1);
    } else if (strcmp(interface, wl_compositor_interface.name) == 0 && !compositor) {
        compositor = wl_registry_bind(r, name, &wl_compositor_interface, 1);
    } else if (strcmp(interface, wl_shm_interface.name) == 0 && !shm) {
        shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
    }
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n) { (void)d; (void)r; (void)n; }
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

int khim_open(void) {
    struct wl_display *display = khw_display();
    if (!display) return 0;
    registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    if (wl_display_roundtrip(display) < 0 || !input_method) { khim_close(); return 0; }
    if (input_panel && compositor && shm) kpp_open(compositor, shm, input_panel);
    return 1;
}

void khim_close(void) {
    kpp_close();
    if (context) zwp_input_method_context_v1_destroy(context);
    if (input_method) zwp_input_method_v1_destroy(input_method);
    if (input_panel) zwp_input_panel_v1_destroy(input_panel);
    if (compositor) wl_compositor_destroy(compositor);
    if (shm) wl_shm_destroy(shm);
    if (registry) wl_registry_destroy(registry);
    context = NULL; input_method = NULL; input_panel = NULL; compositor = NULL; shm = NULL; registry = NULL;
    purpose = -1;
}

int khim_active(void) { return context != NULL; }
int khim_purpose(void) { return context ? purpose : -1; }

int64_t khim_last_state_update(void) { return last_state_update; }
unsigned khim_focus_generation(void) { return focus_generation; }

int khim_take_focus_changes(void) {
    int n = focus_changes;
    focus_changes = 0;
    return n;
}

int khim_commit(const char *text) {
    if (!context) return -1;
    zwp_input_method_context_v1_commit_string(context, serial, text);
    return 0;
}

int khim_show_picker(const char *base, const char *const *candidates, int count, int selected) {
    return kpp_show(base, candidates, count, selected);
}
void khim_hide_picker(void) { kpp_hide(); }
int khim_picker_visible(void) { return kpp_visible(); }
