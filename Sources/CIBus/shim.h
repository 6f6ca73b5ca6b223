// IBus (libibus-1.0), for CSessionIBus: its include paths come from pkg-config ibus-1.0.
#include <ibus.h>
