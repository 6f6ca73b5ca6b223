#define _GNU_SOURCE
#include "PickerPanel.h"
#include "input-method-unstable-v1-client-protocol.h"
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

// As the GTK overlay draws it (CSessionOverlay.c): large enough to read at a glance, the base
// character dimmed, numbers above the characters, the current one highlighted (Breeze's colours).
// The header line is as tall as the overlay's (28 px and the 2 px gap), whatever its text.
enum { MAX_CELLS = 40, PADDING = 6, CELL_PAD_X = 12, CELL_PAD_Y = 4, GAP = 2, RADIUS = 10, CELL_RADIUS = 8, HEADER_H = 28 };
static const double background[3] = { 0.988, 0.988, 0.988 }, foreground[3] = { 0.137, 0.149, 0.161 },
                    selected_background[3] = { 0.239, 0.682, 0.914 }, selected_foreground[3] = { 1, 1, 1 };

static int ensure_surface(struct kpp_state *p, struct wl_compositor *compositor, struct zwp_input_panel_v1 *panel) {
    if (p->surface) return 1;
    if (!compositor || !panel) return 0;
    p->surface = wl_compositor_create_surface(compositor);
    // Clicks go through to the program under it: the picker never takes the pointer or the focus.
    struct wl_region *none = wl_compositor_create_region(compositor);
    wl_surface_set_input_region(p->surface, none);
    wl_region_destroy(none);
    p->panel_surface = zwp_input_panel_v1_get_input_panel_surface(panel, p->surface);
    zwp_input_panel_surface_v1_set_overlay_panel(p->panel_surface);
    return 1;
}

void kpp_close(struct kpp_state *p) {
    if (p->panel_surface) zwp_input_panel_surface_v1_destroy(p->panel_surface);
    if (p->surface) wl_surface_destroy(p->surface);
    p->panel_surface = NULL; p->surface = NULL; p->visible = 0;
}

// A buffer lives until KWin releases it.
static void buffer_release(void *data, struct wl_buffer *buffer) {
    (void)data;
    wl_buffer_destroy(buffer);
}
static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void rounded(cairo_t *cr, double x, double y, double w, double h, double r) {
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + w - r, y + r, r, -G_PI / 2, 0);
    cairo_arc(cr, x + w - r, y + h - r, r, 0, G_PI / 2);
    cairo_arc(cr, x + r, y + h - r, r, G_PI / 2, G_PI);
    cairo_arc(cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
    cairo_close_path(cr);
}

static PangoLayout *text_layout(cairo_t *cr, const char *text, const char *font) {
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_text(layout, text, -1);
    return layout;
}

