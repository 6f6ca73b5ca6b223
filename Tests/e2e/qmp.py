#!/usr/bin/python3
"""QMP client (stdlib only) that drives the guest's PS/2 keyboard from the host.

QEMU's PS/2 keyboard shows up in the guest as "AT Translated Set 2 keyboard": a real
physical keyboard to the guest kernel (no autorepeat). Each `input-send-event` is one key
transition, sent when we send it, so holds and gaps have real (host) timing.

Run with /usr/bin/python3: `python3` on PATH may be a pyenv shim without Debian's modules.

  qmp.py SOCK run CMD...      run commands (from the arguments, or stdin if none)
  qmp.py SOCK serve DIR       serve the guest: run each request file DIR/req.N (written by
                              lib.sh's host_keys), answer in DIR/done.N, until QEMU exits

Commands, one per argument or line ("d a; t 50; u a" also works):
  d KEY | u KEY     key down / up           tap KEY     down then up
  t MS              sleep MS milliseconds    type TEXT   tap the keys for TEXT (US layout)
  shot FILE         the guest's screen (its VGA framebuffer, read by QEMU, not asked of the
                    compositor) as a PNG at FILE, a path the host and the guest share
  pointer-away      the mouse pointer moved into the screen's top left corner
  KEY: a QEMU qcode (a, shift, ctrl, alt, ret, spc, kp_2, caps_lock, ...), a Linux key name
  for common keys (KEY_A, KEY_1, leftshift, capslock), or a Linux key code number (30 = a;
  so digit keys are KEY_1 or qcode names via `type 1`).
"""
import json
import os
import re
import select
import socket
import sys
import time

# Linux key codes 1..83 equal the XT scancodes that QEMU's "number" key type expects;
# above that the numbering differs, so the common extended keys are mapped to qcodes.
LINUX_NAMES = {
    'esc': 1, 'minus': 12, 'equal': 13, 'backspace': 14, 'tab': 15, 'leftbrace': 26, 'rightbrace': 27,
    'enter': 28, 'leftctrl': 29, 'semicolon': 39, 'apostrophe': 40, 'grave': 41, 'leftshift': 42,
    'backslash': 43, 'comma': 51, 'dot': 52, 'slash': 53, 'rightshift': 54, 'kpasterisk': 55,
    'leftalt': 56, 'space': 57, 'capslock': 58, 'numlock': 69, 'scrolllock': 70,
    'kp7': 71, 'kp8': 72, 'kp9': 73, 'kpminus': 74, 'kp4': 75, 'kp5': 76, 'kp6': 77, 'kpplus': 78,
    'kp1': 79, 'kp2': 80, 'kp3': 81, 'kp0': 82, 'kpdot': 83,
}
for _i, _c in enumerate('qwertyuiop'): LINUX_NAMES[_c] = 16 + _i
for _i, _c in enumerate('asdfghjkl'): LINUX_NAMES[_c] = 30 + _i
for _i, _c in enumerate('zxcvbnm'): LINUX_NAMES[_c] = 44 + _i
for _i in range(1, 10): LINUX_NAMES[str(_i)] = 1 + _i
LINUX_NAMES['0'] = 11
for _i in range(1, 11): LINUX_NAMES['f%d' % _i] = 58 + _i
EXTENDED = {  # Linux code -> qcode
    87: 'f11', 88: 'f12', 96: 'kp_enter', 97: 'ctrl_r', 98: 'kp_divide', 99: 'print', 100: 'alt_r',
    102: 'home', 103: 'up', 104: 'pgup', 105: 'left', 106: 'right', 107: 'end', 108: 'down',
    109: 'pgdn', 110: 'insert', 111: 'delete', 119: 'pause', 125: 'meta_l', 126: 'meta_r', 127: 'menu',
}
EXTENDED_NAMES = {'f11': 87, 'f12': 88, 'kpenter': 96, 'rightctrl': 97, 'kpslash': 98, 'sysrq': 99,
                  'rightalt': 100, 'home': 102, 'up': 103, 'pageup': 104, 'left': 105, 'right': 106,
                  'end': 107, 'down': 108, 'pagedown': 109, 'insert': 110, 'delete': 111, 'pause': 119,
                  'leftmeta': 125, 'rightmeta': 126, 'compose': 127}
# Linux names that are not also qcodes (qcodes win for shared names such as a, esc, tab)
LINUX_ONLY = {n for n in list(LINUX_NAMES) + list(EXTENDED_NAMES)
              if n not in ('esc', 'minus', 'equal', 'backspace', 'tab', 'semicolon', 'apostrophe',
                           'backslash', 'comma', 'dot', 'slash', 'home', 'up', 'left', 'right', 'end',
                           'down', 'insert', 'delete', 'pause', 'menu', 'f11', 'f12')
              and not (len(n) == 1 or re.fullmatch(r'f\d+', n))}
# characters for `type` (US layout): char -> (qcode, shifted)
CHARS = {' ': ('spc', False), '\n': ('ret', False), '\t': ('tab', False)}
for _c in 'abcdefghijklmnopqrstuvwxyz0123456789':
    CHARS[_c] = (_c, False)
for _c in 'abcdefghijklmnopqrstuvwxyz':
    CHARS[_c.upper()] = (_c, True)
for _plain, _shifted, _q in [('-', '_', 'minus'), ('=', '+', 'equal'), ('[', '{', 'bracket_left'),
                             (']', '}', 'bracket_right'), (';', ':', 'semicolon'), ("'", '"', 'apostrophe'),
                             ('`', '~', 'grave_accent'), ('\\', '|', 'backslash'), (',', '<', 'comma'),
                             ('.', '>', 'dot'), ('/', '?', 'slash')]:
    CHARS[_plain] = (_q, False)
    CHARS[_shifted] = (_q, True)
