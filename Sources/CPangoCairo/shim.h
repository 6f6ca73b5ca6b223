// Pango on cairo, for CSessionInputMethod's picker: its include paths come from pkg-config pangocairo.
#include <pango/pangocairo.h>
