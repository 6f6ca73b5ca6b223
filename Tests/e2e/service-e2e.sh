#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2153   # eval'd check expressions in single quotes; REPO etc. come from the host
# service-e2e.sh - Keyhold installed as a real systemd service, in a QEMU guest booted with
# systemd as PID 1 (VM_SYSTEMD=1): systemd-udevd, journald and dbus run as on a real machine.
#
#   Tests/e2e/service-e2e.sh            # host: build keyhold (release) unless $KEYHOLD is set,
#                                       # vm.sh setup, build fake-logind, boot, print the results
#   Tests/e2e/service-e2e.sh --guest    # what runs inside the guest (needs the host side's env)
#
# Checks, each PASS/FAIL:
#   upgrade   an older install's layout (70-keyhold.rules, the user unit, group keyhold's ACL on a
#             keyboard) is removed by the install
#   install   `make install-files BINARY=$KEYHOLD`: keyhold user and group (sysusers), udev rules
#             (ACLs for user keyhold alone on keyboards, /dev/uinput and playback sound nodes; none
#             for a group), libinput quirk applied to the virtual keyboard, default config, unit
#             enabled and started
#   service   Type=notify becomes active once the source keyboard is grabbed, STATUS= names the
#             count, watchdog armed; it runs as user keyhold (uid != 0) with no capabilities;
#             /run/keyhold/control is keyhold:keyhold 0666; the sandbox holds (no EPERM from the
#             system call filter in the journal); a keyhold member cannot open a keyboard or
#             /dev/uinput
#   control   `keyhold status` as root and as a keyhold member; refused for nobody outside the
#             group; `keyhold monitor` shows the callout's numbered candidates (characters for root
#             only); `keyhold pause` / `resume`
#   typing    the grabbed probe keyboard types into a VT application, callouts included
#   reload    `systemctl reload` applies a changed config; `keyhold reload` of a broken one exits 2
#             with file:line and keeps the running one; a valid one is applied; reloads changing
#             [feedback] lose no tap (latency printed), keep a held Shift, reopen the sound card
#   hotplug   a keyboard plugged in after start is grabbed through udev (libudev monitor)
#   logind    started after the daemon (as on a boot, where they start side by side): followed
#   seat      a keyboard attached to seat1 by `loginctl attach` is let go, its ACL removed, its
#             keys and its panic chord not Keyhold's; after `loginctl flush-devices`, grabbed again
#   sleep     PrepareForSleep(true) from logind (a fake logind owning org.freedesktop.login1: the
#             real one cannot be asked to emit it without suspending) while a key is held: the
#             output key is released before the sleep delay lock is given back; the same signal
#             from another sender (busctl emit) is ignored; PrepareForSleep(false): lock taken
#             again, typing works, nothing stuck
#   stop      `systemctl stop` mid-hold: every key released on the virtual keyboard before it goes,
#             the keyboard is ungrabbed, the service ends cleanly
#   sandbox   `systemd-analyze security keyhold.service`: overall exposure <= 1.0 (security.txt)
#
# Results go to $E2E_RESULTS/service (default <repo>/e2e-results/service): counts, journal.txt,
# monitor logs. The last line is "N passed, N failed"; exit status non-zero on any failure.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

SRC_NAME="Keyhold Service E2E Keyboard"
HOT_NAME="Keyhold Service Hotplug Keyboard"
CONFIG=/etc/keyhold/config.toml
SOCKET=/run/keyhold/control
# KEY_* codes used with src_send
K_E=18 K_2=3 K_RIGHT=106 K_ENTER=28 K_SHIFT=42

# ----------------------------------------------------------------------------------------------
# guest side
# ----------------------------------------------------------------------------------------------

kh() { "$KEYHOLD" "$@"; }
# as_user GROUPS CMD...: run CMD as nobody with exactly these supplementary groups ("" = none)
as_user() {
  local groups=$1; shift
  if [ -n "$groups" ]; then setpriv --reuid=nobody --regid=nogroup --groups="$groups" -- "$@"
  else setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; fi
}
journal() { journalctl -q -o cat -u keyhold.service --no-pager 2>/dev/null; }
journal_has() { journal | grep -q -- "$1"; }
unit_prop() { systemctl show -P "$1" keyhold.service; }
# hold_pick KEY N: hold KEY 650 ms, then press digit N (picks candidate N of the callout)
hold_pick() { src_send kb "d $1" "t 650" "u $1" "t 60" "d $(( $2 + 1 ))" "u $(( $2 + 1 ))"; }
# keys still down at the end of a recording (code value lines)
held_at_end() { record_keys "$1" | awk '{ if ($2 == 0) delete d[$1]; else d[$1] = 1 } END { for (k in d) printf "%s ", k }'; }
file_has() { grep -q -- "$2" "$1"; }
# the VT got a hold of e then 2 unchanged: e (repeated by the kernel or not), 2, and no é
paused_hold_passed() {
  wait_until 10 eval 'tail -c1 "$VT_FILE" | grep -q 2' || return 1
  grep -q '^ee*2$' "$VT_FILE" && ! grep -q $'\303' "$VT_FILE"
}
expect_rc() { local want=$1 rc=0; shift; "$@" > "$E2E_WORK/rc.out" 2>&1 || rc=$?; cat "$E2E_WORK/rc.out"; [ "$rc" -eq "$want" ]; }

