// probe.c - input-device helper for Keyhold's end-to-end tests. Runs inside the test guest
// (the host kernel has no uinput). Needs only kernel headers; built by `vm.sh build`.
//
//   probe find NAME [-t SEC] [-x DEV] [-i]
//                                       print /dev/input/eventN of the newest device named
//                                       exactly NAME (not DEV), waiting up to SEC (default 10).
//                                       -i: append its "inputM": eventN numbers are reused by
//                                       later devices, inputM numbers never are
//   probe list                          print "DEV<TAB>NAME" for every input device
//   probe keystate DEV                  print "held: 30 42" or "held: none" (EVIOCGKEY)
//   probe leds DEV                      print "leds: 0 1" (LED codes lit) or "leds: none"
//   probe grabbed DEV [-t SEC] [-r]     exit 0 once DEV is grabbed by someone (-r: once released)
//                                       (tests by grabbing for a moment itself: use only while
//                                       nothing else is trying to grab DEV)
//   probe source NAME [opts]            uinput keyboard (KEY_ESC..KEY_MICMUTE, LEDs caps/num/
//                                       scroll); prints "ready DEV", then runs stdin commands:
//        d CODE | u CODE | r CODE       key down / up / repeat (value 2), each + SYN_REPORT
//        t MS                           sleep (prints "late MS OVER" when it overslept by 20 ms or more)
//        flood N                        N events as fast as possible: letter a down, a up, b down...
//        raw TYPE CODE VALUE | syn      one event without / only a SYN_REPORT
//        destroy | create               unplug / replug (prints "destroyed" / "ready DEV")
//        echo TEXT                      print TEXT (a sync point: everything before it is done)
//        stamp TAG                      print "TAG USEC" (CLOCK_MONOTONIC): when the key before it went out
//        quit                           (EOF too)
//      opts: -l  print "sent SEC.USEC CODE VALUE" (CLOCK_MONOTONIC) after each key write
//            --rep  advertise EV_REP (kernel autorepeat)   --bus usb|virtual|bluetooth|i8042
//            --id VENDOR:PRODUCT (hex)   --rt  keep time as a keyboard does (SCHED_FIFO): a busy
//            desktop in the guest would otherwise stretch a 60 ms gap past a double tap's 200 ms
//   probe record DEV [-t SEC] [-n N] [-k CODE] [-i SEC] [-w SEC] [-a]  print "SEC.USEC CODE VALUE"
//                                       per key event (CLOCK_MONOTONIC; SYN_DROPPED as "SEC.USEC
//                                       dropped"; -a: all events as "SEC.USEC TYPE CODE VALUE").
//                                       First line "# recording DEV". Stops after SEC (default 10),
//                                       N key events, a press of CODE, or -i SEC without a key
//                                       event once one came (a stream that lost some ends there,
//                                       not at -t). -w: reads nothing for its first SEC (a reader
//                                       that stalls: what the kernel's buffer keeps). Never grabs.
//   probe flood-verify N [-s] < RECORD  check a recording of "flood N": in-order subsequence
//                                       (-s: and complete). Prints "flood: sent N received M ..."
//   probe latency SRC_NAME DST_NAME COUNT [-c CODE] [-g MS] [-t SEC] [-p] [-r FILE]
//                                       create source SRC_NAME (prints "ready DEV"), wait up to SEC
//                                       (default 30) for a device DST_NAME that is not the source
//                                       and for events to flow to it, then write COUNT down/up
//                                       pairs MS apart (default 5) and print the write->arrival
//                                       latency percentiles in microseconds. -p: time the presses
//                                       only (a key typed on press arrives as down+up at once);
//                                       -r: append every latency to FILE, one per line.
//   probe latency-mix COUNT [-g MS] [-t SEC] PATH...
//                                       the same for several paths at once, taking turns tap by
//                                       tap (PATH 1 down, up, PATH 2 down, up, ...: a slow spell of
//                                       the guest falls on every path alike), presses timed. PATH is
//                                       "SRC_NAME|DST_NAME|CODE|FILE[|VENDOR:PRODUCT]": its source
//                                       (hex ids, default 4b48:0001), the device its keys come out
//                                       of, the key, and the file each latency is appended to.
//                                       Prints "ready DEV SRC_NAME" per source as it is created,
//                                       then "latency SRC_NAME: events ..." per path.
//   probe first-key SRC_NAME DST_NAME CODE [-t SEC] [-o LOG] [-f PRIO] [-F PRIO] -- CMD ARG...
//                                       create source SRC_NAME, start CMD (output to LOG), and tap
//                                       CODE every 10 ms until it arrives on a device DST_NAME:
//                                       prints "first-key: pid P exec->device N us exec->key M us"
//                                       (kernel timestamps, CLOCK_MONOTONIC). CMD keeps running.
//                                       -f: CMD starts at SCHED_FIFO PRIO, set before its exec as
//                                       systemd sets a service's CPUSchedulingPolicy (chrt would add
//                                       an exec of its own to the time measured). -F: the probe
//                                       taps at SCHED_FIFO PRIO itself, as a keyboard's keys reach
//                                       the kernel whatever a daemon busy with its start is doing
//                                       (below the daemon's priority, the probe would only press a
//                                       key once the daemon gave up the CPU). An ARG "{SRC}" is
//                                       the source's node (a program told which device to take).
//                                       CMD leads a process group of its own: `kill -- -P` ends
//                                       every process it started.
//   CODE: a number or a name from linux/input-event-codes.h (30, KEY_A, a, leftshift).
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BITS_LONG (sizeof(long) * 8)
#define NLONGS(n) (((n) + BITS_LONG - 1) / BITS_LONG)
#define TEST_BIT(b, a) (((a)[(b) / BITS_LONG] >> ((b) % BITS_LONG)) & 1)

