// GTK 3 and gtk-layer-shell, for CSessionOverlay (their include paths come from pkg-config
// gtk-layer-shell-0, which requires gtk+-3.0).
#include <gtk-layer-shell/gtk-layer-shell.h>
