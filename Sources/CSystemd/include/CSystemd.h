// libsystemd's sd-login and sd-bus, loaded when first used rather than when the program starts.
//
// The declarations are systemd's own headers; CSystemd.c defines the functions Keyhold calls,
// each forwarding to libsystemd.so.0, which it opens (dlopen, RTLD_LOCAL) on the first call.
// Loading libsystemd and the six libraries it needs (libgcrypt, liblzma, libzstd, liblz4,
// libcap, libgpg-error) at exec was a tenth of the dynamic loader's work before the daemon's
// first key, and the daemon needs none of it until the keyboards are grabbed (sessions,
// suspend). Without libsystemd the functions fail with -ENOSYS (NULL for the unref ones), as
// they would on a system without logind. A function not listed in CSystemd.c does not link:
// add it there (the program is not linked with -lsystemd).
#ifndef KEYHOLD_CSYSTEMD_H
#define KEYHOLD_CSYSTEMD_H

#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

/// Whether libsystemd.so.0 could be opened (opens it if not yet tried): 1 or 0.
int keyhold_systemd_available(void);

#endif
