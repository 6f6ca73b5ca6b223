#ifndef KEYHOLD_CARET_LOCATOR_H
#define KEYHOLD_CARET_LOCATOR_H
// Connects to the accessibility bus and follows the focus: 1, or 0 where there is no bus.
int khc_start(void);
// The screen rectangle of the character before the focused text's caret: 1, or 0 when unknown.
int khc_caret(int *x, int *y, int *width, int *height);
#endif
