#include "CSessionOverlay.h"
#include "CaretLocator.h"
#include <gtk/gtk.h>
#include <gtk-layer-shell/gtk-layer-shell.h>
#include <string.h>

enum { BOTTOM_MARGIN = 96, CARET_GAP = 6 };

#define WINDOW(s) ((GtkWidget *)(s)->window)
#define ROW(s) ((GtkWidget *)(s)->row)
#define HEADER(s) ((GtkWidget *)(s)->header)
#define CELL(s, i) ((GtkWidget *)(s)->cells[i])

// Large enough to read at a glance; colours from the desktop's theme (light or dark).
static const char *css =
    "window.keyhold-picker { background-color: @theme_bg_color; border: 1px solid alpha(@theme_fg_color, 0.25);"
    "  border-radius: 10px; padding: 6px; }"
    ".keyhold-cell { padding: 4px 12px; border-radius: 8px; }"
    ".keyhold-cell.selected { background-color: @theme_selected_bg_color; color: @theme_selected_fg_color; }"
    ".keyhold-number { font-size: 16px; font-weight: bold; opacity: 0.8; }"
    ".keyhold-character { font-size: 34px; }"
    ".keyhold-base .keyhold-character { opacity: 0.6; }"
    ".keyhold-header { font-size: 18px; padding: 2px 8px; min-height: 24px; }"
    // Between pickers the layer-shell surface stays mapped, a transparent pixel (see create_window).
    "window.keyhold-idle { background-color: transparent; background-image: none; border: none;"
    "  box-shadow: none; padding: 0; }";

int kho_init(struct kho_state *s) {
    s->picked = -1;
    // GTK's own accessibility bridge would register this process's windows on the accessibility
    // bus, which then calls and signals it at any time (and GTK answers some calls blocking): the
    // picker takes no focus and is read by no one, while the companion must stay idle and answer
    // the daemon at once. The caret is read through libatspi directly (CaretLocator.c).
    setenv("NO_AT_BRIDGE", "1", 1);
    if (!gtk_init_check(NULL, NULL)) return 0;
    GdkDisplay *display = gdk_display_get_default();
    s->layer_shell = gtk_layer_is_supported();
    // Wayland without wlr-layer-shell has no surface that stays out of the focus chain.
    if (!s->layer_shell && strcmp(G_OBJECT_TYPE_NAME(display), "GdkX11Display") != 0) return 0;
    GtkCssProvider *provider = gtk_css_provider_new();
    gtk_css_provider_load_from_data(provider, css, -1, NULL);
    gtk_style_context_add_provider_for_screen(gdk_screen_get_default(), GTK_STYLE_PROVIDER(provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(provider);
    // A Wayland client cannot place a surface at screen coordinates; an override-redirect
    // window can.
    // AT-SPI says which kind of widget has the focus everywhere (a password field, no text
    // field); where the caret is only matters without layer-shell, which places the picker itself.
    int accessibility = khc_start(&s->accessibility);
    if (!s->layer_shell) s->follows_caret = accessibility;
    return 1;
}

int kho_follows_caret(const struct kho_state *s) { return s->follows_caret; }

int kho_retry_accessibility(struct kho_state *s) {
    s->accessibility.registry_error[0] = 0;
    int accessibility = khc_start(&s->accessibility);
    if (!s->layer_shell) s->follows_caret = accessibility;
    return accessibility;
}

static void accessibility_bus_appeared(GDBusConnection *c, const gchar *name, const gchar *owner, gpointer data) {
    (void)c; (void)name; (void)owner;
    ((struct kho_state *)data)->accessibility_bus_up = 1;
}

static void accessibility_bus_vanished(GDBusConnection *c, const gchar *name, gpointer data) {
    (void)c; (void)name;
    ((struct kho_state *)data)->accessibility_bus_up = 0;
}

void kho_watch_accessibility_bus(struct kho_state *s) {
    if (s->accessibility_bus_watch) return;
    s->accessibility_bus_watch = g_bus_watch_name(G_BUS_TYPE_SESSION, "org.a11y.Bus", G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                  accessibility_bus_appeared, accessibility_bus_vanished, s, NULL);
}

int kho_accessibility_bus_up(const struct kho_state *s) { return s->accessibility_bus_up; }

void kho_warm_up(struct kho_state *s) {
    // The first picker loads the theme and fonts (and on Wayland maps its surface): done here,
    // not while a key waits behind it.
    kho_begin(s, "e");
    kho_add(s, "\xc3\xa9");
    gtk_widget_show_all(ROW(s));
    GtkRequisition size;
    gtk_widget_get_preferred_size(WINDOW(s), NULL, &size);
    kho_hide(s);
}

// A cell's index rides on the widget (its "keyhold-index" data), the state in the callback's data.
static gboolean cell_clicked(GtkWidget *widget, GdkEventButton *event, gpointer data) {
    struct kho_state *s = data;
    if (event->type == GDK_BUTTON_PRESS && event->button == 1) s->picked = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(widget), "keyhold-index"));
    return TRUE;
}

