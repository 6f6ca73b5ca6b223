#include "CSessionX11.h"
#include <X11/XKBlib.h>
#include <X11/Xlib-xcb.h>
#include <xcb/xcbext.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/XInput2.h>
#include <X11/extensions/XTest.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xkbcommon/xkbcommon-x11.h>

// A desktop client reads a key's keysym when it handles the event, which may be seconds later
// (GTK refetches the keymap after every change, slowly under load): a keycode is given another
// character only after this long, and characters stay on their keycodes until then (they are
// keycodes no keyboard has). khx_restore gives them all back when the companion stops.
static const int64_t REUSE_AFTER_NS = 3000 * 1000000LL;

#define DPY(s) ((Display *)(s)->display)

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static KeySym keysym_for(uint32_t cp) {
    if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;   // Latin-1 keysyms are their code points
    return 0x01000000 | cp;
}

// Keycodes with no keysym at all, highest first (the low ones are real keys), and those still
// holding the character this process put there; a character the desktop took away (setxkbmap
// replaces the whole keymap) is forgotten.
static void find_spares(struct khx_state *s) {
    int min_kc, max_kc;
    XDisplayKeycodes(DPY(s), &min_kc, &max_kc);
    KeySym *map = XGetKeyboardMapping(DPY(s), (KeyCode)min_kc, max_kc - min_kc + 1, &s->keysyms_per_keycode);
    if (!map) return;
    struct khx_spare previous[KHX_MAX_SPARE];
    int previous_count = s->spare_count;
    memcpy(previous, s->spares, sizeof previous);
    s->spare_count = 0;
    for (int kc = max_kc; kc >= min_kc && s->spare_count < KHX_MAX_SPARE; kc--) {
        KeySym *syms = map + (size_t)(kc - min_kc) * s->keysyms_per_keycode;
        struct khx_spare entry = { .keycode = (uint8_t)kc };
        for (int i = 0; i < previous_count; i++) {
            if (previous[i].keycode == kc && previous[i].codepoint != 0 && syms[0] == keysym_for(previous[i].codepoint)) {
                entry = previous[i];
            }
        }
        int empty = 1, same = s->keysyms_per_keycode >= 4 && syms[0] != NoSymbol;
        for (int i = 0; i < s->keysyms_per_keycode; i++) {
            if (syms[i] != NoSymbol) empty = 0;
            if (syms[i] != syms[0]) same = 0;
        }
        // Every level the same keysym is how map_keycode leaves a key: one a companion that was
        // killed (no restore) left behind. Free for use again.
        if (empty || same || entry.codepoint != 0) s->spares[s->spare_count++] = entry;
    }
    XFree(map);
}

static int is_spare(const struct khx_state *s, int keycode) {
    for (int i = 0; i < s->spare_count; i++) if (s->spares[i].keycode == keycode) return 1;
    return 0;
}

static uint64_t fingerprint(struct khx_state *s) {
    int min_kc, max_kc, per;
    XDisplayKeycodes(DPY(s), &min_kc, &max_kc);
    KeySym *map = XGetKeyboardMapping(DPY(s), (KeyCode)min_kc, max_kc - min_kc + 1, &per);
    if (!map) return 0;
    uint64_t hash = 1469598103934665603ULL;   // FNV-1a
    for (int kc = min_kc; kc <= max_kc; kc++) {
        if (is_spare(s, kc)) continue;
        for (int i = 0; i < per; i++) {
            hash ^= (uint64_t)map[(size_t)(kc - min_kc) * per + i] ^ ((uint64_t)kc << 32);
            hash *= 1099511628211ULL;
        }
    }
    XFree(map);
    return hash;
}

// A window may be gone before the FocusChangeMask selected on it arrives: that BadWindow is
// expected. Any other error is logged and the companion goes on (Xlib's default handler would
// end the process for an error in a request that merely failed).
static int log_errors(Display *d, XErrorEvent *e) {
    if (e->error_code == BadWindow) return 0;
    char text[160];
    XGetErrorText(d, e->error_code, text, sizeof text);
    fprintf(stderr, "keyhold-session: X error: %s (request %d.%d)\n", text, e->request_code, e->minor_code);
    return 0;
}

// Focus events come to the window that gets or loses the focus (or its ancestors): every
// top-level window is selected, and every new one as it is created (root's CreateNotify).
static void follow_focus(struct khx_state *s) {
    Window root = DefaultRootWindow(DPY(s)), parent, *children = NULL;
    unsigned count = 0;
    XSetErrorHandler(log_errors);
    XSelectInput(DPY(s), root, SubstructureNotifyMask);
    if (XQueryTree(DPY(s), root, &root, &parent, &children, &count)) {
        for (unsigned i = 0; i < count; i++) XSelectInput(DPY(s), children[i], FocusChangeMask);
        if (children) XFree(children);
    }
}

