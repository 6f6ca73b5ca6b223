#include "CSessionOverlay.h"
#include "CaretLocator.h"
#include <gtk/gtk.h>
#include <gtk-layer-shell/gtk-layer-shell.h>
#include <string.h>

enum { MAX_CELLS = 40, BOTTOM_MARGIN = 96, CARET_GAP = 6 };

static int layer_shell;
static int follows_caret;   // X11 with an accessibility bus: screen coordinates of the caret
static GtkWidget *window, *row;
static GtkWidget *cells[MAX_CELLS];
static int cell_count;
static int picked = -1;   // a candidate clicked, until kho_take_pick

// Large enough to read at a glance; colours from the desktop's theme (light or dark).
static const char *css =
    "window.keyhold-picker { background-color: @theme_bg_color; border: 1px solid alpha(@theme_fg_color, 0.25);"
    "  border-radius: 10px; padding: 6px; }"
    ".keyhold-cell { padding: 4px 12px; border-radius: 8px; }"
    ".keyhold-cell.selected { background-color: @theme_selected_bg_color; color: @theme_selected_fg_color; }"
    ".keyhold-number { font-size: 16px; font-weight: bold; opacity: 0.8; }"
    ".keyhold-character { font-size: 34px; }"
    ".keyhold-base .keyhold-character { opacity: 0.6; }";

int kho_init(void) {
    // GTK's own accessibility bridge would register this process's windows on the accessibility
    // bus, which then calls and signals it at any time (and GTK answers some calls blocking): the
    // picker takes no focus and is read by no one, while the companion must stay idle and answer
    // the daemon at once. The caret is read through libatspi directly (CaretLocator.c).
    setenv("NO_AT_BRIDGE", "1", 1);
    if (!gtk_init_check(NULL, NULL)) return 0;
    GdkDisplay *display = gdk_display_get_default();
    layer_shell = gtk_layer_is_supported();
    // Wayland without wlr-layer-shell has no surface that stays out of the focus chain.
    if (!layer_shell && strcmp(G_OBJECT_TYPE_NAME(display), "GdkX11Display") != 0) return 0;
    GtkCssProvider *provider = gtk_css_provider_new();
    gtk_css_provider_load_from_data(provider, css, -1, NULL);
    gtk_style_context_add_provider_for_screen(gdk_screen_get_default(), GTK_STYLE_PROVIDER(provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(provider);
    // A Wayland client cannot place a surface at screen coordinates; an override-redirect
    // window can.
    // AT-SPI says which kind of widget has the focus everywhere (a password field, no text
    // field); where the caret is only matters without layer-shell, which places the picker itself.
    int accessibility = khc_start();
    if (!layer_shell) follows_caret = accessibility;
    return 1;
}

int kho_follows_caret(void) { return follows_caret; }

void kho_warm_up(void) {
    // The first picker loads the theme and fonts: done here, not while a key waits behind it.
    kho_begin("e");
    kho_add("\xc3\xa9");
    gtk_widget_show_all(row);
    GtkRequisition size;
    gtk_widget_get_preferred_size(window, NULL, &size);
    kho_hide();
}

static gboolean cell_clicked(GtkWidget *widget, GdkEventButton *event, gpointer index) {
    (void)widget;
    if (event->type == GDK_BUTTON_PRESS && event->button == 1) picked = GPOINTER_TO_INT(index);
    return TRUE;
}

static GtkWidget *cell(int index, const char *number, const char *character) {
    // An event box: a click on the candidate picks it.
    GtkWidget *clickable = gtk_event_box_new();
    gtk_event_box_set_visible_window(GTK_EVENT_BOX(clickable), FALSE);   // input only: the cell draws
    g_signal_connect(clickable, "button-press-event", G_CALLBACK(cell_clicked), GINT_TO_POINTER(index));
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

void kho_hide(void) {
    if (window) gtk_widget_destroy(window);
    window = NULL; row = NULL; cell_count = 0;
}

void kho_begin(const char *base) {
    kho_hide();
    if (layer_shell) {
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
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
    }
    gtk_window_set_title(GTK_WINDOW(window), "keyhold-picker");
    gtk_style_context_add_class(gtk_widget_get_style_context(window), "keyhold-picker");
    row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 2);
    gtk_box_set_homogeneous(GTK_BOX(row), TRUE);
    gtk_container_add(GTK_CONTAINER(window), row);
    cells[0] = cell(0, " ", base);
    gtk_style_context_add_class(gtk_widget_get_style_context(gtk_bin_get_child(GTK_BIN(cells[0]))), "keyhold-base");
    picked = -1;
    gtk_box_pack_start(GTK_BOX(row), cells[0], FALSE, FALSE, 0);
    cell_count = 1;
}

void kho_add(const char *candidate) {
    if (!row || cell_count == MAX_CELLS) return;
    char number[12];
    snprintf(number, sizeof number, "%d", cell_count);
    cells[cell_count] = cell(cell_count, number, candidate);
    gtk_box_pack_start(GTK_BOX(row), cells[cell_count], FALSE, FALSE, 0);
    cell_count++;
}

void kho_select(int selected) {
    for (int i = 0; i < cell_count; i++) {
        GtkStyleContext *style = gtk_widget_get_style_context(gtk_bin_get_child(GTK_BIN(cells[i])));
        if (i == selected) gtk_style_context_add_class(style, "selected");
        else gtk_style_context_remove_class(style, "selected");
    }
}

void kho_present(int selected) {
    if (!window) return;
    kho_select(selected);
    gtk_widget_show_all(row);
    if (!layer_shell) {
        GdkDisplay *display = gdk_display_get_default();
        GtkRequisition size;
        gtk_widget_get_preferred_size(window, NULL, &size);
        int cx, cy, cw, ch, x = 0, y = 0;
        int at_caret = follows_caret && khc_caret(&cx, &cy, &cw, &ch);
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
}

int kho_visible(void) { return window && gtk_widget_get_mapped(window); }

int kho_take_pick(void) {
    int index = picked;
    picked = -1;
    return index;
}

int kho_pointer_inside(void) {
    if (!kho_visible()) return 0;
    GdkWindow *own = gtk_widget_get_window(window);
    GdkDevice *pointer = gdk_seat_get_pointer(gdk_display_get_default_seat(gdk_display_get_default()));
    if (!own || !pointer) return 0;
    int x = 0, y = 0;
    gdk_device_get_position(pointer, NULL, &x, &y);
    GdkRectangle frame;
    gdk_window_get_frame_extents(own, &frame);
    return x >= frame.x && x < frame.x + frame.width && y >= frame.y && y < frame.y + frame.height;
}

int kho_focus_kind(int *pid, int64_t *at_ms) { return khc_focus_kind(pid, at_ms); }
const char *kho_accessibility_error(void) { return khc_registry_error(); }
int64_t kho_focus_moved_at(void) { return khc_focus_moved_at(); }
