// ffdriver - a uinput force-feedback device that acts as its own driver, for Keyhold's haptic
// end-to-end test (adapted from the reference ffdemo.c).
//
//   ffdriver NAME [-n MAX_EFFECTS] [-t SECONDS]
//
// Creates a uinput device NAME with EV_FF/FF_RUMBLE (and one key, so it is a normal input
// device), prints "ready /dev/input/eventN", then answers every effect upload and erase and logs
// each on stdout, one line each, flushed:
//   upload id=0 type=rumble strong=16384 weak=8192 length=25 delay=0
//   play 12.345678 effect=0 value=1
//   erase id=0
// It exits on SIGTERM/SIGINT or after SECONDS (default 120), printing
//   summary uploads=N plays=N stops=N erases=N failed_uploads=N
// Uploads beyond MAX_EFFECTS (default 16) are refused by the kernel (ENOSPC) before they reach us.
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: ffdriver NAME [-n MAX_EFFECTS] [-t SECONDS]\n"); return 2; }
    const char *name = argv[1];
    int max_effects = 16; double seconds = 120;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) max_effects = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-t")) seconds = atof(argv[i + 1]);
        else { fprintf(stderr, "ffdriver: unknown option %s\n", argv[i]); return 2; }
    }
    struct sigaction sa = {0}; sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL); sigaction(SIGINT, &sa, NULL);

    int fd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
    if (fd < 0) { perror("ffdriver: /dev/uinput"); return 1; }
    ioctl(fd, UI_SET_EVBIT, EV_KEY); ioctl(fd, UI_SET_KEYBIT, BTN_SOUTH);
    ioctl(fd, UI_SET_EVBIT, EV_FF); ioctl(fd, UI_SET_FFBIT, FF_RUMBLE);
    struct uinput_setup us = {0};
    us.id.bustype = BUS_VIRTUAL; us.id.vendor = 0x1234; us.id.product = 0xfeed;
    snprintf(us.name, sizeof us.name, "%s", name); us.ff_effects_max = max_effects;
    if (ioctl(fd, UI_DEV_SETUP, &us) || ioctl(fd, UI_DEV_CREATE)) { perror("ffdriver: uinput setup"); return 1; }
    char sys[64] = "";
    ioctl(fd, UI_GET_SYSNAME(sizeof sys), sys);
    // the event node: /sys/devices/virtual/input/inputN/eventM (devtmpfs creates /dev/input/eventM)
    char node[128] = "", dir[128];
    snprintf(dir, sizeof dir, "/sys/devices/virtual/input/%s", sys);
    for (int tries = 0; tries < 200 && !node[0]; tries++) {
        for (int m = 0; m < 64; m++) {
            char p[192]; snprintf(p, sizeof p, "%s/event%d", dir, m);
            if (access(p, F_OK) == 0) {
                snprintf(node, sizeof node, "/dev/input/event%d", m);
                for (int w = 0; w < 200 && access(node, F_OK) != 0; w++) usleep(10000);
                break;
            }
        }
        if (!node[0]) usleep(10000);
    }
    printf("ready %s %s\n", node[0] ? node : "?", sys); fflush(stdout);

    int uploads = 0, plays = 0, stops = 0, erases = 0, failed = 0;
    double end = now() + seconds;
    while (!stop && now() < end) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;
        struct input_event ev;
        if (read(fd, &ev, sizeof ev) != sizeof ev) continue;
        if (ev.type == EV_UINPUT && ev.code == UI_FF_UPLOAD) {
            struct uinput_ff_upload up = { .request_id = ev.value };
            if (ioctl(fd, UI_BEGIN_FF_UPLOAD, &up)) { perror("ffdriver: UI_BEGIN_FF_UPLOAD"); failed++; continue; }
            int ok = up.effect.type == FF_RUMBLE;
            printf("upload id=%d type=%s strong=%u weak=%u length=%u delay=%u\n", up.effect.id,
                   ok ? "rumble" : "other", up.effect.u.rumble.strong_magnitude, up.effect.u.rumble.weak_magnitude,
                   up.effect.replay.length, up.effect.replay.delay);
            up.retval = ok ? 0 : -EINVAL;
            if (ok) uploads++; else failed++;
            ioctl(fd, UI_END_FF_UPLOAD, &up);
        } else if (ev.type == EV_UINPUT && ev.code == UI_FF_ERASE) {
            struct uinput_ff_erase er = { .request_id = ev.value };
            if (ioctl(fd, UI_BEGIN_FF_ERASE, &er)) { perror("ffdriver: UI_BEGIN_FF_ERASE"); continue; }
            printf("erase id=%u\n", er.effect_id);
            erases++;
            er.retval = 0; ioctl(fd, UI_END_FF_ERASE, &er);
        } else if (ev.type == EV_FF) {
            printf("play %.6f effect=%d value=%d\n", now(), ev.code, ev.value);
            if (ev.value) plays++; else stops++;
        }
        fflush(stdout);
    }
    printf("summary uploads=%d plays=%d stops=%d erases=%d failed_uploads=%d\n", uploads, plays, stops, erases, failed);
    fflush(stdout);
    ioctl(fd, UI_DEV_DESTROY); close(fd);
    return 0;
}