int khx_open(struct khx_state *s) {
    s->xi_opcode = -1;
    s->followed_device = -1;
    s->display = XOpenDisplay(NULL);
    if (!s->display) return -1;
    int event, error, major, minor;
    if (!XTestQueryExtension(DPY(s), &event, &error, &major, &minor)) { khx_close(s); return -2; }
    int opcode;
    major = XkbMajorVersion; minor = XkbMinorVersion;
    if (!XkbQueryExtension(DPY(s), &opcode, &s->xkb_event_base, &error, &major, &minor)) { khx_close(s); return -3; }
    unsigned int mask = XkbNewKeyboardNotifyMask | XkbMapNotifyMask;
    XkbSelectEvents(DPY(s), XkbUseCoreKbd, mask, mask);
    find_spares(s);
    if (s->spare_count == 0) { khx_close(s); return -4; }
    s->keymap_fingerprint = fingerprint(s);
    follow_focus(s);
    XSync(DPY(s), False);
    return ConnectionNumber(DPY(s));
}

int khx_spare_count(const struct khx_state *s) { return s->spare_count; }

static void map_keycode(struct khx_state *s, KeyCode keycode, KeySym sym) {
    KeySym syms[8];
    int n = s->keysyms_per_keycode < 8 ? s->keysyms_per_keycode : 8;
    for (int i = 0; i < n; i++) syms[i] = sym;   // every level: a held Shift changes nothing
    XChangeKeyboardMapping(DPY(s), keycode, n, syms, 1);
}

int64_t khx_type(struct khx_state *s, uint32_t cp) {
    if (!s->display || s->spare_count == 0 || cp == 0 || cp > 0x10ffff) return -1;
    struct khx_spare *slot = NULL;
    for (int i = 0; i < s->spare_count; i++) if (s->spares[i].codepoint == cp) { slot = &s->spares[i]; break; }
    if (!slot) {
        // The empty one, else the least recently used, once it has rested long enough.
        slot = &s->spares[0];
        for (int i = 0; i < s->spare_count; i++) {
            if (s->spares[i].codepoint == 0) { slot = &s->spares[i]; break; }
            if (s->spares[i].last_used < slot->last_used) slot = &s->spares[i];
        }
        if (slot->codepoint != 0) {
            int64_t wait = slot->last_used + REUSE_AFTER_NS - now_ns();
            if (wait > 0) return wait;
        }
        map_keycode(s, slot->keycode, keysym_for(cp));
        slot->codepoint = cp;
    }
    XTestFakeKeyEvent(DPY(s), slot->keycode, True, CurrentTime);
    XTestFakeKeyEvent(DPY(s), slot->keycode, False, CurrentTime);
    slot->last_used = now_ns();
    return 0;
}

void khx_flush(struct khx_state *s) { if (s->display) XFlush(DPY(s)); }

// GetInputFocus through XCB, on Xlib's connection (Xlib's queued requests flushed first, so the
// answer comes after them): XCB keeps the answer for xcb_poll_for_reply, Xlib's reads pass it by.
void khx_sync_start(struct khx_state *s) {
    if (!s->display) return;
    XFlush(DPY(s));
    xcb_connection_t *xcb = XGetXCBConnection(DPY(s));
    if (s->sync_sequence && !s->sync_answered) xcb_discard_reply(xcb, s->sync_sequence);
    s->sync_sequence = xcb_get_input_focus(xcb).sequence;
    s->sync_answered = 0;
    xcb_flush(xcb);
}

int khx_sync_done(struct khx_state *s) {
    if (!s->display) return -1;
    if (!s->sync_sequence || s->sync_answered) return 1;
    xcb_connection_t *xcb = XGetXCBConnection(DPY(s));
    void *reply = NULL;
    xcb_generic_error_t *error = NULL;
    if (!xcb_poll_for_reply(xcb, s->sync_sequence, &reply, &error)) return xcb_connection_has_error(xcb) ? -1 : 0;
    free(reply);
    free(error);
    s->sync_answered = 1;
    return 1;
}

int khx_restore(struct khx_state *s) {
    if (!s->display) return 0;
    int restored = 0;
    for (int i = 0; i < s->spare_count; i++) {
        if (s->spares[i].codepoint == 0) continue;
        map_keycode(s, s->spares[i].keycode, NoSymbol);
        s->spares[i].codepoint = 0;
        restored++;
    }
    if (restored) XSync(DPY(s), False);
    return restored;
}

int khx_temporary_keycodes(const struct khx_state *s, uint8_t *keycodes, int capacity) {
    int n = 0;
    for (int i = 0; i < s->spare_count && n < capacity; i++) if (s->spares[i].codepoint != 0) keycodes[n++] = s->spares[i].keycode;
    return n;
}

