// Most of the target's functions are inline in include/CLinuxShim.h; those needing _GNU_SOURCE
// (struct ucred, pthread_setname_np, SCHED_IDLE) are here, so the header stays plain for Swift's Glibc module.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include "CLinuxShim.h"
#include "LazyLibrary.h"

int keyhold_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) < 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int keyhold_peer_groups(int fd, unsigned int *groups, int *count) {
    socklen_t length = (socklen_t)((size_t)*count * sizeof *groups);
    int rc = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length);
    *count = (int)(length / sizeof *groups);
    return rc;
}

int keyhold_peer_closed(int fd) {
    struct pollfd p = { fd, POLLRDHUP, 0 };
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

int keyhold_name_thread(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    return pthread_setname_np(pthread_self(), short_name);
}

static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

int keyhold_lazy_open(struct keyhold_lazy_library *library) {
    pthread_mutex_lock(&lazy_lock);
    if (!library->tried) {
        library->tried = 1;
        // RTLD_LAZY: a function of the library (or of the libraries it needs) is bound when
        // first called, not all of them while it opens.
        library->handle = dlopen(library->soname, RTLD_LAZY | RTLD_LOCAL);
    }
    int open = library->handle != NULL;
    pthread_mutex_unlock(&lazy_lock);
    return open;
}

void *keyhold_lazy_symbol(struct keyhold_lazy_library *library, const char *name) {
    return keyhold_lazy_open(library) ? dlsym(library->handle, name) : NULL;
}

int keyhold_make_thread_idle(void) {
    struct sched_param param = { .sched_priority = 0 };
    return sched_setscheduler(0, SCHED_IDLE, &param);   // 0: the calling thread
}

int keyhold_reset_realtime_on_fork(void) {
    int policy = sched_getscheduler(0);
    if (policy != SCHED_FIFO && policy != SCHED_RR) return 0;
    struct sched_param param;
    if (sched_getparam(0, &param) != 0) return -1;
    return sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &param);
}

int keyhold_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

// ---- evdev force feedback (linux/input.h is included here only: the libevdev module brings
// its own copy of the header's types to Swift)

int keyhold_ff_effects_max(int fd) {
    int n = 0;
    if (ioctl(fd, EVIOCGEFFECTS, &n) < 0) return -1;
    return n;
}

int keyhold_ff_upload_rumble(int fd, uint16_t length_ms, uint16_t delay_ms, uint16_t strong, uint16_t weak) {
    struct ff_effect effect;
    memset(&effect, 0, sizeof effect);
    effect.type = FF_RUMBLE;
    effect.id = -1;
    effect.replay.length = length_ms;
    effect.replay.delay = delay_ms;
    effect.u.rumble.strong_magnitude = strong;
    effect.u.rumble.weak_magnitude = weak;
    if (ioctl(fd, EVIOCSFF, &effect) < 0) return -errno;
    return effect.id;
}

int keyhold_ff_remove(int fd, int id) {
    return ioctl(fd, EVIOCRMFF, id);
}

int keyhold_keys_held(int fd, uint8_t *bits, int bytes) {
    memset(bits, 0, (size_t)bytes);
    return ioctl(fd, EVIOCGKEY(bytes), bits) < 0 ? -1 : 0;
}