static void die(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    fprintf(stderr, "probe: "); vfprintf(stderr, fmt, ap); fputc('\n', stderr);
    va_end(ap); exit(2);
}

static int64_t now_us(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}
static int64_t ev_us(const struct input_event *e) {
    return (int64_t)e->input_event_sec * 1000000 + e->input_event_usec;
}
static void sleep_ms(double ms) {
    if (ms <= 0) return;
    struct timespec t = { (time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };
    while (nanosleep(&t, &t) && errno == EINTR) {}
}

static volatile sig_atomic_t stop_flag;
static void on_signal(int s) { (void)s; stop_flag = 1; }
static void catch_signals(void) {
    struct sigaction sa = { .sa_handler = on_signal };   // no SA_RESTART: poll() returns EINTR
    sigaction(SIGTERM, &sa, NULL); sigaction(SIGINT, &sa, NULL);
}

// ---- key names: looked up in the kernel header at run time (no table to keep in sync) ----
static const char *header_path(void) {
    const char *p = getenv("PROBE_KEY_HEADER");
    return p ? p : "/usr/include/linux/input-event-codes.h";
}
static long lookup_define(const char *name, int depth) {
    FILE *f = fopen(header_path(), "r");
    if (!f) return -1;
    char line[256], n[128], v[128]; long r = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "#define %127s %127s", n, v) == 2 && !strcmp(n, name)) {
            if (isdigit((unsigned char)v[0])) r = strtol(v, NULL, 0);
            else if (depth < 3) r = lookup_define(v, depth + 1);   // aliases: KEY_HANGUEL KEY_HANGEUL
            break;
        }
    fclose(f); return r;
}
static int parse_code(const char *s) {
    char *end; long v = strtol(s, &end, 0);
    if (*s && !*end) return (int)v;
    char name[128]; size_t i = 0;
    if (strncasecmp(s, "KEY_", 4) && strncasecmp(s, "BTN_", 4)) { strcpy(name, "KEY_"); i = 4; }
    for (; *s && i < sizeof name - 1; s++) name[i++] = toupper((unsigned char)*s);
    name[i] = 0;
    long r = lookup_define(name, 0);
    if (r < 0) { fprintf(stderr, "probe: unknown key %s\n", name); return -1; }
    return (int)r;
}

// ---- finding devices ----
// The newest device is the one with the highest inputM number: the kernel never reuses those
// (eventN minors are reused, so they say nothing about age).
static int input_number(const char *event) {
    char p[PATH_MAX], t[PATH_MAX];
    snprintf(p, sizeof p, "/sys/class/input/%s/device", event);
    ssize_t n = readlink(p, t, sizeof t - 1);
    if (n < 0) return -1;
    t[n] = 0;
    char *b = strrchr(t, '/');
    return (b && !strncmp(b + 1, "input", 5)) ? atoi(b + 6) : -1;
}
static int sys_name(const char *event, char *out, size_t len) {
    char p[PATH_MAX]; snprintf(p, sizeof p, "/sys/class/input/%s/device/name", event);
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    if (!fgets(out, (int)len, f)) out[0] = 0;
    fclose(f); out[strcspn(out, "\n")] = 0; return 0;
}
// one scan; fills path (and *num: its inputN), returns 1 if found
static int find_num;
static int find_once(const char *name, const char *exclude, char *path, size_t len) {
    DIR *d = opendir("/sys/class/input");
    if (!d) return 0;
    struct dirent *e; int best = -1; char n[256];
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "event", 5)) continue;
        if (sys_name(e->d_name, n, sizeof n) || strcmp(n, name)) continue;
        char p[300]; snprintf(p, sizeof p, "/dev/input/%s", e->d_name);
        if (exclude && !strcmp(p, exclude)) continue;
        int num = input_number(e->d_name);
        if (num > best) { best = num; snprintf(path, len, "%s", p); }
    }
    closedir(d);
    find_num = best;
    return best >= 0 && access(path, R_OK) == 0;   // devtmpfs may create the node a bit later
}
static int find_dev(const char *name, const char *exclude, double timeout_s, char *path, size_t len) {
    int64_t end = now_us() + (int64_t)(timeout_s * 1e6);
    for (;;) {
        if (find_once(name, exclude, path, len)) return 1;
        if (now_us() > end) return 0;
        sleep_ms(20);
    }
}