int khx_follow_device(struct khx_state *s, const char *name) {
    if (!s->display) return -1;
    if (s->xi_opcode < 0) {
        int event, error, major = 2, minor = 2;
        if (!XQueryExtension(DPY(s), "XInputExtension", &s->xi_opcode, &event, &error)) { s->xi_opcode = -1; return -1; }
        if (XIQueryVersion(DPY(s), &major, &minor) != Success || major < 2) { s->xi_opcode = -1; return -1; }
        // Raw events are selected on the root window and come whichever window has the focus.
        unsigned char bits[XIMaskLen(XI_LASTEVENT)] = { 0 };
        XISetMask(bits, XI_RawKeyPress);
        XISetMask(bits, XI_RawKeyRelease);
        XISetMask(bits, XI_RawButtonPress);   // a click anywhere closes the picker
        XIEventMask mask = { .deviceid = XIAllDevices, .mask_len = sizeof bits, .mask = bits };
        XISelectEvents(DPY(s), DefaultRootWindow(DPY(s)), &mask, 1);
    }
    s->followed_device = -1;
    int count = 0;
    XIDeviceInfo *devices = XIQueryDevice(DPY(s), XIAllDevices, &count);
    for (int i = 0; i < count; i++) {
        if (devices[i].use == XISlaveKeyboard && devices[i].name && strcmp(devices[i].name, name) == 0) {
            s->followed_device = devices[i].deviceid;
            break;
        }
    }
    if (devices) XIFreeDeviceInfo(devices);
    XSync(DPY(s), False);
    khx_dispatch(s);      // what was delivered before now does not count
    s->transitions_seen = 0;
    return s->followed_device >= 0 ? 1 : 0;
}

uint64_t khx_transitions_seen(const struct khx_state *s) { return s->transitions_seen; }

int khx_take_clicks(struct khx_state *s) {
    int n = s->clicks;
    s->clicks = 0;
    return n;
}

int khx_take_focus_changes(struct khx_state *s) {
    int n = s->focus_changes;
    s->focus_changes = 0;
    return n;
}

void khx_reset_count(struct khx_state *s) { s->transitions_seen = 0; }

// Reads every event Xlib holds or the socket has; 1 when one may mean a new keymap.
static int read_events(struct khx_state *s) {
    int replaced = 0;
    while (s->display && XPending(DPY(s)) > 0) {
        XEvent event;
        XNextEvent(DPY(s), &event);
        if (event.type == GenericEvent && event.xcookie.extension == s->xi_opcode) {
            // Selected for all devices, each transition comes twice: from the device itself and
            // from the master keyboard it is attached to (same sourceid): the device's own count.
            if (XGetEventData(DPY(s), &event.xcookie)) {
                XIRawEvent *raw = event.xcookie.data;
                if ((event.xcookie.evtype == XI_RawKeyPress || event.xcookie.evtype == XI_RawKeyRelease)
                    && raw->deviceid == s->followed_device && s->followed_device >= 0
                    && !(raw->flags & XIKeyRepeat)) s->transitions_seen++;
                // Buttons 1-3 (4-7 are the wheel), once: from the device, not its master too.
                if (event.xcookie.evtype == XI_RawButtonPress && raw->deviceid == raw->sourceid && raw->detail >= 1 && raw->detail <= 3)
                    s->clicks++;
                XFreeEventData(DPY(s), &event.xcookie);
            }
        } else if (event.type == s->xkb_event_base) {
            // A keymap loaded (setxkbmap, a layout switcher), a key changed (this process's own
            // characters), or the keys coming from another device (the virtual keyboard, then
            // XTEST): which it was, the keysyms say.
            XkbEvent *xkb = (XkbEvent *)&event;
            if (xkb->any.xkb_type == XkbNewKeyboardNotify || xkb->any.xkb_type == XkbMapNotify) replaced = 1;
        } else if (event.type == CreateNotify) {
            if (event.xcreatewindow.parent == DefaultRootWindow(DPY(s))) XSelectInput(DPY(s), event.xcreatewindow.window, FocusChangeMask);
        } else if (event.type == FocusIn) {
            // Into another top-level (or a window inside it: "virtual"); not the focus moving
            // within one, and not a keyboard grab (a menu) starting or ending.
            int detail = event.xfocus.detail;
            if (event.xfocus.mode == NotifyNormal && (detail == NotifyNonlinear || detail == NotifyNonlinearVirtual)) s->focus_changes++;
        } else if (event.type == MappingNotify) {
            XRefreshKeyboardMapping(&event.xmapping);
            replaced = 1;
        }
    }
    return replaced;
}