for _c, _s in zip('1234567890', '!@#$%^&*()'):
    CHARS[_s] = (_c, True)


def key_value(key):
    """QMP KeyValue for KEY: a bare number is a Linux key code; KEY_X or a Linux-only name
    (leftshift, enter, ...) is a Linux key name; anything else is passed on as a qcode."""
    k = key.strip().lower()
    if k.isdigit():
        code = int(k)
    elif k.startswith('key_') or k in LINUX_ONLY:
        k = k[4:] if k.startswith('key_') else k
        code = LINUX_NAMES.get(k, EXTENDED_NAMES.get(k))
        if code is None:
            raise ValueError('unknown key %s' % key)
    else:
        return {'type': 'qcode', 'data': k}
    if 1 <= code <= 83:
        return {'type': 'number', 'data': code}
    if code in EXTENDED:
        return {'type': 'qcode', 'data': EXTENDED[code]}
    raise ValueError('no PS/2 mapping for Linux key code %d' % code)


class QMP:
    def __init__(self, path, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        # unbuffered: select() on the socket must see everything not yet read
        self.f = self.s.makefile('rwb', buffering=0)
        self._line()                                       # greeting
        self.cmd('qmp_capabilities')

    def _line(self):
        line = self.f.readline()
        if not line:
            raise EOFError('QEMU closed the QMP socket')
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.f.write(json.dumps(msg).encode() + b'\n')
        while True:
            r = self._line()
            if 'event' in r:
                continue                                   # async events (e.g. SHUTDOWN)
            if 'error' in r:
                raise RuntimeError(r['error'])
            return r.get('return')

    def key(self, key, down):
        """one key transition, delivered now"""
        return self.cmd('input-send-event',
                        events=[{'type': 'key', 'data': {'down': down, 'key': key_value(key)}}])

    def closed(self, timeout):
        """wait up to timeout s; True once QEMU has closed the socket (it exited)"""
        while select.select([self.s], [], [], timeout)[0]:
            if not self.f.readline():
                return True
            timeout = 0
        return False


def split_commands(lines):
    for line in lines:
        for part in line.split(';'):
            part = part.strip()
            if part and not part.startswith('#'):
                yield part


def run_commands(q, commands):
    """run d/u/t/tap/type commands; timing is relative to a running deadline so that
    QMP round trips do not accumulate into the holds"""
    t = time.monotonic()
    for c in commands:
        op, _, arg = c.partition(' ')
        if op == 't':
            t += float(arg) / 1000
            delay = t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            continue
        t = time.monotonic()
        if op == 'd':
            q.key(arg.strip(), True)
        elif op == 'u':
            q.key(arg.strip(), False)
        elif op == 'tap':
            q.key(arg.strip(), True)
            q.key(arg.strip(), False)
        elif op == 'shot':
            q.cmd('screendump', filename=arg.strip(), format='png')
        elif op == 'pointer-away':
            # the pointer into the top left corner (relative moves, as the PS/2 mouse makes
            # them), where it covers nothing a screenshot reads
            for _ in range(8):
                q.cmd('input-send-event', events=[{'type': 'rel', 'data': {'axis': 'x', 'value': -400}},
                                                  {'type': 'rel', 'data': {'axis': 'y', 'value': -400}}])
        elif op == 'type':
            for ch in arg:
                if ch not in CHARS:
                    raise ValueError('cannot type %r' % ch)
                qc, shifted = CHARS[ch]
                if shifted:
                    q.key('shift', True)
                q.key(qc, True)
                q.key(qc, False)
                if shifted:
                    q.key('shift', False)
        else:
            raise ValueError('unknown command %r' % c)


def serve(q, d):
    """answer the guest's request files until QEMU exits. The guest writes req.N.tmp and
    renames it to req.N (atomic on the host side of 9p); we answer done.N the same way."""
    os.makedirs(d, exist_ok=True)
    while not q.closed(0.01):
        for name in sorted(os.listdir(d), key=lambda n: (len(n), n)):
            m = re.fullmatch(r'req\.(\d+)', name)
            if not m:
                continue
            path = os.path.join(d, name)
            with open(path) as f:
                cmds = list(split_commands(f))
            os.unlink(path)
            try:
                run_commands(q, cmds)
                answer = 'ok\n'
            except Exception as e:                         # report to the guest, keep serving
                answer = 'error: %s\n' % e
            done = os.path.join(d, 'done.' + m.group(1))
            with open(done + '.tmp', 'w') as f:
                f.write(answer)
            os.rename(done + '.tmp', done)


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ('run', 'serve'):
        sys.exit(__doc__)
    sock, mode = sys.argv[1], sys.argv[2]
    try:
        q = QMP(sock, timeout=float(os.environ.get('QMP_CONNECT_TIMEOUT', '60')))
    except OSError as e:
        sys.exit('qmp.py: cannot connect to %s: %s' % (sock, e))
    try:
        if mode == 'run':
            run_commands(q, split_commands(sys.argv[3:] or sys.stdin))
        else:
            if len(sys.argv) < 4:
                sys.exit(__doc__)
            serve(q, sys.argv[3])
    except EOFError:
        if mode == 'run':
            sys.exit('qmp.py: QEMU closed the QMP socket')
    except (RuntimeError, ValueError) as e:
        sys.exit('qmp.py: %s' % e)


if __name__ == '__main__':
    main()
