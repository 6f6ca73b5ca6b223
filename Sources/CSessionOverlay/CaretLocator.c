#include "CaretLocator.h"
#include <atspi/atspi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

// Where the text caret is, as the application says through AT-SPI: the picker is placed next to
// it. The accessible that last gained focus is kept (a focus listener, so applications report
// focus changes only, not every caret move); its caret is asked for when a callout opens.

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void focus_changed(AtspiEvent *event, void *data) {
    struct khc_state *s = data;
    if (event->detail1 && event->source) {
        if (s->focused) g_object_unref(s->focused);
        s->focused = g_object_ref(event->source);
        s->focused_at = now_ms();
    } else if (event->source && (void *)event->source == s->focused) {
        // It lost the focus (its window did): no text field is known to have it now.
        g_clear_object(&s->focused);
        s->focused_at = now_ms();
    }
    g_boxed_free(ATSPI_TYPE_EVENT, event);
}

int khc_focus_kind(struct khc_state *s, int *pid, int64_t *at_ms) {
    *at_ms = s->focused_at;
    *pid = 0;
    AtspiAccessible *focused = s->focused;
    if (!focused) return KHC_FOCUS_UNKNOWN;
    GError *error = NULL;
    guint process = atspi_accessible_get_process_id(focused, &error);
    if (error) { g_error_free(error); error = NULL; } else *pid = (int)process;
    AtspiRole role = atspi_accessible_get_role(focused, &error);
    if (error) { g_error_free(error); return KHC_FOCUS_UNKNOWN; }
    // Still focused now: toolkits say so only while its window is the active one, so a widget
    // of a window that lost the focus to one that speaks no AT-SPI (a game) is not taken for it.
    AtspiStateSet *states = atspi_accessible_get_state_set(focused);
    int still = states && atspi_state_set_contains(states, ATSPI_STATE_FOCUSED);
    int editable = states && atspi_state_set_contains(states, ATSPI_STATE_EDITABLE);
    if (states) g_object_unref(states);
    if (!still) return KHC_FOCUS_UNKNOWN;
    if (role == ATSPI_ROLE_PASSWORD_TEXT) return KHC_FOCUS_PASSWORD;
    if (role == ATSPI_ROLE_TERMINAL) return KHC_FOCUS_TERMINAL;
    return editable ? KHC_FOCUS_TEXT : KHC_FOCUS_OTHER;
}

int khc_start(struct khc_state *s) {
    if (s->started) return 1;
    if (atspi_init() > 1) return 0;   // 0: started, 1: already; more: no accessibility bus
    // A call answered late must not hold a character up: the bottom centre serves then.
    atspi_set_timeout(100, 1000);
    // The bus can be up with its registry gone: a user's accessibility bus outlives the X session
    // it was started for (a logout and a login within logind's UserStopDelaySec), and the registry
    // it starts again opens that X display and dies. Then no application says what has the focus.
    AtspiAccessible *desktop = atspi_get_desktop(0);
    GError *error = NULL;
    gint applications = desktop ? atspi_accessible_get_child_count(desktop, &error) : -1;
    if (desktop) g_object_unref(desktop);
    if (error || applications < 0) {
        snprintf(s->registry_error, sizeof s->registry_error, "%s", error ? error->message : "no list of applications");
        if (error) g_error_free(error);
        return 0;
    }
    AtspiEventListener *listener = atspi_event_listener_new(focus_changed, s, NULL);
    if (!atspi_event_listener_register(listener, "object:state-changed:focused", NULL)) return 0;
    s->started = 1;
    return 1;
}

int khc_caret(struct khc_state *s, int *x, int *y, int *width, int *height) {
    if (!s->focused) return 0;
    AtspiText *text = atspi_accessible_get_text_iface(s->focused);
    if (!text) return 0;
    int found = 0;
    GError *error = NULL;
    gint offset = atspi_text_get_caret_offset(text, &error);
    if (!error && offset >= 0) {
        // The character before the caret: the one the callout replaces.
        AtspiRect *r = atspi_text_get_character_extents(text, offset > 0 ? offset - 1 : 0, ATSPI_COORD_TYPE_SCREEN, &error);
        if (!error && r && r->width >= 0 && r->height > 0 && r->x >= 0 && r->y >= 0) {
            *x = r->x; *y = r->y; *width = r->width; *height = r->height;
            found = 1;
        }
        if (r) g_free(r);
    }
    if (error) g_error_free(error);
    g_object_unref(text);
    return found;
}