static int open_dev(const char *path, int flags) {
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0) die("%s: %s", path, strerror(errno));
    return fd;
}

static int cmd_find(int argc, char **argv) {
    if (argc < 1) die("usage: probe find NAME [-t SEC] [-x DEV] [-i]");
    double t = 10; const char *x = NULL; int with_num = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) t = atof(argv[++i]);
        else if (!strcmp(argv[i], "-i")) with_num = 1;
        else if (!strcmp(argv[i], "-x") && i + 1 < argc) x = argv[++i];
        else die("find: unknown option %s", argv[i]);
    }
    char path[300];
    if (!find_dev(argv[0], x, t, path, sizeof path)) {
        fprintf(stderr, "probe: no input device named \"%s\" after %.1f s\n", argv[0], t);
        return 1;
    }
    if (with_num) printf("%s input%d\n", path, find_num); else puts(path);
    return 0;
}

static int cmd_list(void) {
    DIR *d = opendir("/sys/class/input");
    if (!d) die("/sys/class/input: %s", strerror(errno));
    struct dirent *e; char n[256];
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "event", 5) && !sys_name(e->d_name, n, sizeof n))
            printf("/dev/input/%s\t%s\n", e->d_name, n);
    closedir(d); return 0;
}

static int cmd_bits(int argc, char **argv, int leds) {
    if (argc < 1) die("usage: probe %s DEV", leds ? "leds" : "keystate");
    int fd = open_dev(argv[0], O_RDONLY);
    unsigned long bits[NLONGS(KEY_CNT)] = {0};
    int max = leds ? LED_MAX : KEY_MAX;
    if (ioctl(fd, leds ? EVIOCGLED(sizeof bits) : EVIOCGKEY(sizeof bits), bits) < 0)
        die("%s: %s", argv[0], strerror(errno));
    printf("%s:", leds ? "leds" : "held");
    int any = 0;
    for (int c = 0; c <= max; c++) if (TEST_BIT(c, bits)) { printf(" %d", c); any = 1; }
    puts(any ? "" : " none");
    close(fd); return 0;
}

static int cmd_grabbed(int argc, char **argv) {
    if (argc < 1) die("usage: probe grabbed DEV [-t SEC] [-r]");
    double t = 10; int want_released = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) t = atof(argv[++i]);
        else if (!strcmp(argv[i], "-r")) want_released = 1;
        else die("grabbed: unknown option %s", argv[i]);
    }
    int64_t end = now_us() + (int64_t)(t * 1e6);
    int grabbed;
    for (;;) {
        int fd = open_dev(argv[0], O_RDONLY);
        grabbed = ioctl(fd, EVIOCGRAB, 1) < 0 && errno == EBUSY;
        if (!grabbed) ioctl(fd, EVIOCGRAB, 0);
        close(fd);
        if (grabbed != want_released || now_us() > end) break;
        sleep_ms(100);
    }
    printf("%s %s\n", argv[0], grabbed ? "grabbed" : "not grabbed");
    return grabbed != want_released ? 0 : 1;
}

// ---- the uinput source keyboard ----
struct src_opts { int rep, bus, vendor, product, log, rt; };
static char src_path[300];

static void emit(int fd, int type, int code, int value) {
    struct input_event ev = { .type = (unsigned short)type, .code = (unsigned short)code, .value = value };
    if (write(fd, &ev, sizeof ev) != sizeof ev) die("uinput write: %s", strerror(errno));
}
// a key event and its SYN_REPORT in one write: a reader never sees one without the other
static int64_t emit_key(int fd, int code, int value) {
    struct input_event ev[2] = {
        { .type = EV_KEY, .code = (unsigned short)code, .value = value },
        { .type = EV_SYN, .code = SYN_REPORT, .value = 0 } };
    int64_t t = now_us();
    if (write(fd, ev, sizeof ev) != sizeof ev) die("uinput write: %s", strerror(errno));
    return t;
}

