// Linux headers Swift's Glibc module does not import, and the variadic ioctl calls Swift cannot
// make, as small inline functions: real constants and structs, no hand-copied numbers.
#ifndef KEYHOLD_CLINUXSHIM_H
#define KEYHOLD_CLINUXSHIM_H

#include <linux/kd.h>
#include <sys/ioctl.h>

/// The console mode of a VT (KD_TEXT or KD_GRAPHICS) through KDGETMODE; -1 with errno set.
static inline int keyhold_vt_mode(int fd) {
    int mode = 0;
    if (ioctl(fd, KDGETMODE, &mode) < 0) return -1;
    return mode;
}

static const int keyhold_kd_text = KD_TEXT;
static const int keyhold_kd_graphics = KD_GRAPHICS;

/// The peer of a connected unix socket (SO_PEERCRED): 0, or -1 with errno set.
int keyhold_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid);
// 1 when the peer of a connected stream socket has closed or shut down its end (POLLRDHUP, a
// poll that does not wait), 0 if not.
int keyhold_peer_closed(int fd);

/// The peer's supplementary groups (SO_PEERGROUPS, Linux 4.13+) into `groups` (room for
/// `*count`); on ERANGE `*count` says how many there are. 0, or -1 with errno set.
int keyhold_peer_groups(int fd, unsigned int *groups, int *count);

#endif