# fake logind: owns org.freedesktop.login1, hands out delay locks, emits PrepareForSleep
FL_OUT=""
fake_logind_start() {
  local fifo=$E2E_WORK/logind.in
  FL_OUT=$E2E_OUT/fake-logind.out
  rm -f "$fifo"; mkfifo "$fifo"; : > "$FL_OUT"
  exec {FL_FD}<>"$fifo"
  "$FAKE_LOGIND" < "$fifo" > "$FL_OUT" 2>&1 {FL_FD}>&- &
  E2E_PIDS+=("$!")
  wait_until 10 grep -q '^ready' "$FL_OUT"
}
fl() { printf '%s\n' "$@" >&"$FL_FD"; }
fl_count() { grep -c -- "$1" "$FL_OUT" 2>/dev/null || true; }

# seat_check KH_DEV: a keyboard an administrator attaches to a second seat with `loginctl attach
# seat1` is let go and left to that seat: no ACL for the daemon's user, its keys not typed by
# Keyhold, its panic chord not the daemon's; `loginctl flush-devices` gives it back to seat0,
# where it is grabbed again.
seat_check() {
  local kh_dev=$1 dev syspath
  if ! src_start seat "Keyhold Service Seat Keyboard"; then fail "seat: a keyboard for the second seat created"; return; fi
  dev=${SRC_DEV[seat]}
  check "seat: on seat0 it is grabbed" wait_flowing seat "$kh_dev" 20
  syspath=$(udevadm info -q path -n "$dev" | sed 's|/event[0-9]*$||')
  # logind attaches a device by its ID_FOR_SEAT, which 71-seat.rules makes from the device's
  # physical path (path_id: "input-pci-0000_00_14_0-usb-0_1_1_0"); a uinput keyboard has none,
  # so the suite gives this one its own, as path_id would a keyboard on a USB port.
  local for_seat=/etc/udev/rules.d/70-keyhold-e2e-for-seat.rules
  printf '%s\n' 'SUBSYSTEM=="input", KERNEL=="input*", ATTR{name}=="Keyhold Service Seat Keyboard", ENV{ID_FOR_SEAT}="input-keyhold-e2e-seat"' > "$for_seat"
  udevadm control --reload && udevadm trigger --action=change --settle "/sys$syspath"
  check "seat: loginctl attach seat1 (logind writes its rule and sends the device a change)" \
    eval "loginctl attach seat1 '/sys$syspath' && udevadm settle && test -f /etc/udev/rules.d/72-seat-input-keyhold-e2e-seat.rules"
  # udevd reads changed rule files at most every 3 s: logind's change event, sent as it writes
  # the rule and just after the one above, can still meet the old rules. Sent again, reloaded.
  udevadm control --reload && udevadm trigger --action=change --settle "/sys$syspath" "$dev"
  if ! check "seat: udev says seat1" wait_until 10 eval "udevadm info -q property -n '$dev' | grep -qx ID_SEAT=seat1"; then
    udevadm info -q property -p "$syspath" | grep -E 'ID_FOR_SEAT|ID_SEAT|TAGS' | sed 's/^/  input: /'
    udevadm info -q property -n "$dev" | grep -E 'ID_FOR_SEAT|ID_SEAT|TAGS' | sed 's/^/  node:  /'
  elif check "seat: the daemon lets it go" "$PROBE" grabbed "$dev" -r -t 10; then
    check "seat: the daemon's user has no ACL on it" eval "! getfacl -p '$dev' 2> /dev/null | grep -q keyhold"
    check "seat: keyhold devices says why" eval "kh devices | grep -A3 'Seat Keyboard' | grep -q 'on seat1: Keyhold serves seat0'"
    record_start seat "$kh_dev" -t 3
    # (only once it is let go: the daemon's own panic chord would stop it for the checks after)
    src_send seat "d $K_E" "u $K_E" "d 14" "d 1" "d $K_ENTER" "t 200" "u $K_ENTER" "u 1" "u 14"
    record_wait seat 10
    check "seat: its keys are not Keyhold's (nothing on the virtual keyboard)" test -z "$(record_keys seat)"
    check "seat: its Backspace+Escape+Enter do not stop the daemon" systemctl is-active --quiet keyhold.service
  fi
  check "seat: loginctl flush-devices gives it back to seat0, where it is grabbed again" \
    eval "loginctl flush-devices && udevadm settle && wait_flowing seat '$kh_dev' 20"
  rm -f "$for_seat"; udevadm control --reload
  src_stop seat
}

