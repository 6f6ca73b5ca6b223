# shellcheck shell=bash disable=SC2034   # SRC_DEV, REC_FILE, ... are read by the scripts that source this
# lib.sh - guest-side helpers for Keyhold's end-to-end tests. `source` it from a bash script
# that vm.sh runs in the guest (see smoke.sh for a complete example).
#
# Environment (passed in by the host script through VM_ENV):
#   E2E_PROBE   probe binary (vm.sh build puts it at $VM_DIR/bin/probe)
#   E2E_OUT     results dir, read-write on the host (VM_RWDIR); logs and counts go there
#   E2E_QMP     set when the host runs `qmp.py SOCK serve $E2E_OUT/.qmp` (host_keys needs it)
#   KEYHOLD     the keyhold executable (keyhold_start)
#
# Checks:   check NAME CMD...  | pass NAME | fail NAME [WHY] | e2e_finish (writes the counts)
# Waiting:  wait_until SEC CMD... (poll every 50 ms) | wait_exit PID SEC
# Sources:  src_start ID NAME [probe source opts] -> ${SRC_DEV[ID]}; src_send ID CMD...;
#           src_type ID TEXT; src_sync ID; src_replug ID; src_stop ID
# Devices:  find_dev NAME [-x DEV] [-t SEC]; keystate_is DEV "held: none" [SEC]
#           record_start ID DEV [opts] / record_wait ID SEC -> file ${REC_FILE[ID]}
#           wait_flowing SRC_ID DST_DEV [SEC]: taps a key on the source until it shows on DST
#           wait_quiet DEV [SEC]: until half a second passes with no key event on DEV
# Passthrough (interception-tools): passthrough_start ID SRC_DEV / passthrough_stop ID
# Keyhold:  keyhold_start CONFIG [args] -> $KH_PID, $KH_DEV; keyhold_stop [SEC]
# udev:     udev_start (systemd-udevd + a trigger of input/misc: hotplug events, ID_INPUT_*)
# VT app:   vt_start [FILE] / vt_expect TEXT [SEC] / vt_clear / vt_stop  (see vt-capture.sh)
# QMP:      host_keys CMD... - PS/2 keys from the host, e.g. host_keys "d shift" "t 600" "u shift"
#           host_shot FILE - a screenshot of the guest's VGA screen, taken by QEMU
#
# Every wait is bounded. Background processes started here are killed by the EXIT trap.

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROBE=${E2E_PROBE:-${VM_DIR:-/tmp/keyhold-vm}/bin/probe}
E2E_OUT=${E2E_OUT:-/tmp/e2e-out}
E2E_WORK=/tmp/e2e-work            # guest-local (tmpfs overlay): fifos do not work over 9p
VT_FILE=$E2E_WORK/vt.txt
KH_NAME="Keyhold Virtual Keyboard"
PASSED=0 FAILED=0
declare -a E2E_PIDS=()            # killed on exit (process groups for passthroughs)
declare -gA SRC_FD=() SRC_PID=() SRC_DEV=() SRC_OUT=() REC_PID=() REC_FILE=() PT_PID=()

# ---- output and checks ----
uptime_s() { local up _; read -r up _ < /proc/uptime; echo "$up"; }
log() { echo "[$(uptime_s)] $*"; }
# (E2E_LABEL, e.g. "Debian 13: ", goes before every check's name: a suite run on two releases)
pass() { PASSED=$((PASSED + 1)); echo "[$(uptime_s)] PASS ${E2E_LABEL:-}$1"; }
fail() { FAILED=$((FAILED + 1)); echo "[$(uptime_s)] FAIL ${E2E_LABEL:-}$1${2:+: $2}"; }
# check NAME CMD...: pass if CMD succeeds; its output is shown only on failure. CMD runs in
# this shell (so it may set variables) with output to a file, not $(...): a background process
# it starts would hold a $(...) pipe open and hang the check.
check() {
  local name=$1 rc=0 out=$E2E_WORK/check.out; shift
  "$@" > "$out" 2>&1 || rc=$?
  if [ $rc -eq 0 ]; then pass "$name"; else fail "$name" "exit $rc"; sed 's/^/    /' "$out"; fi
  return $rc
}