static int src_create(const char *name, const struct src_opts *o) {
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) die("/dev/uinput: %s (modprobe -a evdev uinput?)", strerror(errno));
    ioctl(fd, UI_SET_EVBIT, EV_SYN);
    ioctl(fd, UI_SET_EVBIT, EV_KEY);
    for (int c = KEY_ESC; c <= KEY_MICMUTE; c++) ioctl(fd, UI_SET_KEYBIT, c);
    ioctl(fd, UI_SET_EVBIT, EV_LED);
    ioctl(fd, UI_SET_LEDBIT, LED_NUML); ioctl(fd, UI_SET_LEDBIT, LED_CAPSL); ioctl(fd, UI_SET_LEDBIT, LED_SCROLLL);
    if (o->rep) ioctl(fd, UI_SET_EVBIT, EV_REP);
    struct uinput_setup us = {0};
    us.id.bustype = (unsigned short)o->bus; us.id.vendor = (unsigned short)o->vendor;
    us.id.product = (unsigned short)o->product; us.id.version = 1;
    snprintf(us.name, sizeof us.name, "%s", name);
    if (ioctl(fd, UI_DEV_SETUP, &us) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) die("uinput create: %s", strerror(errno));
    // find our event node: /sys/devices/virtual/input/inputN/eventM, then wait for devtmpfs
    char sys[64] = "";
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sys), sys) < 0) die("UI_GET_SYSNAME: %s", strerror(errno));
    char dir[128]; snprintf(dir, sizeof dir, "/sys/devices/virtual/input/%s", sys);
    src_path[0] = 0;
    for (int64_t end = now_us() + 5000000; now_us() < end && !src_path[0]; sleep_ms(10)) {
        DIR *d = opendir(dir); struct dirent *e;
        while (d && (e = readdir(d)))
            if (!strncmp(e->d_name, "event", 5)) {
                char p[300]; snprintf(p, sizeof p, "/dev/input/%s", e->d_name);
                if (access(p, F_OK) == 0) snprintf(src_path, sizeof src_path, "%s", p);
            }
        if (d) closedir(d);
    }
    if (!src_path[0]) die("uinput device %s has no event node (is evdev loaded?)", sys);
    return fd;
}

static const int letters[26] = { KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I,
    KEY_J, KEY_K, KEY_L, KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T, KEY_U, KEY_V,
    KEY_W, KEY_X, KEY_Y, KEY_Z };
// event i of "flood N": a down, a up, b down, b up, ... z up, a down ...
static void flood_event(long i, int *code, int *value) { *code = letters[(i / 2) % 26]; *value = !(i & 1); }

static int parse_src_opts(int argc, char **argv, int first, struct src_opts *o) {
    *o = (struct src_opts){ .bus = BUS_USB, .vendor = 0x4b48, .product = 0x0001 };
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "-l")) o->log = 1;
        else if (!strcmp(argv[i], "--rep")) o->rep = 1;
        else if (!strcmp(argv[i], "--rt")) o->rt = 1;
        else if (!strcmp(argv[i], "--bus") && i + 1 < argc) {
            const char *b = argv[++i];
            o->bus = !strcmp(b, "usb") ? BUS_USB : !strcmp(b, "virtual") ? BUS_VIRTUAL
                   : !strcmp(b, "bluetooth") ? BUS_BLUETOOTH : !strcmp(b, "i8042") ? BUS_I8042 : -1;
            if (o->bus < 0) die("unknown bus %s", b);
        } else if (!strcmp(argv[i], "--id") && i + 1 < argc) {
            if (sscanf(argv[++i], "%x:%x", &o->vendor, &o->product) != 2) die("--id wants VENDOR:PRODUCT in hex");
        } else die("unknown option %s", argv[i]);
    }
    return 0;
}

static int cmd_source(int argc, char **argv) {
    if (argc < 1) die("usage: probe source NAME [-l] [--rep] [--rt] [--bus B] [--id V:P]");
    struct src_opts o; parse_src_opts(argc, argv, 1, &o);
    if (o.rt && sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 10 }) < 0)
        die("--rt: SCHED_FIFO: %s", strerror(errno));
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    int fd = src_create(argv[0], &o);
    printf("ready %s\n", src_path);
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        char cmd[32] = "", a[256] = "", b[64] = "", c[64] = "";
        int n = sscanf(line, "%31s %255s %63s %63s", cmd, a, b, c);
        if (n <= 0 || cmd[0] == '#') continue;
        if (!strcmp(cmd, "quit")) break;
        if (!strcmp(cmd, "echo")) { const char *t = line + strspn(line, " \t") + 4; puts(t + strspn(t, " \t")); continue; }
        if (!strcmp(cmd, "t") && n >= 2) {
            // An overslept wait changes what the keys mean (a double tap, a hold): said, so that a
            // check failing on it shows the cause
            int64_t start = now_us();
            sleep_ms(atof(a));
            int64_t over = now_us() - start - (int64_t)(atof(a) * 1000);
            if (over >= 20000) printf("late %s %lld\n", a, (long long)(over / 1000));
            continue;
        }
        if (!strcmp(cmd, "stamp") && n >= 2) { printf("%s %lld\n", a, (long long)now_us()); continue; }
        if (!strcmp(cmd, "create")) {
            if (fd >= 0) { fprintf(stderr, "probe: create: device exists\n"); continue; }
            fd = src_create(argv[0], &o); printf("ready %s\n", src_path); continue;
        }
        if (fd < 0) { fprintf(stderr, "probe: %s: no device (destroyed)\n", cmd); continue; }
        if (!strcmp(cmd, "destroy")) { ioctl(fd, UI_DEV_DESTROY); close(fd); fd = -1; puts("destroyed"); continue; }
        if ((!strcmp(cmd, "d") || !strcmp(cmd, "u") || !strcmp(cmd, "r")) && n >= 2) {
            int code = parse_code(a);
            if (code < 0) continue;
            int value = cmd[0] == 'd' ? 1 : cmd[0] == 'u' ? 0 : 2;
            int64_t t = emit_key(fd, code, value);
            if (o.log) printf("sent %lld.%06lld %d %d\n", (long long)(t / 1000000), (long long)(t % 1000000), code, value);
            continue;
        }
        if (!strcmp(cmd, "flood") && n >= 2) {
            long cnt = atol(a); int code, value;
            for (long i = 0; i < cnt; i++) { flood_event(i, &code, &value); emit_key(fd, code, value); }
            continue;
        }
        if (!strcmp(cmd, "raw") && n >= 4) { int rc = parse_code(b); if (rc >= 0) emit(fd, atoi(a), rc, atoi(c)); continue; }
        if (!strcmp(cmd, "syn")) { emit(fd, EV_SYN, SYN_REPORT, 0); continue; }
        fprintf(stderr, "probe: unknown command: %s\n", line);
    }
    if (fd >= 0) { ioctl(fd, UI_DEV_DESTROY); close(fd); }
    return 0;
}

