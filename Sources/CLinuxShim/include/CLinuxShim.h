// Linux headers Swift's Glibc module does not import, and the variadic ioctl calls Swift cannot
// make, as small inline functions: real constants and structs, no hand-copied numbers.
#ifndef KEYHOLD_CLINUXSHIM_H
#define KEYHOLD_CLINUXSHIM_H

#include <linux/kd.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
// For the C targets that open a library lazily (CALSA, CSystemd); part of this module so the
// module is one umbrella.
#include "LazyLibrary.h"

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

// ---- epoll: each fd carries a 64-bit token. struct epoll_event is packed on x86_64 and not
// elsewhere; it is built and read here, in C, so Swift never sees its layout.

static const uint32_t keyhold_epollin = EPOLLIN;
static const uint32_t keyhold_epollout = EPOLLOUT;
static const uint32_t keyhold_epollpri = EPOLLPRI;
static const uint32_t keyhold_epollerr = EPOLLERR;
static const uint32_t keyhold_epollhup = EPOLLHUP;
static const int keyhold_epoll_ctl_add = EPOLL_CTL_ADD;
static const int keyhold_epoll_ctl_mod = EPOLL_CTL_MOD;
static const int keyhold_epoll_ctl_del = EPOLL_CTL_DEL;

static inline int keyhold_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

/// Waits (`timeout` ms, -1: no limit) for at most `max` (<= 64) ready fds: their tokens into
/// `tokens`, what each is ready for into `events` (unless NULL). The count, or -1 with errno set.
static inline int keyhold_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout) {
    struct epoll_event ready[64];
    int n = epoll_wait(epfd, ready, max < 64 ? max : 64, timeout);
    for (int i = 0; i < n; i++) {
        tokens[i] = ready[i].data.u64;
        if (events) events[i] = ready[i].events;
    }
    return n;
}

// ---- timerfd, signalfd, inotify

static const int keyhold_tfd_timer_abstime = TFD_TIMER_ABSTIME;
static const int keyhold_sfd_flags = SFD_CLOEXEC | SFD_NONBLOCK;
static const int keyhold_tfd_flags = TFD_CLOEXEC | TFD_NONBLOCK;
static const int keyhold_in_flags = IN_CLOEXEC | IN_NONBLOCK;
static const int keyhold_signalfd_info_size = (int)sizeof(struct signalfd_siginfo);

/// The signal of one `struct signalfd_siginfo` read from a signalfd.
static inline uint32_t keyhold_signalfd_signo(const void *info) {
    return ((const struct signalfd_siginfo *)info)->ssi_signo;
}

static const uint32_t keyhold_in_create = IN_CREATE;
static const uint32_t keyhold_in_attrib = IN_ATTRIB;
static const uint32_t keyhold_in_delete = IN_DELETE;
static const uint32_t keyhold_in_moved_to = IN_MOVED_TO;
static const uint32_t keyhold_in_onlydir = IN_ONLYDIR;
static const uint32_t keyhold_in_q_overflow = IN_Q_OVERFLOW;
static const uint32_t keyhold_in_ignored = IN_IGNORED;
static const int keyhold_inotify_header_size = (int)sizeof(struct inotify_event);

/// The mask and name length of the `struct inotify_event` at `event` (its name follows the header).
static inline void keyhold_inotify_event(const void *event, uint32_t *mask, uint32_t *length) {
    const struct inotify_event *e = event;
    *mask = e->mask;
    *length = e->len;
}

// ---- evdev force feedback

/// EVIOCGEFFECTS: how many effects the device holds at once; -1 with errno set.
int keyhold_ff_effects_max(int fd);
/// EVIOCSFF of one FF_RUMBLE effect: the kernel's effect id, or -errno. On a uinput device this
/// waits for its driver process to answer.
int keyhold_ff_upload_rumble(int fd, uint16_t length_ms, uint16_t delay_ms, uint16_t strong, uint16_t weak);
/// EVIOCRMFF: 0, or -1 with errno set.
int keyhold_ff_remove(int fd, int id);

/// EVIOCGKEY: the device's key state now (bit n: key n down) into `bits` (`bytes` long, KEY_CNT / 8
/// covers every key). 0, or -1 with errno set.
int keyhold_keys_held(int fd, uint8_t *bits, int bytes);

/// Names the calling thread (at most 15 bytes show): 0, or an error number.
int keyhold_name_thread(const char *name);

/// Moves the calling thread to SCHED_IDLE (it inherited the daemon's SCHED_FIFO): 0, or -1 with
/// errno set.
int keyhold_make_thread_idle(void);

/// When the calling thread runs SCHED_FIFO or SCHED_RR, keeps it so with SCHED_RESET_ON_FORK set:
/// threads it creates afterwards start as ordinary ones. 0 (also when it is not real-time), or -1
/// with errno set.
int keyhold_reset_realtime_on_fork(void);

/// Refuses the calling process (its threads, and any process it starts) the system calls the
/// daemon never needs and whose arguments systemd's filters cannot tell apart: a netlink socket of
/// any protocol but kernel uevents (udev's hotplug events), and the sound card control calls
/// playback never makes (removing, replacing or locking a control, TLV commands, power states).
/// Adding a control, writing its value and its dB range stay: alsa-lib's softvol, the default
/// PCM of HDA Intel cards, makes its volume control so when it first opens. A seccomp filter
/// (no_new_privs set first), answering EPERM. 0, or -1 with errno set (a kernel without seccomp,
/// or a system call filter that refuses prctl).
int keyhold_refuse_unneeded_calls(void);
/// SNDRV_CTL_IOCTL_ELEM_REMOVE (a card's control removed), and ioctl(fd, request, NULL)
/// answering 0 or its errno: for the tests of the call above.
unsigned long keyhold_mixer_remove_request(void);
int keyhold_ioctl_errno(int fd, unsigned long request);

/// malloc_trim(0): returns the free memory of every malloc arena (a worker thread's too) to the
/// system.
static inline void keyhold_malloc_trim(void) { malloc_trim(0); }

/// A non-blocking, close-on-exec eventfd (a worker thread's "done" to the event loop), or -1.
int keyhold_eventfd(void);

#endif