guest() {
  # shellcheck source=SCRIPTDIR/lib.sh
  . "$HERE/lib.sh"
  e2e_init || { e2e_finish; return 1; }
  local kh_dev

  # ---- the machine: systemd as PID 1, udevd, dbus
  check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
  check "systemd-udevd is running" wait_until 30 systemctl is-active --quiet systemd-udevd.service
  log "guest: systemd $(systemctl --version | head -1 | cut -d' ' -f2), udevd up at $(uptime_s) s"

  # a sound card (the ALSA loopback) for the default feedback config to play on
  if ! { modprobe snd-aloop && wait_until 10 test -e /proc/asound/Loopback; }; then log "snd-aloop unavailable: audio not checked"; fi
  # the source keyboard exists before the service starts: the service grabs it at start
  if ! src_start kb "$SRC_NAME"; then fail "probe source keyboard created"; e2e_finish; return 1; fi
  udevadm settle -t 15

  # ---- an older install's layout, which the install must clean up: group keyhold had an ACL on
  # every keyboard (and /dev/uinput), and there was a user service
  groupadd -r keyhold
  mkdir -p /usr/local/lib/udev/rules.d /usr/local/lib/systemd/user
  printf '# old\n' > /usr/local/lib/udev/rules.d/70-keyhold.rules
  printf '[Service]\nExecStart=/bin/true\n' > /usr/local/lib/systemd/user/keyhold.service
  setfacl -m g:keyhold:rw "${SRC_DEV[kb]}"

  # ---- install on the prebuilt binary, logind not started yet (it is on demand here; on a boot
  # the two start side by side): the daemon must follow it once it starts
  systemctl stop systemd-logind.service 2> /dev/null
  rm -rf /run/systemd/seats
  log "make install-files BINARY=$KEYHOLD"
  if make -C "$REPO" --no-print-directory install-files BINARY="$KEYHOLD" > "$E2E_OUT/install.log" 2>&1; then
    pass "make install-files (files, sysusers, udev reload + trigger, daemon-reload, enable --now)"
  else
    fail "make install-files"; sed 's/^/    /' "$E2E_OUT/install.log"
  fi
  check "installed: binary, units, rules, quirk, sysusers, modules-load, config" \
    test -x /usr/local/bin/keyhold -a -f /usr/local/lib/systemd/system/keyhold.service \
      -a -f /usr/local/lib/udev/rules.d/75-keyhold.rules \
      -a -f /usr/share/libinput/50-keyhold.quirks -a -f /usr/local/lib/sysusers.d/keyhold.conf \
      -a -f /usr/local/lib/modules-load.d/keyhold.conf -a -f "$CONFIG"
  check "unit points at the installed binary" grep -qx 'ExecStart=/usr/local/bin/keyhold run --lock-memory' /usr/local/lib/systemd/system/keyhold.service
  check "keyhold user created by systemd-sysusers (a system user, no login)" \
    eval '[ "$(id -u keyhold)" -gt 0 ] && [ "$(id -u keyhold)" -lt 1000 ] && getent passwd keyhold | grep -q nologin'
  check "keyhold group exists (a system group)" eval '[ "$(getent group keyhold | cut -d: -f3)" -lt 1000 ]'
  check "upgrade: the old rules file and user unit are gone" \
    test ! -e /usr/local/lib/udev/rules.d/70-keyhold.rules -a ! -e /usr/local/lib/systemd/user/keyhold.service
  check "upgrade: group keyhold's old ACL on the keyboard is gone" eval '! getfacl -p "${SRC_DEV[kb]}" 2>/dev/null | grep -q "^group:keyhold"'
  check "keyhold.service enabled" systemctl is-enabled --quiet keyhold.service

  # ---- the running service
  check "keyhold.service active (Type=notify: READY after the grab)" wait_until 30 systemctl is-active --quiet keyhold.service
  kh_dev=$("$PROBE" find "$KH_NAME" -t 10)
  check "virtual keyboard present ($kh_dev)" test -n "$kh_dev"
  check "the source keyboard is grabbed and flows into the virtual keyboard" wait_flowing kb "$kh_dev" 20
  # the probe source and QEMU's PS/2 keyboard: STATUS= must agree with `keyhold status`
  local grabbed; grabbed=$(kh status | grep -c '^  grabbed ')
  check "STATUS= names the grabbed keyboards ($(unit_prop StatusText); keyhold status lists $grabbed)" \
    eval '[ "$grabbed" -ge 1 ] && [ "$(unit_prop StatusText)" = "$grabbed keyboard(s) grabbed" ]'
  check "watchdog armed (WatchdogUSec=$(unit_prop WatchdogUSec))" test "$(unit_prop WatchdogUSec)" = 10s
  local pid; pid=$(unit_prop MainPID)
  log "main process $pid: $(grep -E '^(Uid|Gid|Groups|CapEff|CapPrm|CapBnd)' "/proc/$pid/status" | tr -s '\t\n' '  ')"
  check "main process runs as user keyhold (uid $(awk '/^Uid/{print $2}' "/proc/$pid/status"), not 0) with no capabilities" \
    eval '[ "$(stat -c %U /proc/$pid)" = keyhold ] && [ "$(awk "/^Uid/{print \$2}" /proc/$pid/status)" != 0 ] \
          && [ "$(awk "/^CapEff/{print \$2}" /proc/$pid/status)" = 0000000000000000 ] \
          && [ "$(awk "/^CapPrm/{print \$2}" /proc/$pid/status)" = 0000000000000000 ]'
  check "main process runs SCHED_FIFO 49 ($(chrt -p "$pid" 2>&1 | tr '\n' ' '))" \
    eval 'chrt -p "$pid" | grep -q "SCHED_FIFO" && chrt -p "$pid" | grep -q "priority: 49"'
  # CPUSchedulingResetOnFork=: the sound thread starts as an ordinary one, so no key waits for it
  local audio_tid; audio_tid=$(thread_id "$pid" keyhold-audio)
  check "its sound thread runs SCHED_OTHER, the main thread SCHED_FIFO with SCHED_RESET_ON_FORK ($(chrt -p "${audio_tid:-0}" 2>&1 | tr '\n' ' '))" \
    eval '[ -n "$audio_tid" ] && chrt -p "$audio_tid" | grep -q "policy: SCHED_OTHER" && chrt -p "$pid" | grep -q "SCHED_RESET_ON_FORK"'
  log "main process memory: $(grep -E '^(VmRSS|VmLck)' "/proc/$pid/status" | tr -s '\t\n' '  ')"
  check "main process memory is locked (--lock-memory under LimitMEMLOCK: VmLck $(awk '/^VmLck/{print $2}' "/proc/$pid/status") kB)" \
    eval 'journal_has "memory locked (mlockall)" && [ "$(awk "/^VmLck/{print \$2}" /proc/$pid/status)" -gt 0 ]'
  check "control socket $SOCKET is keyhold:keyhold 0666 (the daemon checks each peer)" test "$(stat -c '%U:%G %a' "$SOCKET")" = "keyhold:keyhold 666"
  check "runtime directory /run/keyhold is keyhold:keyhold 0755" test "$(stat -c '%U:%G %a' /run/keyhold)" = "keyhold:keyhold 755"
  check "hotplug through the libudev monitor (udevd runs)" journal_has "hotplug: libudev monitor"
  if [ -e /proc/asound/Loopback ]; then
    check "sound: the service holds the ALSA playback device open (DeviceAllow=char-alsa)" \
      eval 'ls -l /proc/$(unit_prop MainPID)/fd | grep -q "/dev/snd/pcmC[0-9]*D0p"'
    check "sound: no ALSA error in the journal" eval '! journal | grep -q "ALSA device .* cannot be opened"'
  fi

  # ---- udev rules and the libinput quirk
  getfacl -p /dev/uinput "${SRC_DEV[kb]}" /dev/snd/pcmC*D0p > "$E2E_OUT/acl.txt" 2>&1
  check "/dev/uinput is root:root 0600 plus an ACL for user keyhold alone (75-keyhold.rules)" \
    eval '[ "$(stat -c "%U:%G" /dev/uinput)" = root:root ] && getfacl -p /dev/uinput | grep -qx "user:keyhold:rw-" \
          && ! getfacl -p /dev/uinput | grep -q "^group:[a-z]"'
  check "keyboards carry an ACL for user keyhold, none for a group (${SRC_DEV[kb]})" \
    eval 'getfacl -p "${SRC_DEV[kb]}" | grep -qx "user:keyhold:rw-" && ! getfacl -p "${SRC_DEV[kb]}" | grep -q "^group:keyhold"'
  check "a keyhold member cannot open a keyboard" eval '! as_user keyhold "$PROBE" keystate "${SRC_DEV[kb]}" > /dev/null 2>&1'
  check "a keyhold member cannot open /dev/uinput" eval '! as_user keyhold sh -c "exec 3<> /dev/uinput" 2> /dev/null'
  if [ -e /proc/asound/Loopback ]; then
    check "sound: playback nodes carry an ACL for user keyhold, capture nodes none" \
      eval 'getfacl -p /dev/snd/pcmC*D0p | grep -qx "user:keyhold:rw-" && ! getfacl -p /dev/snd/pcmC*D0c 2>/dev/null | grep -q "user:keyhold"'
  fi
  if command -v libinput >/dev/null; then
    libinput quirks list "$kh_dev" > "$E2E_OUT/quirks.txt" 2>&1
    check "libinput quirk: the virtual keyboard is internal (AttrKeyboardIntegration)" \
      grep -qx "AttrKeyboardIntegration=internal" "$E2E_OUT/quirks.txt"
  else
    log "libinput-tools not installed: quirk not checked"
  fi

  # ---- control socket and commands
  check "keyhold status (root)" eval 'kh status > "$E2E_OUT/status.txt" 2>&1 && grep -q "grabbed  .*\"$SRC_NAME\"" "$E2E_OUT/status.txt"'
  check "keyhold status --json: ok, not paused" eval 'kh status --json | grep -q "\"ok\":true,.*\"paused\":false"'
  check "keyhold status as a keyhold group member" as_user keyhold "$KEYHOLD" status
  check "keyhold status refused outside the group (exit 1, permission denied)" \
    eval '! as_user "" "$KEYHOLD" status > "$E2E_WORK/denied" 2>&1 && grep -q "permission denied" "$E2E_WORK/denied"'

  # typing, and the monitors: root sees the candidates, a member only positions
  check "console app started on VT 2" vt_start
  check "the service reads VT 2's mode (its write-only ACL): a text console" \
    wait_until 10 eval 'journal | grep -q "keys go to: text console.* on VT 2"'
  src_type kb hello
  check "typing: hello arrives in the VT application" vt_expect hello
  vt_clear
  kh monitor > "$E2E_OUT/monitor-root.txt" 2>&1 &
  local mon_root=$!; E2E_PIDS+=("$mon_root")
  as_user keyhold "$KEYHOLD" monitor > "$E2E_OUT/monitor-member.txt" 2>&1 &
  local mon_member=$!; E2E_PIDS+=("$mon_member")
  wait_until 10 eval '[ "$(kh status --json | grep -o "\"monitors\":[0-9]*")" = "\"monitors\":2" ]'
  src_send kb "d $K_E" "t 650" "u $K_E" "t 60" "d $K_RIGHT" "u $K_RIGHT" "d $K_RIGHT" "u $K_RIGHT" "d $K_ENTER" "u $K_ENTER"
  check "callout: hold e, Right, Right, Enter -> é" vt_expect 'e\177\303\250\177\303\251'
  check "monitor (root): the open callout as numbered candidates" \
    wait_until 10 file_has "$E2E_OUT/monitor-root.txt" "\[e\]  1 è  2 é  3 ê"
  check "monitor (root): the shown candidate is marked" file_has "$E2E_OUT/monitor-root.txt" "e  1 è  \[2 é\]  3 ê"
  check "monitor (root): the close with the kept text" file_has "$E2E_OUT/monitor-root.txt" "closed: é"
  # a member learns nothing of what is typed, not even when keys come: the daemon's notices only
  check "monitor (member): no key, gesture or callout, not even a position" \
    eval '! tail -n +2 "$E2E_OUT/monitor-member.txt" | grep -qE "press|callout|candidate|opened|closed|[èé]"'
  check "monitor (member): told that keys, gestures and callouts are for root" \
    file_has "$E2E_OUT/monitor-member.txt" "keys, gestures and callouts hidden: only root sees them"
  vt_clear

  # pause / resume
  check "keyhold pause" kh pause
  check "status shows paused" eval 'kh status | grep -q "^state: paused"'
  # paused, a long hold is no long press: no callout, the character is not replaced
  src_send kb "d $K_E" "t 650" "u $K_E" "t 60" "d $K_2" "u $K_2"
  check "paused: hold e, 2 passes through unchanged (e..e2, no é)" paused_hold_passed
  vt_clear
  check "keyhold resume" kh resume
  hold_pick $K_E 2
  check "resumed: hold e, 2 -> é" vt_expect 'e\177\303\251'
  vt_clear
  check "monitor (root): pause and resume announced" \
    eval 'file_has "$E2E_OUT/monitor-root.txt" "paused: by uid 0" && file_has "$E2E_OUT/monitor-root.txt" "resumed: by uid 0"'

  # ---- reload
  cp "$CONFIG" "$E2E_WORK/config.orig"
  sed -i '/^\[callouts.custom\]/a e = ["ë", "é"]' "$CONFIG"
  check "systemctl reload keyhold" systemctl reload keyhold.service
  check "still active after reload" systemctl is-active --quiet keyhold.service
  hold_pick $K_E 1
  check "systemctl reload applied the changed config (e 1 -> ë)" vt_expect 'e\177\303\253'
  vt_clear
  cp "$CONFIG" "$E2E_WORK/config.good"
  sed -i '/^\[gestures\]/a lng_press_ms = 300' "$CONFIG"
  check "keyhold reload of a broken config: exit 2, file:line and the nearest key" \
    eval 'expect_rc 2 kh reload > "$E2E_WORK/reload.out" 2>&1 && grep -q "config.toml:[0-9]*.*long_press_ms" "$E2E_WORK/reload.out"'
  hold_pick $K_E 1
  check "the running configuration stays (e 1 -> ë)" vt_expect 'e\177\303\253'
  vt_clear
  sed '/^\[callouts.custom\]/a e = ["ē"]' "$E2E_WORK/config.orig" > "$CONFIG"
  check "keyhold reload of a valid config: exit 0" eval 'kh reload | grep -q "reloaded $CONFIG"'
  hold_pick $K_E 1
  check "keyhold reload applied it (e 1 -> ē)" vt_expect 'e\177\304\223'
  vt_clear
  check "monitor (root): reloads announced" file_has "$E2E_OUT/monitor-root.txt" "reloaded: $CONFIG"
  cp "$E2E_WORK/config.orig" "$CONFIG"; kh reload > /dev/null

  # ---- reloads that change [feedback]: the engines close and reopen off the input thread (a
  # tapping probe keyboard measures key latency across three of them), a held Shift survives,
  # and the sound card is open again afterwards
  local lat=$E2E_WORK/latency.reload lat_pid v
  "$PROBE" latency "Keyhold Reload Latency" "$KH_NAME" 600 -c x -g 5 > "$lat" 2>&1 &
  lat_pid=$!
  sleep 2
  for v in 0.4 0.3 0.5; do sed -i "s/^volume = .*/volume = $v/" "$CONFIG"; kh reload > /dev/null; sleep 0.5; done
  wait "$lat_pid"
  log "benchmark: key latency across three [feedback] reloads: $(sed -n 's/^latency: events/events/p' "$lat")"
  check "typing never stalls across [feedback] reloads: every tap through" grep -q '^latency: events [0-9]* lost 0 ' "$lat"
  vt_clear
  src_send kb "d $K_SHIFT"; sleep 0.3
  sed -i 's/^volume = .*/volume = 0.4/' "$CONFIG"
  check "a reload changing [feedback] while Shift is held: exit 0" eval 'kh reload | grep -q "reloaded $CONFIG"'
  src_send kb "d 30" "u 30" "u $K_SHIFT" "d 30" "u 30"
  check "Shift held through the reload: A, then a" vt_expect 'Aa'
  vt_clear
  if [ -e /proc/asound/Loopback ]; then
    check "sound: the playback device is open again after the reload" \
      wait_until 5 eval 'ls -l /proc/$(unit_prop MainPID)/fd | grep -q "/dev/snd/pcmC[0-9]*D0p"'
  fi
  cp "$E2E_WORK/config.orig" "$CONFIG"; kh reload > /dev/null

  # ---- hotplug with udevd: a keyboard plugged in after start
  if src_start hot "$HOT_NAME"; then
    check "hotplug: the new keyboard is grabbed" wait_flowing hot "$kh_dev" 20
    src_type hot ok
    check "hotplug: typing on it works" vt_expect ok
    vt_clear
    check "hotplug: STATUS counts one more keyboard" wait_until 10 eval '[ "$(unit_prop StatusText)" = "$((grabbed + 1)) keyboard(s) grabbed" ]'
    src_stop hot
    check "unplug: STATUS back to $grabbed" wait_until 10 eval '[ "$(unit_prop StatusText)" = "$grabbed keyboard(s) grabbed" ]'
  else
    fail "hotplug: second source keyboard created"
  fi

  # ---- logind, started after the daemon: followed from then on; and a second seat
  check "logind started" eval 'systemctl start systemd-logind.service && wait_until 20 test -d /run/systemd/seats'
  check "the daemon follows logind now (it started without it)" \
    wait_until 10 journal_has "logind started: following seat0's active session"
  seat_check "$kh_dev"
  vt_clear   # the second seat's keys reached the console, which reads every keyboard

  # ---- suspend: PrepareForSleep while a key is held
  systemctl stop systemd-logind.service 2>/dev/null
  systemctl mask --runtime systemd-logind.service > /dev/null 2>&1
  if fake_logind_start; then
    pass "fake logind owns org.freedesktop.login1"
    check "keyhold takes a sleep delay lock from the new logind" wait_until 15 eval '[ "$(fl_count "inhibit what=sleep who=Keyhold mode=delay")" -ge 1 ]'
    check "status shows suspend handling with the lock" eval 'kh status | grep -q "suspend: handled (sleep delay lock held)"'
    src_send kb "d $K_SHIFT"
    check "shift held on the virtual keyboard" keystate_is "$kh_dev" "held: $K_SHIFT"
    # a look-alike signal from another sender (root's busctl) is ignored
    busctl emit /org/freedesktop/login1 org.freedesktop.login1.Manager PrepareForSleep b true
    nap_s 1
    check "PrepareForSleep from another sender is ignored (shift still held)" keystate_is "$kh_dev" "held: $K_SHIFT"
    # (the virtual keyboard has EV_REP: the held shift also shows kernel repeats, value 2)
    record_start sleep "$kh_dev" -t 4
    fl sleep
    check "PrepareForSleep(true): the delay lock is given back" wait_until 10 eval '[ "$(fl_count "^released")" -ge 1 ]'
    check "PrepareForSleep(true): shift released on the virtual keyboard, source still holding it" \
      eval 'keystate_is "$kh_dev" "held: none" && keystate_is "${SRC_DEV[kb]}" "held: $K_SHIFT"'
    record_wait sleep 10
    cp "${REC_FILE[sleep]}" "$E2E_OUT/sleep-record.txt"
    local up_at lock_at
    up_at=$(awk '!/^#/ && $2 == '$K_SHIFT' && $3 == 0 {print $1; exit}' "${REC_FILE[sleep]}")
    lock_at=$(awk '/^released/ {print $5; exit}' "$FL_OUT")
    log "sleep: shift up on the virtual keyboard at ${up_at:-?}, delay lock released at ${lock_at:-?} ($(grep '^released' "$FL_OUT"))"
    check "the key-up was written before the delay lock was released" \
      awk -v u="${up_at:-9e9}" -v l="${lock_at:-0}" 'BEGIN { exit !(u <= l) }'
    fl wake
    check "PrepareForSleep(false): a new delay lock is taken" wait_until 15 eval '[ "$(fl_count "inhibit what=sleep who=Keyhold mode=delay")" -ge 2 ]'
    src_send kb "u $K_SHIFT"
    src_type kb x
    check "after wake: the release of the held shift is harmless, typing works (x, not X)" vt_expect x
    vt_clear
    check "after wake: nothing held" keystate_is "$kh_dev" "held: none"
    check "journal: sleep and wake logged" eval 'journal_has "going to sleep; releasing every key" && journal_has "woke up; resyncing"'
    check "monitor (root): sleep and wake announced" eval 'file_has "$E2E_OUT/monitor-root.txt" "sleep: every key released" && file_has "$E2E_OUT/monitor-root.txt" "wake"'
    fl quit
  else
    fail "fake logind owns org.freedesktop.login1"; cat "$FL_OUT"
  fi

  # ---- stop mid-hold
  vt_stop
  src_send kb "d 29" "d $K_SHIFT"
  check "keys held before stop (ctrl, shift)" keystate_is "$kh_dev" "held: 29 $K_SHIFT"
  record_start stop "$kh_dev" -t 15
  check "systemctl stop keyhold" systemctl stop keyhold.service
  record_wait stop 20
  local left; left=$(held_at_end stop)
  check "stop: every key released on the virtual keyboard before it went (left: ${left:-none})" test -z "$left"
  check "stop: the virtual keyboard is gone" eval '! "$PROBE" find "$KH_NAME" -t 1'
  check "stop: the source keyboard is ungrabbed" "$PROBE" grabbed "${SRC_DEV[kb]}" -r -t 5
  check "stop: clean exit (Result=$(unit_prop Result), status $(unit_prop ExecMainStatus))" \
    test "$(unit_prop Result)" = success -a "$(unit_prop ExecMainStatus)" = 0
  check "stop: monitors told and disconnected" eval 'wait_exit $mon_root 5; wait_exit $mon_member 5; file_has "$E2E_OUT/monitor-root.txt" "stopping"'
  check "stop: socket removed" test ! -e "$SOCKET"
  src_send kb "u $K_SHIFT" "u 29"

  # ---- the whole run under the sandbox
  check "no restarts (NRestarts=$(unit_prop NRestarts)), no watchdog timeout" test "$(unit_prop NRestarts)" = 0
  check "journal: nothing refused by the sandbox (EPERM / permission denied)" \
    eval '! journal | grep -Ei "operation not permitted|permission denied"'
  journalctl -o short-monotonic -u keyhold.service --no-pager > "$E2E_OUT/journal.txt" 2>&1
  systemd-analyze security keyhold.service > "$E2E_OUT/security.txt" 2>&1
  log "$(tail -1 "$E2E_OUT/security.txt")"
  # the README promises a hardened unit: systemd's own score (0 best .. 10 worst) stays <= 1.0
  local exposure; exposure=$(sed -n 's/.*Overall exposure level for keyhold\.service: \([0-9.]*\) .*/\1/p' "$E2E_OUT/security.txt")
  check "sandbox: systemd-analyze security exposure ${exposure:-?} <= 1.0" \
    awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 <= 1.0) }'

  # ---- a configuration that does not parse (`[{` once aborted the parser): the service refuses
  # to start, the journal says where, and systemd does not restart it on the same file
  cp "$CONFIG" "$E2E_WORK/config.keep"
  printf '[{\n' > "$CONFIG"
  systemctl start keyhold.service > /dev/null 2>&1
  check "'[{': the service fails to start with exit status 2" \
    wait_until 10 eval '[ "$(unit_prop ActiveState)" = failed ] && [ "$(unit_prop ExecMainStatus)" = 2 ]'
  sleep 3
  check "'[{': no restart loop on a broken configuration (NRestarts=$(unit_prop NRestarts))" \
    test "$(unit_prop NRestarts)" = 0 -a "$(unit_prop ActiveState)" = failed
  check "'[{': the journal names file, line and column" journal_has "$CONFIG:1:2: syntax error"
  cp "$E2E_WORK/config.keep" "$CONFIG"
  systemctl reset-failed keyhold.service

  src_stop kb
  journalctl -q -o short-monotonic -u keyhold.service --no-pager > "$E2E_OUT/journal.txt" 2>&1   # to read a failure by
  e2e_finish
}

