#ifndef KEYHOLD_CARET_LOCATOR_H
#define KEYHOLD_CARET_LOCATOR_H
#include "CSessionOverlay.h"
#include <stdint.h>
// khc_start (CSessionOverlay.h): connects to the accessibility bus and follows the focus (then
// registry_error says why it could not).
// The screen rectangle of the character before the focused text's caret: 1, or 0 when unknown.
int khc_caret(struct khc_state *s, int *x, int *y, int *width, int *height);
// What the accessible that has the focus is, as its application says through AT-SPI.
enum { KHC_FOCUS_UNKNOWN = 0, KHC_FOCUS_TEXT = 1, KHC_FOCUS_PASSWORD = 2, KHC_FOCUS_TERMINAL = 3, KHC_FOCUS_OTHER = 4 };
// Its kind, its application's pid (0: not known) and when the focus last moved (CLOCK_MONOTONIC
// ms; 0: never seen).
int khc_focus_kind(struct khc_state *s, int *pid, int64_t *at_ms);
#endif