// Draws the cells into `cr` (NULL: only measures); the picker's size in *width, *height. A
// `header` (the highlighted candidate's name; a search's query before it) is a line above the
// cells. With a `base`, a callout's, it is the first cell; without, a search's, the candidates
// are alone, numbered from 1.
static void draw(cairo_t *cr, cairo_t *measure, const char *base, const char *const *candidates, int count, int selected,
                 const char *header, int *width, int *height) {
    int first = base && *base ? 0 : 1, cells = count + 1 - first;
    int cell_w = 0, number_h = 0, character_h = 0, header_w = 0, header_h = 0;
    PangoLayout *numbers[MAX_CELLS], *characters[MAX_CELLS], *heading = NULL;
    for (int k = 0; k < cells; k++) {
        int i = k + first;
        char number[12] = " ";
        if (i > 0) snprintf(number, sizeof number, "%d", i);
        numbers[k] = text_layout(measure, number, "Sans Bold 12");
        characters[k] = text_layout(measure, i == 0 ? base : candidates[i - 1], "Sans 25");
        int w, h;
        pango_layout_get_pixel_size(numbers[k], &w, &h);
        if (w > cell_w) cell_w = w;
        if (h > number_h) number_h = h;
        pango_layout_get_pixel_size(characters[k], &w, &h);
        if (w > cell_w) cell_w = w;
        if (h > character_h) character_h = h;
    }
    int heading_h = 0;
    if (header && *header) {
        heading = text_layout(measure, header, "Sans 14");
        pango_layout_get_pixel_size(heading, &header_w, &heading_h);
        header_w += 2 * CELL_PAD_X;
        header_h = HEADER_H + GAP;
    }
    cell_w += 2 * CELL_PAD_X;
    int cell_h = number_h + character_h + 2 * CELL_PAD_Y;
    int row_w = cells * cell_w + (cells > 0 ? (cells - 1) * GAP : 0);
    *width = 2 * PADDING + (row_w > header_w ? row_w : header_w);
    *height = 2 * PADDING + header_h + (cells > 0 ? cell_h : 0);
    if (cr) {
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
        cairo_set_source_rgba(cr, 0, 0, 0, 0);
        cairo_paint(cr);
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
        rounded(cr, 0.5, 0.5, *width - 1, *height - 1, RADIUS);
        cairo_set_source_rgb(cr, background[0], background[1], background[2]);
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, foreground[0], foreground[1], foreground[2], 0.25);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        if (heading) {
            cairo_set_source_rgb(cr, foreground[0], foreground[1], foreground[2]);
            cairo_move_to(cr, PADDING + CELL_PAD_X, PADDING + (HEADER_H - heading_h) / 2.0);
            pango_cairo_show_layout(cr, heading);
        }
        for (int k = 0; k < cells; k++) {
            int i = k + first;
            double x = PADDING + k * (cell_w + GAP), y = PADDING + header_h;
            const double *ink = foreground;
            if (i == selected) {
                rounded(cr, x, y, cell_w, cell_h, CELL_RADIUS);
                cairo_set_source_rgb(cr, selected_background[0], selected_background[1], selected_background[2]);
                cairo_fill(cr);
                ink = selected_foreground;
            }
            int w, h;
            pango_layout_get_pixel_size(numbers[k], &w, &h);
            cairo_set_source_rgba(cr, ink[0], ink[1], ink[2], 0.8);
            cairo_move_to(cr, x + (cell_w - w) / 2.0, y + CELL_PAD_Y);
            pango_cairo_show_layout(cr, numbers[k]);
            pango_layout_get_pixel_size(characters[k], &w, &h);
            cairo_set_source_rgba(cr, ink[0], ink[1], ink[2], i == 0 && i != selected ? 0.6 : 1);
            cairo_move_to(cr, x + (cell_w - w) / 2.0, y + CELL_PAD_Y + number_h);
            pango_cairo_show_layout(cr, characters[k]);
        }
    }
    for (int k = 0; k < cells; k++) { g_object_unref(numbers[k]); g_object_unref(characters[k]); }
    if (heading) g_object_unref(heading);
}

int kpp_show(struct kpp_state *p, struct wl_compositor *compositor, struct wl_shm *shm, struct zwp_input_panel_v1 *panel,
             const char *base, const char *const *candidates, int count, int selected, const char *header) {
    if (count < 0 || !shm) return -1;
    if (count > MAX_CELLS - 1) count = MAX_CELLS - 1;
    if (!ensure_surface(p, compositor, panel)) return -1;
    // Measured first on a scratch surface, then drawn into a buffer of that size.
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *measure = cairo_create(scratch);
    int width, height;
    draw(NULL, measure, base, candidates, count, selected, header, &width, &height);
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width);
    size_t size = (size_t)stride * (size_t)height;
    int fd = memfd_create("keyhold-picker", MFD_CLOEXEC);
    void *pixels = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)size) == 0) pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) {
        if (fd >= 0) close(fd);
        cairo_destroy(measure); cairo_surface_destroy(scratch);
        return -1;
    }
    cairo_surface_t *image = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, width, height, stride);
    cairo_t *cr = cairo_create(image);
    draw(cr, measure, base, candidates, count, selected, header, &width, &height);
    cairo_destroy(cr);
    cairo_surface_flush(image);
    cairo_surface_destroy(image);
    cairo_destroy(measure);
    cairo_surface_destroy(scratch);
    munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    wl_buffer_add_listener(buffer, &buffer_listener, NULL);
    wl_surface_attach(p->surface, buffer, 0, 0);
    wl_surface_damage(p->surface, 0, 0, width, height);
    wl_surface_commit(p->surface);
    p->visible = 1;
    return 0;
}

void kpp_hide(struct kpp_state *p) {
    if (!p->surface || !p->visible) return;
    wl_surface_attach(p->surface, NULL, 0, 0);
    wl_surface_commit(p->surface);
    p->visible = 0;
}