int khx_dispatch(struct khx_state *s) {
    if (!s->display) return -1;
    if (!read_events(s)) return 0;
    // The query may bring more events into Xlib's queue: read them too, so nothing waits there
    // unseen by poll(), and look again if they may mean a change (at most three times).
    uint64_t now;
    int rounds = 0;
    do { now = fingerprint(s); } while (read_events(s) && ++rounds < 3);
    if (now == s->keymap_fingerprint) return 0;
    // The desktop replaced the keymap: which keycodes are free, and which still hold this
    // process's characters, is read again.
    find_spares(s);
    s->keymap_fingerprint = fingerprint(s);
    read_events(s);
    return 1;
}

char *khx_keymap_text(struct khx_state *s) {
    if (!s->display) return NULL;
    xcb_connection_t *xcb = XGetXCBConnection(DPY(s));
    if (!xcb) return NULL;
    if (!xkb_x11_setup_xkb_extension(xcb, XKB_X11_MIN_MAJOR_XKB_VERSION, XKB_X11_MIN_MINOR_XKB_VERSION,
                                     XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, NULL, NULL, NULL, NULL)) return NULL;
    int32_t device = xkb_x11_get_core_keyboard_device_id(xcb);
    if (device < 0) return NULL;
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    if (!context) return NULL;
    struct xkb_keymap *keymap = xkb_x11_keymap_new_from_device(context, xcb, device, XKB_KEYMAP_COMPILE_NO_FLAGS);
    char *text = keymap ? xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
    if (keymap) xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    return text;
}

void khx_close(struct khx_state *s) {
    if (!s->display) return;
    khx_restore(s);
    XCloseDisplay(DPY(s));
    s->display = NULL;
    s->spare_count = 0;
}

// ---- the focused application: WM_CLASS, _NET_WM_PID, fullscreen

static int window_covers_screen(Display *dpy, Window w) {
    XWindowAttributes a;
    if (!XGetWindowAttributes(dpy, w, &a)) return 0;
    return a.width >= DisplayWidth(dpy, DefaultScreen(dpy)) && a.height >= DisplayHeight(dpy, DefaultScreen(dpy));
}

static int has_fullscreen_state(Display *dpy, Window w) {
    Atom state = XInternAtom(dpy, "_NET_WM_STATE", False), full = XInternAtom(dpy, "_NET_WM_STATE_FULLSCREEN", False);
    Atom type; int format; unsigned long count = 0, after; unsigned char *data = NULL;
    int found = 0;
    if (XGetWindowProperty(dpy, w, state, 0, 64, False, XA_ATOM, &type, &format, &count, &after, &data) == Success && data) {
        for (unsigned long i = 0; i < count; i++) if (((Atom *)data)[i] == full) found = 1;
    }
    if (data) XFree(data);
    return found;
}

static int window_pid(Display *dpy, Window w) {
    Atom pid_atom = XInternAtom(dpy, "_NET_WM_PID", False);
    Atom type; int format; unsigned long count = 0, after; unsigned char *data = NULL;
    int pid = 0;
    if (XGetWindowProperty(dpy, w, pid_atom, 0, 1, False, XA_CARDINAL, &type, &format, &count, &after, &data) == Success
        && data && count == 1 && format == 32) pid = (int)*(unsigned long *)data;
    if (data) XFree(data);
    return pid;
}

int khx_focus(struct khx_state *s, char *instance, int instance_size, char *klass, int klass_size, int *pid, int *fullscreen) {
    Display *dpy = DPY(s);
    if (!dpy) return 0;
    Window w, root = DefaultRootWindow(dpy), parent, *children;
    int revert;
    unsigned count;
    XGetInputFocus(dpy, &w, &revert);
    if (w == None || w == PointerRoot || w == root) return 0;
    // The window with WM_CLASS is the application's (a reparenting window manager's frame is
    // above it, a toolkit's focus proxy below it); the top-level is the one root holds.
    Window client = None, top = w;
    for (int depth = 0; depth < 32 && top != root; depth++) {
        XClassHint hint = { NULL, NULL };
        if (client == None && XGetClassHint(dpy, top, &hint)) {
            client = top;
            snprintf(instance, (size_t)instance_size, "%s", hint.res_name ? hint.res_name : "");
            snprintf(klass, (size_t)klass_size, "%s", hint.res_class ? hint.res_class : "");
        }
        if (hint.res_name) XFree(hint.res_name);
        if (hint.res_class) XFree(hint.res_class);
        children = NULL;
        if (!XQueryTree(dpy, top, &root, &parent, &children, &count)) return 0;
        if (children) XFree(children);
        if (parent == root) break;
        top = parent;
    }
    if (client == None) return 0;
    *pid = window_pid(dpy, client);
    *fullscreen = has_fullscreen_state(dpy, client) || window_covers_screen(dpy, top);
    return 1;
}