// ---- recording ----
static void set_monotonic(int fd, const char *path) {
    int clk = CLOCK_MONOTONIC;
    if (ioctl(fd, EVIOCSCLOCKID, &clk) < 0) die("%s: EVIOCSCLOCKID: %s", path, strerror(errno));
}

static int cmd_record(int argc, char **argv) {
    if (argc < 1) die("usage: probe record DEV [-t SEC] [-n N] [-k CODE] [-i SEC] [-w SEC] [-a]");
    double t = 10, idle = 0, stall = 0; long max = -1; int all = 0, until = -1, seen = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) t = atof(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) idle = atof(argv[++i]);
        else if (!strcmp(argv[i], "-w") && i + 1 < argc) stall = atof(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) max = atol(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) until = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-a")) all = 1;
        else die("record: unknown option %s", argv[i]);
    }
    catch_signals();
    int fd = open_dev(argv[0], O_RDONLY | O_NONBLOCK);
    set_monotonic(fd, argv[0]);
    static char buf[1 << 16]; setvbuf(stdout, buf, _IOFBF, sizeof buf);   // flooding: don't write per line
    printf("# recording %s\n", argv[0]); fflush(stdout);
    sleep_ms(stall * 1000);
    int64_t end = now_us() + (int64_t)(t * 1e6), last_key = 0; long keys = 0;
    while (!stop_flag && !seen && (max < 0 || keys < max)) {
        int64_t left = end - now_us();
        if (idle > 0 && last_key > 0) {
            int64_t quiet = last_key + (int64_t)(idle * 1e6) - now_us();
            if (quiet < left) left = quiet;
        }
        if (left <= 0) break;
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, (int)(left / 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        struct input_event ev[64];
        ssize_t n = read(fd, ev, sizeof ev);
        if (n < 0) { if (errno == EAGAIN || errno == EINTR) continue; fprintf(stderr, "probe: %s: %s\n", argv[0], strerror(errno)); break; }
        for (size_t i = 0; i < (size_t)n / sizeof *ev && !seen && (max < 0 || keys < max); i++) {
            struct input_event *e = &ev[i];
            long s = (long)e->input_event_sec, us = (long)e->input_event_usec;
            if (all) printf("%ld.%06ld %d %d %d\n", s, us, e->type, e->code, e->value);
            else if (e->type == EV_SYN && e->code == SYN_DROPPED) printf("%ld.%06ld dropped\n", s, us);
            else if (e->type == EV_KEY) printf("%ld.%06ld %d %d\n", s, us, e->code, e->value);
            if (e->type == EV_KEY) { keys++; last_key = now_us(); }
            if (e->type == EV_KEY && e->code == until && e->value == 1) seen = 1;
        }
    }
    fflush(stdout); close(fd); return 0;
}

static int cmd_flood_verify(int argc, char **argv) {
    if (argc < 1) die("usage: probe flood-verify N [-s] < RECORD");
    long n = atol(argv[0]); int strict = argc > 1 && !strcmp(argv[1], "-s");
    long next = 0, got = 0, bad = 0, drops = 0, gaps = 0; char line[256], missing[256] = "";
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == '#') continue;
        if (strstr(line, "dropped")) { drops++; continue; }
        double ts; int code, value;
        if (sscanf(line, "%lf %d %d", &ts, &code, &value) != 3) continue;
        got++;
        // advance through the sent sequence until this event: a gap means lost events
        long j = next; int c, v;
        for (; j < n; j++) { flood_event(j, &c, &v); if (c == code && v == value) break; }
        if (j >= n) { bad++; continue; }     // not found ahead: out of order or unexpected
        if (j > next && gaps++ < 4)          // where the first gaps are, for a failure to say
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %ld-%ld (before %.6f)", next, j - 1, ts);
        next = j + 1;
    }
    if (next < n && gaps++ < 4) snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %ld-%ld (at the end)", next, n - 1);
    int ok = bad == 0 && (!strict || got == n);
    printf("flood: sent %ld received %ld out-of-order %ld syn-dropped %ld %s", n, got, bad, drops, ok ? "ok" : "FAIL");
    if (strict && got < n && missing[0]) printf("; missing events (index in the sequence sent):%s", missing);
    printf("\n");
    return ok ? 0 : 1;
}