nap_s() { sleep "$1"; }

# ----------------------------------------------------------------------------------------------
# host side
# ----------------------------------------------------------------------------------------------

# fake-logind: org.freedesktop.login1 on the system bus, just enough of it: Inhibit (a pipe's
# write end is the lock, as in logind) and PrepareForSleep on command. stdin: sleep | wake | quit.
# stdout: ready | inhibit what=.. who=.. mode=.. from=.. | released MS ms at MONOTONIC_S | timeout
write_fake_logind() {
cat <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

static sd_bus *bus;
static int locks[256], nlocks;

static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int held_count(void) {
    int n = 0;
    for (int i = 0; i < nlocks; i++) {
        if (locks[i] < 0) continue;
        struct pollfd p = { locks[i], POLLIN, 0 };
        if (poll(&p, 1, 0) == 0) n++; else { close(locks[i]); locks[i] = -1; }
    }
    return n;
}
static int on_call(sd_bus_message *m, void *u, sd_bus_error *e) {
    (void)u; (void)e;
    if (!sd_bus_message_is_method_call(m, "org.freedesktop.login1.Manager", "Inhibit")) return 0;
    const char *what, *who, *why, *mode;
    int r = sd_bus_message_read(m, "ssss", &what, &who, &why, &mode);
    if (r < 0) return r;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) return -errno;
    r = sd_bus_reply_method_return(m, "h", p[1]);
    close(p[1]);
    if (nlocks < 256) locks[nlocks++] = p[0]; else close(p[0]);
    printf("inhibit what=%s who=%s mode=%s from=%s\n", what, who, mode, sd_bus_message_get_sender(m));
    fflush(stdout);
    return r < 0 ? r : 1;
}
int main(void) {
    int r = sd_bus_open_system(&bus);
    if (r < 0) { printf("error: system bus: %s\n", strerror(-r)); return 1; }
    r = sd_bus_request_name(bus, "org.freedesktop.login1", 0);
    if (r < 0) { printf("error: cannot own org.freedesktop.login1: %s\n", strerror(-r)); return 1; }
    sd_bus_add_object(bus, NULL, "/org/freedesktop/login1", on_call, NULL);
    printf("ready\n"); fflush(stdout);
    char line[256]; size_t len = 0;
    double waiting = 0;
    for (;;) {
        while ((r = sd_bus_process(bus, NULL)) > 0) {}
        if (r < 0) { printf("error: bus: %s\n", strerror(-r)); return 1; }
        if (waiting > 0) {
            if (held_count() == 0) { double t = now_s(); printf("released %.1f ms at %.6f\n", (t - waiting) * 1e3, t); fflush(stdout); waiting = 0; }
            else if (now_s() - waiting > 5) { printf("timeout: %d lock(s) still held after 5 s\n", held_count()); fflush(stdout); waiting = 0; }
        }
        struct pollfd p[2] = { { 0, POLLIN, 0 }, { sd_bus_get_fd(bus), (short)sd_bus_get_events(bus), 0 } };
        uint64_t usec = UINT64_MAX;
        sd_bus_get_timeout(bus, &usec);
        int timeout = waiting > 0 ? 5 : -1;
        if (usec != UINT64_MAX) {
            struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
            uint64_t n = (uint64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
            int ms = usec > n ? (int)((usec - n) / 1000) + 1 : 0;
            if (timeout < 0 || ms < timeout) timeout = ms;
        }
        poll(p, 2, timeout);
        if (!(p[0].revents & (POLLIN | POLLHUP))) continue;
        ssize_t k = read(0, line + len, sizeof line - 1 - len);
        if (k <= 0) return 0;
        len += (size_t)k;
        char *nl;
        while ((nl = memchr(line, '\n', len))) {
            *nl = 0;
            if (!strcmp(line, "sleep") || !strcmp(line, "wake")) {
                int sleeping = !strcmp(line, "sleep");
                if (sleeping) { waiting = now_s(); printf("locks held before sleep: %d\n", held_count()); }
                r = sd_bus_emit_signal(bus, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", sleeping);
                sd_bus_flush(bus);
                printf("emitted PrepareForSleep %s (%d)\n", sleeping ? "true" : "false", r); fflush(stdout);
            } else if (!strcmp(line, "quit")) {
                return 0;
            }
            len -= (size_t)(nl + 1 - line);
            memmove(line, nl + 1, len);
        }
    }
}
EOF
}

# acl (setfacl for the keyboard ACL rule) and libinput-tools (`libinput quirks list`) let the
# guest check the udev rule and the libinput quirk for real
host() {
  # shellcheck source=host.sh
  . "$HERE/host.sh"
  e2e_host service-e2e service --pkgs "acl libinput-tools" KEYHOLD REPO="$E2E_REPO" \
    FAKE_LOGIND="$E2E_VMDIR/bin/fake-logind" VM_SYSTEMD=1 VM_TIMEOUT="${VM_TIMEOUT:-900}"
}

# keyhold (not e2e_host --keyhold: every product built, release, in .build)
host_before_setup() {
  if [ -z "${KEYHOLD:-}" ]; then
    echo "service-e2e: building keyhold (release)"
    (cd "$E2E_REPO" && swift build -c release > /dev/null) || return 1
    KEYHOLD=$E2E_REPO/.build/release/keyhold
  fi
}

host_after_setup() {
  write_fake_logind > "$E2E_VMDIR/fake-logind.c"
  gcc -O2 -Wall -o "$E2E_VMDIR/bin/fake-logind" "$E2E_VMDIR/fake-logind.c" -lsystemd
}

host_after_guest() {
  echo "service-e2e: total $((SECONDS - E2E_T0)) s; journal in $E2E_RESDIR/journal.txt"
}

if [ "${1:-}" = --guest ]; then guest; else host; fi
