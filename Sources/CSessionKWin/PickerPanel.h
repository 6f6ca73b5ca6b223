#ifndef KEYHOLD_PICKERPANEL_H
#define KEYHOLD_PICKERPANEL_H
// The picker drawn by keyhold-session itself (Pango on cairo, into shared memory) on an input
// panel surface in overlay mode, which KWin shows under the focused text input's cursor.
#include "CSessionKWin.h"
void kpp_close(struct kpp_state *p);
int kpp_show(struct kpp_state *p, struct wl_compositor *compositor, struct wl_shm *shm, struct zwp_input_panel_v1 *panel,
             const char *base, const char *const *candidates, int count, int selected, const char *header);
void kpp_hide(struct kpp_state *p);
#endif