// ---- latency ----
static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b; return (x > y) - (x < y);
}
// wait until an EV_KEY (code, value) arrives on fd; returns its kernel timestamp or -1.
// Other key events are counted in *extra; SYN_DROPPED in *drops.
static int64_t await_key(int fd, int code, int value, int timeout_ms, long *extra, long *drops) {
    int64_t end = now_us() + (int64_t)timeout_ms * 1000;
    for (;;) {
        int64_t left = end - now_us();
        if (left <= 0) return -1;
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, (int)(left / 1000) + 1) <= 0) continue;
        struct input_event e;
        while (read(fd, &e, sizeof e) == sizeof e) {    // one at a time: leave later events queued
            if (e.type == EV_SYN && e.code == SYN_DROPPED) (*drops)++;
            if (e.type != EV_KEY) continue;
            if (e.code == code && e.value == value) return ev_us(&e);
            (*extra)++;
        }
    }
}
// taps CODE on src until a tap comes through on dst (a re-emitter may grab the source only after
// its device exists): 1, or 0 after SEC
static int warm_up(int src, int dst, int code, double t, long *extra, long *drops) {
    for (int64_t end = now_us() + (int64_t)(t * 1e6); now_us() < end;) {
        emit_key(src, code, 1); emit_key(src, code, 0);
        if (await_key(dst, code, 0, 200, extra, drops) >= 0) return 1;
    }
    return 0;
}
// appends the n latencies to file (if any), then prints "LABEL: events ... p50 ... us"; sorts lat
static void report_latency(const char *label, int64_t *lat, long n, long lost, long extra, long drops, const char *file) {
    if (file) {
        FILE *f = fopen(file, "a");
        if (!f) die("%s: %s", file, strerror(errno));
        for (long i = 0; i < n; i++) fprintf(f, "%lld\n", (long long)lat[i]);
        fclose(f);
    }
    qsort(lat, (size_t)n, sizeof *lat, cmp64);
#define PCT(p) (n ? (long long)lat[(long)((n - 1) * (p))] : -1LL)
    printf("%s: events %ld lost %ld extra %ld syn-dropped %ld p50 %lld p90 %lld p99 %lld max %lld us\n",
           label, n, lost, extra, drops, PCT(0.50), PCT(0.90), PCT(0.99), n ? (long long)lat[n - 1] : -1LL);
#undef PCT
}
static void drain(int fd, int ms) {
    struct input_event e[64]; int64_t end = now_us() + ms * 1000;
    while (now_us() < end) { if (read(fd, e, sizeof e) <= 0) sleep_ms(2); }
}

static int cmd_latency(int argc, char **argv) {
    if (argc < 3) die("usage: probe latency SRC_NAME DST_NAME COUNT [-c CODE] [-g MS] [-t SEC]");
    long count = atol(argv[2]); int fixed = -1, presses = 0; double gap = 5, t = 30; const char *raw = NULL;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "-c") && i + 1 < argc) { fixed = parse_code(argv[++i]); if (fixed < 0) return 2; }
        else if (!strcmp(argv[i], "-p")) presses = 1;
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) raw = argv[++i];
        else if (!strcmp(argv[i], "-g") && i + 1 < argc) gap = atof(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) t = atof(argv[++i]);
        else die("latency: unknown option %s", argv[i]);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct src_opts o; parse_src_opts(0, NULL, 0, &o);     // defaults: a USB keyboard
    int src = src_create(argv[0], &o);
    char srcpath[300]; snprintf(srcpath, sizeof srcpath, "%s", src_path);
    printf("ready %s\n", srcpath);
    // the re-emitter (started by the caller once it sees "ready") grabs the source and creates DST
    char dst[300];
    if (!find_dev(argv[1], srcpath, t, dst, sizeof dst)) { printf("latency: no device \"%s\" after %.0f s\n", argv[1], t); return 1; }
    int fd = open_dev(dst, O_RDONLY | O_NONBLOCK);
    set_monotonic(fd, dst);
    printf("latency: %s -> %s\n", srcpath, dst);
    long extra = 0, drops = 0;
    if (!warm_up(src, fd, fixed >= 0 ? fixed : KEY_A, t, &extra, &drops)) { printf("latency: no events arrive on %s after %.0f s\n", dst, t); return 1; }
    drain(fd, 200);
    extra = drops = 0;
    int64_t *lat = calloc((size_t)count * 2, sizeof *lat); long n = 0, lost = 0;
    if (!lat) die("out of memory");
    int64_t next = now_us();
    for (long i = 0; i < count * 2; i++) {
        int code, value; flood_event(i, &code, &value);
        if (fixed >= 0) code = fixed;
        sleep_ms((next - now_us()) / 1000.0);
        int64_t t0 = emit_key(src, code, value);
        next = t0 + (int64_t)(gap * 1000);
        if (presses && value == 0) continue;
        int64_t t1 = await_key(fd, code, value, 2000, &extra, &drops);
        if (t1 < 0) lost++; else lat[n++] = t1 - t0;
    }
    ioctl(src, UI_DEV_DESTROY); close(src); close(fd);
    report_latency("latency", lat, n, lost, extra, drops, raw);
    free(lat);
    return lost ? 1 : 0;
}

