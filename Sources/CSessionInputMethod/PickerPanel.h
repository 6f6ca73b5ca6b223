#ifndef KEYHOLD_PICKERPANEL_H
#define KEYHOLD_PICKERPANEL_H
// The picker drawn by keyhold-session itself (Pango on cairo, into shared memory) on an input
// panel surface in overlay mode, which KWin shows under the focused text input's cursor.
struct wl_compositor;
struct wl_shm;
struct zwp_input_panel_v1;
void kpp_open(struct wl_compositor *compositor, struct wl_shm *shm, struct zwp_input_panel_v1 *panel);
void kpp_close(void);
int kpp_show(const char *base, const char *const *candidates, int count, int selected);
void kpp_hide(void);
int kpp_visible(void);
#endif
