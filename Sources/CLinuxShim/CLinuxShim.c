// Most of the target's functions are inline in include/CLinuxShim.h; those needing _GNU_SOURCE
// (struct ucred, pthread_setname_np, SCHED_IDLE) are here, so the header stays plain for Swift's Glibc module.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sound/asound.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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

#if defined(__x86_64__)
#define KEYHOLD_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KEYHOLD_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

unsigned long keyhold_mixer_remove_request(void) { return SNDRV_CTL_IOCTL_ELEM_REMOVE; }

int keyhold_ioctl_errno(int fd, unsigned long request) { return ioctl(fd, request, NULL) == 0 ? 0 : errno; }

int keyhold_refuse_unneeded_calls(void) {
#ifdef KEYHOLD_AUDIT_ARCH
#define ARG_LOW(n) offsetof(struct seccomp_data, args[n])   // the low 32 bits (little-endian)
#define REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define IF_IOCTL(request) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (request), 0, 1), REFUSE
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KEYHOLD_AUDIT_ARCH, 1, 0),
        ALLOW,   // another architecture's calls: systemd's filter (SystemCallArchitectures=native)
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 6),       // not socket: to the ioctl check
        // socket(domain, type, protocol): netlink only for uevents
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(0)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 3),         // not netlink: allowed
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NETLINK_KOBJECT_UEVENT, 1, 0),
        REFUSE,
        ALLOW,
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 13),        // not ioctl: the last ALLOW
        // ioctl(fd, request, ...): the kernel takes the request's low 32 bits. ELEM_ADD, ELEM_WRITE
        // and TLV_WRITE pass: softvol adds, sets and describes its control at its first open.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(1)),
        IF_IOCTL(SNDRV_CTL_IOCTL_ELEM_REPLACE),
        IF_IOCTL(SNDRV_CTL_IOCTL_ELEM_REMOVE),
        IF_IOCTL(SNDRV_CTL_IOCTL_ELEM_LOCK),
        IF_IOCTL(SNDRV_CTL_IOCTL_ELEM_UNLOCK),
        IF_IOCTL(SNDRV_CTL_IOCTL_TLV_COMMAND),
        IF_IOCTL(SNDRV_CTL_IOCTL_POWER),
        ALLOW,
    };
    _Static_assert(sizeof filter / sizeof filter[0] == 26, "the jumps above count the instructions between them");
    struct sock_fprog program = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
#undef IF_IOCTL
#undef ALLOW
#undef REFUSE
#undef ARG_LOW
#else
    errno = ENOSYS;
    return -1;
#endif
}

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