// ---- latency, paths taking turns ----
struct mix_path {
    char src_name[128], dst_name[128], file[256], srcpath[300], dstpath[300];
    int code, src, dst;
    struct src_opts o;
    int64_t *lat; long n, lost, extra, drops;
};
static void parse_mix_path(const char *spec, struct mix_path *m) {
    char copy[800]; snprintf(copy, sizeof copy, "%s", spec);
    char *field[5] = {0}; int nf = 0;
    for (char *save = NULL, *f = strtok_r(copy, "|", &save); f && nf < 5; f = strtok_r(NULL, "|", &save)) field[nf++] = f;
    if (nf < 4) die("latency-mix: a path is SRC_NAME|DST_NAME|CODE|FILE[|VENDOR:PRODUCT], not \"%s\"", spec);
    memset(m, 0, sizeof *m);
    parse_src_opts(0, NULL, 0, &m->o);
    snprintf(m->src_name, sizeof m->src_name, "%s", field[0]);
    snprintf(m->dst_name, sizeof m->dst_name, "%s", field[1]);
    if ((m->code = parse_code(field[2])) < 0) exit(2);
    snprintf(m->file, sizeof m->file, "%s", field[3]);
    if (nf == 5 && sscanf(field[4], "%x:%x", &m->o.vendor, &m->o.product) != 2) die("latency-mix: ids are VENDOR:PRODUCT in hex");
}
static int cmd_latency_mix(int argc, char **argv) {
    if (argc < 2) die("usage: probe latency-mix COUNT [-g MS] [-t SEC] SRC|DST|CODE|FILE[|V:P]...");
    enum { MAX_PATHS = 8 };
    struct mix_path paths[MAX_PATHS]; int np = 0;
    long count = atol(argv[0]); double gap = 5, t = 30;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-g") && i + 1 < argc) gap = atof(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) t = atof(argv[++i]);
        else if (np == MAX_PATHS) die("latency-mix: at most %d paths", MAX_PATHS);
        else parse_mix_path(argv[i], &paths[np++]);
    }
    if (np == 0 || count <= 0) die("latency-mix: no paths or no taps");
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int k = 0; k < np; k++) {
        struct mix_path *m = &paths[k];
        m->src = src_create(m->src_name, &m->o);
        snprintf(m->srcpath, sizeof m->srcpath, "%s", src_path);
        printf("ready %s %s\n", m->srcpath, m->src_name);
    }
    // the re-emitters (started by the caller once they see "ready") grab the sources and create
    // the destinations; paths that come out of one device share one reader
    for (int k = 0; k < np; k++) {
        struct mix_path *m = &paths[k];
        if (!find_dev(m->dst_name, m->srcpath, t, m->dstpath, sizeof m->dstpath)) {
            printf("latency-mix: no device \"%s\" after %.0f s\n", m->dst_name, t); return 1;
        }
        m->dst = -1;
        for (int j = 0; j < k; j++) if (!strcmp(paths[j].dstpath, m->dstpath)) m->dst = paths[j].dst;
        if (m->dst < 0) { m->dst = open_dev(m->dstpath, O_RDONLY | O_NONBLOCK); set_monotonic(m->dst, m->dstpath); }
        printf("latency-mix: %s -> %s\n", m->srcpath, m->dstpath);
    }
    for (int k = 0; k < np; k++) {
        struct mix_path *m = &paths[k];
        if (!warm_up(m->src, m->dst, m->code, t, &m->extra, &m->drops)) { printf("latency-mix: no events arrive on %s after %.0f s\n", m->dstpath, t); return 1; }
    }
    for (int k = 0; k < np; k++) {
        drain(paths[k].dst, 200 / np + 1);
        paths[k].extra = paths[k].drops = 0;
        if (!(paths[k].lat = calloc((size_t)count, sizeof *paths[k].lat))) die("out of memory");
    }
    int64_t next = now_us();
    for (long i = 0; i < count; i++) {
        for (int k = 0; k < np; k++) {
            struct mix_path *m = &paths[k];
            sleep_ms((next - now_us()) / 1000.0);
            int64_t t0 = emit_key(m->src, m->code, 1);
            int64_t t1 = await_key(m->dst, m->code, 1, 2000, &m->extra, &m->drops);
            if (t1 < 0) m->lost++; else m->lat[m->n++] = t1 - t0;
            sleep_ms((t0 + (int64_t)(gap * 1000) - now_us()) / 1000.0);
            next = emit_key(m->src, m->code, 0) + (int64_t)(gap * 1000);
        }
    }
    long lost = 0;
    for (int k = 0; k < np; k++) {
        struct mix_path *m = &paths[k];
        ioctl(m->src, UI_DEV_DESTROY); close(m->src);
        char label[160]; snprintf(label, sizeof label, "latency %.127s", m->src_name);
        report_latency(label, m->lat, m->n, m->lost, m->extra, m->drops, m->file);
        lost += m->lost;
        free(m->lat);
    }
    return lost ? 1 : 0;
}