static GtkWidget *cell(struct kho_state *s, int index, const char *number, const char *character) {
    // An event box: a click on the candidate picks it.
    GtkWidget *clickable = gtk_event_box_new();
    gtk_event_box_set_visible_window(GTK_EVENT_BOX(clickable), FALSE);   // input only: the cell draws
    g_object_set_data(G_OBJECT(clickable), "keyhold-index", GINT_TO_POINTER(index));
    g_signal_connect(clickable, "button-press-event", G_CALLBACK(cell_clicked), s);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_container_add(GTK_CONTAINER(clickable), box);
    gtk_style_context_add_class(gtk_widget_get_style_context(box), "keyhold-cell");
    GtkWidget *n = gtk_label_new(number);
    gtk_style_context_add_class(gtk_widget_get_style_context(n), "keyhold-number");
    GtkWidget *c = gtk_label_new(character);
    gtk_style_context_add_class(gtk_widget_get_style_context(c), "keyhold-character");
    gtk_box_pack_start(GTK_BOX(box), n, FALSE, FALSE, 0);
    gtk_box_pack_start(GTK_BOX(box), c, FALSE, FALSE, 0);
    return clickable;
}

static void cells_clear(struct kho_state *s) {
    for (int i = 0; i < s->cell_count; i++) gtk_widget_destroy(CELL(s, i));
    s->cell_count = 0;
}

// The layer-shell surface between pickers: 1x1 (a layer surface may not be 0 wide unless
// stretched), transparent, and clicks go through it.
static void set_idle(struct kho_state *s, int idle) {
    GtkStyleContext *style = gtk_widget_get_style_context(WINDOW(s));
    gtk_style_context_remove_class(style, idle ? "keyhold-picker" : "keyhold-idle");
    gtk_style_context_add_class(style, idle ? "keyhold-idle" : "keyhold-picker");
    gtk_widget_set_size_request(ROW(s), idle ? 1 : -1, idle ? 1 : -1);
    cairo_region_t *nothing = cairo_region_create();
    gtk_widget_input_shape_combine_region(WINDOW(s), idle ? nothing : NULL);
    cairo_region_destroy(nothing);
}

static void window_destroyed(GtkWidget *window, gpointer data) {
    struct kho_state *s = data;
    if (s->window != window) return;
    s->window = NULL; s->row = NULL; s->header = NULL; s->cell_count = 0; s->shown = 0;
}

