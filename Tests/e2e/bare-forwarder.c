// bare-forwarder.c - the benchmark's floor: the least a program can do to take a keyboard and pass
// its keys on. A reference for Keyhold's latency, never shipped; built by `vm.sh build` beside the
// probe. It grabs SRC, makes a uinput keyboard with SRC's name and keys, and then forwards: one
// read() of whatever batch the kernel has, one write() of that batch. Like keyd it locks its
// memory; its scheduling is the caller's (chrt, or the probe's -f, set before the exec as systemd
// sets a service's), so it runs under the same policy as the daemon it is measured beside.
//
//   bare-forwarder /dev/input/eventN      prints "forwarding NAME" once ready; when the source goes
//                                          away, "cpu-ns N" (its time on the CPU since it was ready)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

// Its time on the CPU so far (schedstat), the kernel's work for its reads and writes included,
// as the benchmark counts Keyhold's.
static long long cpu_ns(void) {
    char line[128] = "";
    FILE *f = fopen("/proc/self/schedstat", "r");
    if (f && !fgets(line, sizeof line, f)) line[0] = 0;
    if (f) fclose(f);
    return atoll(line);
}

static int fail(const char *what) {
    fprintf(stderr, "bare-forwarder: %s: %s\n", what, strerror(errno));
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: bare-forwarder /dev/input/eventN\n"); return 2; }
    int src = open(argv[1], O_RDONLY | O_CLOEXEC);
    if (src < 0) return fail(argv[1]);
    struct uinput_setup setup = {0};
    if (ioctl(src, EVIOCGNAME(sizeof setup.name - 1), setup.name) < 0) return fail("EVIOCGNAME");
    if (ioctl(src, EVIOCGID, &setup.id) < 0) return fail("EVIOCGID");
    unsigned char keys[KEY_MAX / 8 + 1] = {0};
    if (ioctl(src, EVIOCGBIT(EV_KEY, sizeof keys), keys) < 0) return fail("EVIOCGBIT");

    int out = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
    if (out < 0) return fail("/dev/uinput");
    if (ioctl(out, UI_SET_EVBIT, EV_KEY) < 0) return fail("UI_SET_EVBIT");
    for (int code = 0; code <= KEY_MAX; code++)
        if (keys[code / 8] & (1 << (code % 8)) && ioctl(out, UI_SET_KEYBIT, code) < 0) return fail("UI_SET_KEYBIT");
    if (ioctl(out, UI_DEV_SETUP, &setup) < 0 || ioctl(out, UI_DEV_CREATE) < 0) return fail("UI_DEV_CREATE");
    if (ioctl(src, EVIOCGRAB, (void *)1) < 0) return fail("EVIOCGRAB");
    if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0) return fail("mlockall");
    printf("forwarding %s\n", setup.name);
    fflush(stdout);
    long long ready = cpu_ns();   // its start (the device made, its memory locked) not counted

    struct input_event batch[64];
    for (;;) {
        ssize_t n = read(src, batch, sizeof batch);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == ENODEV) { printf("cpu-ns %lld\n", cpu_ns() - ready); return 0; }
        if (n <= 0) return n == 0 ? 0 : fail("read");
        if (write(out, batch, (size_t)n) != n) return fail("write");
    }
}