// ---- first key ----
static int cmd_first_key(int argc, char **argv) {
    const char *usage = "usage: probe first-key SRC_NAME DST_NAME CODE [-t SEC] [-o LOG] [-f PRIO] [-F PRIO] -- CMD ARG...";
    if (argc < 5) die("%s", usage);
    int code = parse_code(argv[2]); if (code < 0) return 2;
    double t = 20; const char *log = "/dev/null"; int cmd = -1, fifo = 0, own_fifo = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) t = atof(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) log = argv[++i];
        else if (!strcmp(argv[i], "-f") && i + 1 < argc) fifo = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-F") && i + 1 < argc) own_fifo = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--") && i + 1 < argc) { cmd = i + 1; break; }
        else die("%s", usage);
    }
    if (cmd < 0) die("%s", usage);
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sched_param own = { .sched_priority = own_fifo };
    if (own_fifo > 0 && sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &own) < 0)
        die("first-key: SCHED_FIFO %d: %s", own_fifo, strerror(errno));
    struct src_opts o; parse_src_opts(0, NULL, 0, &o);
    int src = src_create(argv[0], &o);
    char srcpath[300]; snprintf(srcpath, sizeof srcpath, "%s", src_path);
    int64_t t0 = now_us();
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        int out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (out >= 0) { dup2(out, 1); dup2(out, 2); }
        setpgid(0, 0);
        for (int i = cmd; i < argc; i++) if (!strcmp(argv[i], "{SRC}")) argv[i] = srcpath;
        struct sched_param sp = { .sched_priority = fifo };
        if (fifo > 0 && sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
            fprintf(stderr, "probe first-key: SCHED_FIFO %d: %s\n", fifo, strerror(errno));
            _exit(126);
        }
        execvp(argv[cmd], argv + cmd);
        _exit(127);
    }
    int fd = -1; int64_t device = -1, key = -1, end = t0 + (int64_t)(t * 1e6);
    char dst[300];
    while (key < 0 && now_us() < end) {
        if (fd < 0 && find_once(argv[1], srcpath, dst, sizeof dst)) {
            fd = open(dst, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0) { set_monotonic(fd, dst); device = now_us() - t0; }
        }
        emit_key(src, code, 1); emit_key(src, code, 0);
        if (fd >= 0) {
            struct pollfd p = { fd, POLLIN, 0 };
            poll(&p, 1, 10);
            struct input_event e;
            while (key < 0 && read(fd, &e, sizeof e) == sizeof e)
                if (e.type == EV_KEY && e.code == code && e.value == 1) key = ev_us(&e) - t0;
        } else {
            sleep_ms(10);
        }
    }
    if (fd >= 0) close(fd);
    ioctl(src, UI_DEV_DESTROY); close(src);
    if (key < 0) { printf("first-key: pid %d: no key on \"%s\" after %.0f s\n", pid, argv[1], t); return 1; }
    printf("first-key: pid %d exec->device %lld us exec->key %lld us\n", pid, (long long)device, (long long)key);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: probe find|list|keystate|leds|grabbed|source|record|flood-verify|latency|latency-mix|first-key ... (see probe.c)\n");
        return 2;
    }
    const char *c = argv[1]; int n = argc - 2; char **a = argv + 2;
    if (!strcmp(c, "find")) return cmd_find(n, a);
    if (!strcmp(c, "list")) return cmd_list();
    if (!strcmp(c, "keystate")) return cmd_bits(n, a, 0);
    if (!strcmp(c, "leds")) return cmd_bits(n, a, 1);
    if (!strcmp(c, "grabbed")) return cmd_grabbed(n, a);
    if (!strcmp(c, "source")) return cmd_source(n, a);
    if (!strcmp(c, "record")) return cmd_record(n, a);
    if (!strcmp(c, "flood-verify")) return cmd_flood_verify(n, a);
    if (!strcmp(c, "latency")) return cmd_latency(n, a);
    if (!strcmp(c, "latency-mix")) return cmd_latency_mix(n, a);
    if (!strcmp(c, "first-key")) return cmd_first_key(n, a);
    fprintf(stderr, "probe: unknown command %s\n", c);
    return 2;
}