// On Wayland one layer-shell surface serves the whole session, mapped here: gtk-layer-shell maps
// a surface with a round trip to the compositor, which a busy one (sway just after a login) holds
// for seconds, while the character picked waits behind it. (Made again only if the compositor
// closes it, its output gone.) On X11 a popup per picker: mapping one waits for nobody.
static void create_window(struct kho_state *s) {
    GtkWidget *window;
    if (s->layer_shell) {
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
        GdkVisual *alpha = gdk_screen_get_rgba_visual(gtk_widget_get_screen(window));
        if (alpha) gtk_widget_set_visual(window, alpha);
        gtk_layer_init_for_window(GTK_WINDOW(window));
        gtk_layer_set_namespace(GTK_WINDOW(window), "keyhold-picker");
        gtk_layer_set_layer(GTK_WINDOW(window), GTK_LAYER_SHELL_LAYER_OVERLAY);
        gtk_layer_set_anchor(GTK_WINDOW(window), GTK_LAYER_SHELL_EDGE_BOTTOM, TRUE);
        gtk_layer_set_margin(GTK_WINDOW(window), GTK_LAYER_SHELL_EDGE_BOTTOM, BOTTOM_MARGIN);
        gtk_layer_set_keyboard_interactivity(GTK_WINDOW(window), FALSE);
    } else {
        // Override-redirect: no window manager focuses or decorates it.
        window = gtk_window_new(GTK_WINDOW_POPUP);
        gtk_window_set_accept_focus(GTK_WINDOW(window), FALSE);
        gtk_style_context_add_class(gtk_widget_get_style_context(window), "keyhold-picker");
    }
    gtk_window_set_title(GTK_WINDOW(window), "keyhold-picker");
    g_signal_connect(window, "destroy", G_CALLBACK(window_destroyed), s);
    GtkWidget *column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    GtkWidget *header = gtk_label_new("");
    gtk_label_set_xalign(GTK_LABEL(header), 0);
    gtk_style_context_add_class(gtk_widget_get_style_context(header), "keyhold-header");
    gtk_widget_set_no_show_all(header, TRUE);   // shown by kho_set_header
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 2);
    gtk_box_set_homogeneous(GTK_BOX(row), TRUE);
    gtk_box_pack_start(GTK_BOX(column), header, FALSE, FALSE, 0);
    gtk_box_pack_start(GTK_BOX(column), row, FALSE, FALSE, 0);
    gtk_container_add(GTK_CONTAINER(window), column);
    s->window = window;
    s->row = row;
    s->header = header;
    if (s->layer_shell) {
        set_idle(s, 1);
        gtk_widget_show_all(window);
    }
}

void kho_hide(struct kho_state *s) {
    s->shown = 0;
    if (!s->window) return;
    if (!s->layer_shell) { gtk_widget_destroy(WINDOW(s)); return; }   // (window_destroyed forgets it)
    cells_clear(s);
    gtk_widget_hide(HEADER(s));   // (else its text stays drawn on the idle surface)
    set_idle(s, 1);
}

void kho_begin(struct kho_state *s, const char *base) {
    kho_hide(s);
    if (!s->window) create_window(s);
    s->first_index = 0;
    s->cells[0] = cell(s, 0, " ", base);
    gtk_style_context_add_class(gtk_widget_get_style_context(gtk_bin_get_child(GTK_BIN(CELL(s, 0)))), "keyhold-base");
    s->picked = -1;
    gtk_box_pack_start(GTK_BOX(ROW(s)), CELL(s, 0), FALSE, FALSE, 0);
    s->cell_count = 1;
}

void kho_begin_search(struct kho_state *s) {
    kho_hide(s);
    if (!s->window) create_window(s);
    s->first_index = 1;
    s->picked = -1;
    s->cell_count = 0;
}

void kho_set_header(struct kho_state *s, const char *header) {
    if (!s->header) return;
    gtk_label_set_text(GTK_LABEL(HEADER(s)), header);
    gtk_widget_set_visible(HEADER(s), *header != 0);
}