now_us() { echo "${EPOCHREALTIME/./}"; }   # bash 5 builtin clock: no fork per poll
# wait_until SEC CMD...: poll CMD every 50 ms until it succeeds; 1 on timeout
wait_until() {
  local end=$(( $(now_us) + ${1%.*} * 1000000 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(now_us)" -lt "$end" ] || return 1
    sleep 0.05
  done
}
# thread_id PID NAME: the id of PID's thread named NAME (its comm), empty when it has none
thread_id() { grep -lx "$2" /proc/"$1"/task/*/comm 2> /dev/null | head -1 | cut -d/ -f5; }
# wait_exit PID SEC: wait for a background job; returns its status, 124 on timeout (job killed)
wait_exit() {
  if wait_until "$2" eval "! kill -0 $1"; then wait "$1"; return $?; fi
  kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 124
}

e2e_cleanup() {
  local p
  for p in "${E2E_PIDS[@]}"; do kill -TERM -- "$p" 2>/dev/null || true; done
}

# e2e_init: kernel modules, work dirs, the cleanup trap
e2e_init() {
  mkdir -p "$E2E_WORK" "$E2E_OUT"
  trap e2e_cleanup EXIT
  # both are modules in Debian's kernel; `modprobe evdev uinput` would pass uinput as a parameter
  modprobe -a evdev uinput || { fail "modprobe -a evdev uinput"; return 1; }
  wait_until 5 test -c /dev/uinput || { fail "/dev/uinput did not appear"; return 1; }
  [ -x "$PROBE" ] || { fail "probe binary $PROBE missing (vm.sh build)"; return 1; }
}

# e2e_finish: record the counts for the host script, exit status 1 if anything failed
e2e_finish() {
  echo "$PASSED $FAILED" > "$E2E_OUT/counts"
  log "guest done: passed=$PASSED failed=$FAILED"
  [ "$FAILED" -eq 0 ]
}

# ---- probe source keyboards (one `probe source` process each, fed through a fifo) ----
src_ready_count() { grep -c '^ready ' "${SRC_OUT[$1]}" 2>/dev/null || true; }
src_start() {
  local id=$1 name=$2 fifo=$E2E_WORK/src.$1.in out=$E2E_WORK/src.$1.out fd; shift 2
  rm -f "$fifo" "$out"; mkfifo "$fifo"
  exec {fd}<>"$fifo"               # read-write open never blocks; the source sees EOF once we close it
  "$PROBE" source "$name" "$@" < "$fifo" > "$out" 2> "$out.err" {fd}>&- &
  SRC_PID[$id]=$!; SRC_FD[$id]=$fd; SRC_OUT[$id]=$out; E2E_PIDS+=("$!")
  if ! wait_until 10 grep -q '^ready ' "$out"; then
    echo "src_start $id: no device after 10 s:" >&2; cat "$out.err" >&2; return 1
  fi
  SRC_DEV[$id]=$(awk '/^ready /{d=$2} END{print d}' "$out")
}
src_send() { local id=$1; shift; printf '%s\n' "$@" >&"${SRC_FD[$id]}"; }
# src_sync ID [SEC]: returns once the source has executed everything sent before
src_sync() {
  local tag="sync-$RANDOM$RANDOM"
  src_send "$1" "echo $tag"
  wait_until "${2:-10}" grep -qx "$tag" "${SRC_OUT[$1]}"
}
# src_late ID: sets LATE to the source's waits that overslept (probe's "late MS OVER") since the
# last call, on one line: a check that failed on them was not given the timing it asked for
declare -gA SRC_LATE=()
src_late() {
  local id=$1 lines n
  lines=$(grep '^late ' "${SRC_OUT[$id]}" 2>/dev/null)
  n=$(printf '%s' "$lines" | grep -c '^late ' || true)
  LATE=""
  [ "$n" -le "${SRC_LATE[$id]:-0}" ] || LATE=$(printf '%s\n' "$lines" | tail -n "$((n - ${SRC_LATE[$id]:-0}))" \
    | awk '{printf "%s%s ms +%s ms", (NR > 1 ? ", " : ""), $2, $3}')
  SRC_LATE[$id]=$n
}
# src_replug ID: destroy and re-create the device (same name); updates SRC_DEV[ID]
src_replug() {
  local id=$1 n; n=$(src_ready_count "$id")
  src_send "$id" destroy create
  wait_until 10 eval "[ \$(src_ready_count $id) -gt $n ]" || return 1
  SRC_DEV[$id]=$(awk '/^ready /{d=$2} END{print d}' "${SRC_OUT[$id]}")
}
src_stop() {
  local id=$1
  local fd=${SRC_FD[$id]}
  src_send "$id" quit 2>/dev/null; exec {fd}>&-
  wait_exit "${SRC_PID[$id]}" 5
}

# US-layout key codes for src_type
declare -gA KEYCODE=([' ']=57 [$'\n']=28 ['-']=12 ['=']=13 [',']=51 ['.']=52 ['/']=53 [';']=39)
_kc() { local s=$1 i c=$2; for ((i = 0; i < ${#s}; i++)); do KEYCODE[${s:i:1}]=$((c + i)); done; }
_kc qwertyuiop 16; _kc asdfghjkl 30; _kc zxcvbnm 44; _kc 1234567890 2
# src_type ID TEXT: taps each character (upper case with left shift)
src_type() {
  local id=$1 s=$2 i ch lc cmds=()
  for ((i = 0; i < ${#s}; i++)); do
    ch=${s:i:1}; lc=${ch,,}
    [ -n "${KEYCODE[$lc]:-}" ] || { echo "src_type: no key for '$ch'" >&2; return 1; }
    if [ "$ch" != "$lc" ]; then cmds+=("d 42" "d ${KEYCODE[$lc]}" "u ${KEYCODE[$lc]}" "u 42")
    else cmds+=("d ${KEYCODE[$lc]}" "u ${KEYCODE[$lc]}"); fi
  done
  src_send "$id" "${cmds[@]}"
}

# ---- devices ----
find_dev() { "$PROBE" find "$@"; }
# keystate_is DEV EXPECTED [SEC]: waits until `probe keystate DEV` prints EXPECTED
keystate_is() {
  wait_until "${3:-5}" eval "[ \"\$('$PROBE' keystate '$1')\" = '$2' ]" && return 0
  echo "keystate of $1: $("$PROBE" keystate "$1"), expected $2" >&2; return 1
}
# record_start ID DEV [probe record opts]: returns once the recorder is reading
record_start() {
  local id=$1 dev=$2 f=$E2E_WORK/rec.$1; shift 2
  "$PROBE" record "$dev" "$@" > "$f" 2> "$f.err" &
  REC_PID[$id]=$!; REC_FILE[$id]=$f; E2E_PIDS+=("$!")
  wait_until 10 grep -q '^# recording' "$f"
}
record_wait() { wait_exit "${REC_PID[$1]}" "${2:-30}"; }
# key events (code value) in a recording, without timestamps
record_keys() { awk '!/^#/ && NF == 3 {print $2, $3}' "${REC_FILE[$1]}"; }
# wait_flowing SRC_ID DST_DEV [SEC] [KEY]: tap KEY (default F24, which the console ignores) on the
# source until it arrives on DST: proves a grabbing re-emitter is reading the source, without
# racing it for the grab the way `probe grabbed` would. Other keys still arriving on DST (the
# paced tail of a flood) are passed over.
wait_flowing() {
  local id=$1 dst=$2 sec=${3:-15} key=${4:-194} rid="flow$RANDOM" end
  record_start "$rid" "$dst" -k "$key" -t "$sec" || return 1
  end=$(( $(now_us) + sec * 1000000 ))
  while kill -0 "${REC_PID[$rid]}" 2>/dev/null && [ "$(now_us)" -lt "$end" ]; do
    src_send "$id" "d $key" "u $key"; sleep 0.2
  done
  record_wait "$rid" 2 && grep -q " $key 1\$" "${REC_FILE[$rid]}"
}

# wait_quiet DEV [SEC]: returns once half a second passes with no key event on DEV, at most SEC
# (default 10) seconds: what a paced output queue still held (wait_flowing's later taps, queued
# behind a backlog) has come out, and is not recorded by the next test
wait_quiet() {
  local dev=$1 end=$(( $(now_us) + ${2:-10} * 1000000 )) f=$E2E_WORK/quiet.rec
  while [ "$(now_us)" -lt "$end" ]; do
    "$PROBE" record "$dev" -t 0.5 > "$f" 2> /dev/null
    grep -qv '^#' "$f" || return 0
  done
  return 1
}

# ---- interception-tools passthrough: the reference grab-and-re-emit program ----
# `uinput -d SRC` clones SRC's name: find its device with find_dev NAME -x SRC.
passthrough_start() {
  local id=$1 dev=$2
  # setsid: own process group, so passthrough_stop ends both ends of the pipe
  # shellcheck disable=SC2016   # "$1" expands in the inner shell
  setsid bash -c 'interception -g "$1" | uinput -d "$1"' pt "$dev" > "$E2E_OUT/passthrough.$id.log" 2>&1 &
  PT_PID[$id]=$!; E2E_PIDS+=("-$!")
}
passthrough_stop() {
  kill -TERM -- "-${PT_PID[$1]}" 2>/dev/null || true
  wait_exit "${PT_PID[$1]}" 5 || true
}

# ---- keyhold itself ----
# keyhold_start CONFIG [more args]: runs "$KEYHOLD run --config CONFIG", logs to
# $E2E_OUT/keyhold.log, waits (20 s) for its virtual keyboard; sets KH_PID and KH_DEV
keyhold_start() {
  local cfg=$1; shift
  [ -x "${KEYHOLD:-}" ] || { echo "keyhold_start: \$KEYHOLD is not an executable" >&2; return 1; }
  # a virtual keyboard left by an earlier keyhold (still shutting down) must not count
  # (compared by inputM: a new device often reuses the old one's /dev/input/eventN)
  KH_OLD_DEV=$("$PROBE" find "$KH_NAME" -t 0 -i 2>/dev/null)
  # KH_USER: run as that user, as the service does (no capabilities; devices through udev ACLs)
  ${KH_USER:+setpriv --reuid="$KH_USER" --regid="$KH_USER" --init-groups --inh-caps=-all --bounding-set=-all --} \
    "$KEYHOLD" run --config "$cfg" "$@" >> "$E2E_OUT/keyhold.log" 2>&1 &
  KH_PID=$!; E2E_PIDS+=("$!")
  wait_until 20 _kh_started
  if ! kill -0 "$KH_PID" 2>/dev/null; then echo "keyhold_start: keyhold exited (log: $E2E_OUT/keyhold.log)" >&2; return 1; fi
  KH_DEV=$("$PROBE" find "$KH_NAME" -t 0 -i 2>/dev/null)
  if [ -z "$KH_DEV" ] || [ "$KH_DEV" = "$KH_OLD_DEV" ]; then
    echo "keyhold_start: no new \"$KH_NAME\" after 20 s (log: $E2E_OUT/keyhold.log)" >&2; return 1
  fi
  KH_DEV=${KH_DEV%% *}
}
# done waiting once keyhold has died or a new virtual keyboard exists
_kh_started() {
  local d
  ! kill -0 "$KH_PID" 2>/dev/null && return 0
  d=$("$PROBE" find "$KH_NAME" -t 0 -i 2>/dev/null) && [ "$d" != "$KH_OLD_DEV" ]
}
# keyhold_stop [SEC]: SIGTERM, wait (default 5 s); returns keyhold's exit status (124: had to be killed)
keyhold_stop() {
  kill -TERM "$KH_PID" 2>/dev/null || true
  wait_exit "$KH_PID" "${1:-5}"
}

# ---- udev ----
# udev_start: run systemd-udevd and replay "add" for input + misc devices. Without it (the
# default busybox PID 1 boot) nothing answers libudev: no hotplug events reach a udev monitor
# and devices have no ID_INPUT_KEYBOARD properties. A targeted trigger: a full one takes ~10 s.
udev_start() {
  /lib/systemd/systemd-udevd --daemon >/dev/null 2>&1 || return 1
  udevadm trigger --subsystem-match=input --subsystem-match=misc --action=add || return 1
  udevadm settle -t 15
}

# ---- the console application (vt-capture.sh) ----
vt_start() { VT_FILE=${1:-$VT_FILE}; "$E2E_DIR/vt-capture.sh" start "$VT_FILE" "${2:-2}"; }
vt_expect() { "$E2E_DIR/vt-capture.sh" expect "$VT_FILE" "$1" "${2:-10}"; }
vt_clear() { "$E2E_DIR/vt-capture.sh" clear "$VT_FILE"; }
vt_stop() { "$E2E_DIR/vt-capture.sh" stop "$VT_FILE"; }

# ---- PS/2 keys from the host (qmp.py serve answers the request files) ----
# host_keys CMD...: d KEY | u KEY | tap KEY | t MS | type TEXT (see qmp.py); waits until done
E2E_QMP_N=0
host_keys() {
  [ -n "${E2E_QMP:-}" ] || { echo "host_keys: the host runs no QMP agent (E2E_QMP unset)" >&2; return 1; }
  local d=$E2E_OUT/.qmp n=$((++E2E_QMP_N)) ans
  mkdir -p "$d"
  printf '%s\n' "$@" > "$d/req.$n.tmp" && mv "$d/req.$n.tmp" "$d/req.$n"
  wait_until 30 test -e "$d/done.$n" || { echo "host_keys: no answer from the host after 30 s" >&2; return 1; }
  ans=$(cat "$d/done.$n"); rm -f "$d/done.$n"
  [ "$ans" = ok ] || { echo "host_keys: $ans" >&2; return 1; }
}

# host_shot FILE: the guest's screen as the VGA device shows it (QEMU's screendump, PNG), written
# by the host into FILE under $E2E_OUT (shared with the host at the same path)
host_shot() { rm -f "$1"; host_keys "shot $1" && test -s "$1"; }

# capture_analyse WAV [BUFFER_FRAMES]: one line per sound found (start_s duration_ms peak) after a
# header line. With BUFFER_FRAMES (the player's ALSA buffer), a sound that repeats the last played
# sound sample for sample, starting exactly one buffer after the sound or replay before it, is
# listed as "replay" instead: snd-aloop copies whatever the ring holds for the time its timer fired
# late, so when the guest delays that timer past whole buffers the click still in the ring is
# captured again, once per buffer, before the kernel silences it (seen in TCG guests: up to three
# copies 40 ms apart with a 40 ms buffer; the last copy may be cut short, where the kernel
# silenced the ring meanwhile: a copy of the click's start). Replays are told by that one-buffer
# step, not by their distance from the click: taps come about 120 ms apart, and two real clicks
# were once exactly three buffers (120 ms) apart; no two come one buffer apart.
capture_analyse() {
  /usr/bin/python3 - "$1" "${2:-0}" <<'EOF'
import struct, sys, wave
w = wave.open(sys.argv[1]); buffer = int(sys.argv[2])
rate, n, ch = w.getframerate(), w.getnframes(), w.getnchannels()
data = struct.unpack('<%dh' % (n * ch), w.readframes(n))[::ch]
peak = max((abs(x) for x in data), default=0)
print("capture %d frames %.3f s %d Hz %d ch peak %d" % (n, n / rate, rate, ch, peak))
thr, gap = 64, int(0.008 * rate)      # a sound: samples above 64, gaps under 8 ms merged
start = last = None; p = 0; sounds = []
for i, x in enumerate(data):
    if abs(x) > thr:
        if start is not None and i - last > gap:
            sounds.append((start, last, p)); start = None
        if start is None: start, p = i, 0
        last = i; p = max(p, abs(x))
if start is not None: sounds.append((start, last, p))
kept = before = None
for s, e, p in sounds:
    kind = "sound"
    if buffer > 0 and kept is not None:
        ks, ke = kept
        if s - before == buffer and e - s <= ke - ks and data[s:e + 1] == data[ks:ks + e - s + 1]:
            kind = "replay"
    if kind == "sound": kept = (s, e)
    before = s
    print("%s %.4f %.1f %d" % (kind, s / rate, (e - s + 1) * 1000.0 / rate, p))
EOF
}
