// GLib's main context, which keyhold-session runs inside its own poll loop (GTK's picker
// overlay and IBus both dispatch there); include paths from pkg-config glib-2.0.
#include <glib.h>