void kho_add(struct kho_state *s, const char *candidate) {
    if (!s->row || s->cell_count == KHO_MAX_CELLS) return;
    char number[12];
    int index = s->cell_count + s->first_index;
    snprintf(number, sizeof number, "%d", index);
    s->cells[s->cell_count] = cell(s, index, number, candidate);
    gtk_box_pack_start(GTK_BOX(ROW(s)), CELL(s, s->cell_count), FALSE, FALSE, 0);
    s->cell_count++;
}

void kho_select(struct kho_state *s, int selected) {
    for (int i = 0; i < s->cell_count; i++) {
        GtkStyleContext *style = gtk_widget_get_style_context(gtk_bin_get_child(GTK_BIN(CELL(s, i))));
        if (i + s->first_index == selected) gtk_style_context_add_class(style, "selected");
        else gtk_style_context_remove_class(style, "selected");
    }
}

void kho_present(struct kho_state *s, int selected) {
    if (!s->window) return;
    GtkWidget *window = WINDOW(s);
    kho_select(s, selected);
    if (s->layer_shell) set_idle(s, 0);
    gtk_widget_show_all(gtk_widget_get_parent(ROW(s)));   // the row and the column it is in (the header shows itself)
    if (!s->layer_shell) {
        GdkDisplay *display = gdk_display_get_default();
        GtkRequisition size;
        gtk_widget_get_preferred_size(window, NULL, &size);
        int cx, cy, cw, ch, x = 0, y = 0;
        int at_caret = s->follows_caret && khc_caret(&s->accessibility, &cx, &cy, &cw, &ch);
        if (at_caret) { x = cx; y = cy; }
        else {
            GdkDevice *pointer = gdk_seat_get_pointer(gdk_display_get_default_seat(display));
            if (pointer) gdk_device_get_position(pointer, NULL, &x, &y);
        }
        GdkMonitor *monitor = gdk_display_get_monitor_at_point(display, x, y);
        GdkRectangle area = { 0, 0, 800, 600 };
        if (monitor) gdk_monitor_get_workarea(monitor, &area);
        if (at_caret) {
            // Below the character, its left edge under it; above when there is no room below;
            // kept on the monitor.
            y = cy + ch + CARET_GAP;
            if (y + size.height > area.y + area.height) y = cy - CARET_GAP - size.height;
            x = CLAMP(cx, area.x, area.x + area.width - size.width);
            y = CLAMP(y, area.y, area.y + area.height - size.height);
        } else {
            // Bottom centre of the monitor under the pointer.
            x = area.x + (area.width - size.width) / 2;
            y = area.y + area.height - size.height - BOTTOM_MARGIN;
        }
        gtk_window_move(GTK_WINDOW(window), x, y);
    }
    gtk_widget_show(window);
    s->shown = 1;
}

int kho_visible(const struct kho_state *s) { return s->shown && s->window && gtk_widget_get_mapped(WINDOW(s)); }

int kho_take_pick(struct kho_state *s) {
    int index = s->picked;
    s->picked = -1;
    return index;
}

int kho_pointer_inside(const struct kho_state *s) {
    if (!kho_visible(s)) return 0;
    GdkWindow *own = gtk_widget_get_window(WINDOW(s));
    GdkDevice *pointer = gdk_seat_get_pointer(gdk_display_get_default_seat(gdk_display_get_default()));
    if (!own || !pointer) return 0;
    int x = 0, y = 0;
    gdk_device_get_position(pointer, NULL, &x, &y);
    GdkRectangle frame;
    gdk_window_get_frame_extents(own, &frame);
    return x >= frame.x && x < frame.x + frame.width && y >= frame.y && y < frame.y + frame.height;
}

int kho_focus_kind(struct kho_state *s, int *pid, int64_t *at_ms) { return khc_focus_kind(&s->accessibility, pid, at_ms); }
const char *kho_accessibility_error(const struct kho_state *s) {
    return s->accessibility.registry_error[0] ? s->accessibility.registry_error : NULL;
}
int64_t kho_focus_moved_at(const struct kho_state *s) { return s->accessibility.focused_at; }
