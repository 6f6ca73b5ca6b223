#!/usr/bin/env bash
# feedback-e2e.sh - Keyhold's audio and haptic feedback against a real kernel, in one guest boot:
#   audio:   snd-aloop; `keyhold feedback test` plays on hw:Loopback,0,0 while arecord captures
#            hw:Loopback,1,0; the capture must hold the four sounds (input, delete, system and a
#            custom WAV) at their exact peaks, lengths and spacing.
#   haptics: ffdriver (a uinput FF_RUMBLE device acting as its own driver) logs every effect
#            upload, play and erase while `keyhold feedback test` runs; the uploads must be the
#            pattern table, every pattern must be played, and the effects erased at exit.
#   daemon:  `keyhold run` with audio and haptics on, a probe source keyboard, ffdriver and arecord:
#            x pressed (forwarded) -> an input click in the capture and a lightImpact play at the
#            driver; e held 600 ms (long press opens a callout) -> a mediumImpact play and a
#            system click after it; SIGTERM -> exit 0, its effects erased.
#   failures: a missing sound card is one warning (exit 0; 1 with --strict); no rumble device is
#            one line; a rumble device unplugged mid-run is one warning, later patterns are skipped.
#
#   Tests/e2e/feedback-e2e.sh          # host: setup (idempotent), boot the guest, print results
#   Tests/e2e/feedback-e2e.sh --guest  # what runs inside the guest (needs the host side's env)
#
# KEYHOLD=path/to/keyhold picks the binary (default: <repo>/.build/debug/keyhold, built if
# missing). Results go to $E2E_RESULTS/feedback (default <repo>/e2e-results/feedback): the
# capture, the driver logs and keyhold's output. The last line is "N passed, N failed".
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUMBLE="Keyhold Test Rumble"
PY=/usr/bin/python3

# ---- guest helpers ----
# ff_count FILE REGEX: lines of a driver log matching REGEX
ff_count() { grep -cE "$2" "$1" 2>/dev/null || true; }
# ff_effect_id FILE "strong=N weak=N length=N delay=N": the id the driver gave that upload
ff_effect_id() { sed -n "s/^upload id=\([0-9]*\) type=rumble $2\$/\1/p" "$1" | tail -1; }
# ff_played_after FILE LINE ID: the driver log has a play of effect ID after line LINE
ff_played_after() { [ -n "$3" ] && tail -n +"$(($2 + 1))" "$1" | grep -q "^play .* effect=$3 value=1\$"; }

# ffdriver_start ID [opts]: a rumble device; sets FF_PID[ID], FF_LOG[ID], FF_DEV[ID]
declare -gA FF_PID=() FF_LOG=() FF_DEV=()
ffdriver_start() {
  local id=$1 log=$E2E_WORK/ff.$1.log; shift
  "$FFDRIVER" "$RUMBLE" "$@" > "$log" 2> "$log.err" &
  FF_PID[$id]=$!; FF_LOG[$id]=$log; E2E_PIDS+=("$!")
  wait_until 10 grep -q '^ready /dev/input/event' "$log" || { cat "$log.err" >&2; return 1; }
  FF_DEV[$id]=$(awk '/^ready /{print $2; exit}' "$log")
}
ffdriver_stop() { kill -TERM "${FF_PID[$1]}" 2>/dev/null; wait_exit "${FF_PID[$1]}" 5; cp "${FF_LOG[$1]}" "$E2E_OUT/ffdriver.$1.log"; }


guest() {
  # shellcheck source=SCRIPTDIR/lib.sh
  . "$HERE/lib.sh"
  e2e_init || { e2e_finish; return 1; }
  [ -x "${KEYHOLD:-}" ] || { fail "keyhold binary (\$KEYHOLD=${KEYHOLD:-unset})"; e2e_finish; return 1; }
  [ -x "${FFDRIVER:-}" ] || { fail "ffdriver binary (\$FFDRIVER=${FFDRIVER:-unset})"; e2e_finish; return 1; }
  local out=$E2E_OUT cfg=$E2E_WORK/feedback.toml custom=$E2E_OUT/custom.wav rc

  # ---- setup: the loopback sound card and the configuration
  if modprobe snd-aloop && wait_until 10 test -e /proc/asound/Loopback; then
    pass "snd-aloop loaded ($(tr -d '\n' < /proc/asound/Loopback/id 2>/dev/null || echo Loopback))"
  else fail "snd-aloop loaded"; fi
  cat > "$cfg" <<EOF
[feedback]
audio = true
haptic = true
volume = 0.5
audio_device = "hw:Loopback,0,0"
haptic_device = "Keyhold Test*"

[[feedback.override]]
action = "backspace"
gesture = "long_press"
audio = "$custom"
EOF
  check "configuration is valid" "$KEYHOLD" check "$cfg"

  # ---- audio + haptics in one run, as a user would run it
  ffdriver_start main || { fail "ffdriver created \"$RUMBLE\""; e2e_finish; return 1; }
  pass "ffdriver created \"$RUMBLE\" (${FF_DEV[main]})"
  # the capture side opens first and fixes the loopback's format: S16_LE, 48 kHz, mono
  local cap=$E2E_WORK/capture.wav
  arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 1 --buffer-time=100000 --period-time=5000 "$cap" \
    2> "$out/arecord.err" &
  local arec=$!; E2E_PIDS+=("$arec")
  if wait_until 10 grep -q RUNNING /proc/asound/Loopback/pcm1c/sub0/status; then pass "arecord is capturing hw:Loopback,1,0"
  else fail "arecord is capturing hw:Loopback,1,0"; cat "$out/arecord.err"; fi

  local t0; t0=$(now_us)
  "$KEYHOLD" feedback test --config "$cfg" --strict --pause 300 > "$out/feedback-test.out" 2> "$out/feedback-test.err"
  rc=$?
  log "keyhold feedback test: exit $rc after $(( ($(now_us) - t0) / 1000 )) ms"
  sed 's/^/    | /' "$out/feedback-test.out"; sed 's/^/    ! /' "$out/feedback-test.err"
  check "keyhold feedback test --strict exits 0" test "$rc" -eq 0
  sleep 0.5
  kill -INT "$arec" 2>/dev/null; wait_exit "$arec" 10
  cp "$cap" "$out/capture.wav" 2>/dev/null
  ffdriver_stop main
  local ff=$out/ffdriver.main.log

  # -- audio: what keyhold says, then what the capture holds
  check "audio: opened hw:Loopback,0,0" grep -q '^audio: ALSA device "hw:Loopback,0,0" opened: 48000 Hz, 1 channel' "$out/feedback-test.out"
  check "audio: 4 of 4 sounds written (input, delete, system, custom)" grep -q '^audio: 4 of 4 sounds written' "$out/feedback-test.out"
  check "audio: no warning logged" test "$(grep -c '^<[0-4]>' "$out/feedback-test.err")" -eq 0
  local delays; delays=$(sed -n 's/.*first frame \([0-9.]*\) ms after play().*/\1/p' "$out/feedback-test.out" | tr '\n' ' ')
  log "audio: play() to first frame written (ms): $delays"
  local analysis; analysis=$(capture_analyse "$out/capture.wav" 2>&1)
  printf '%s\n' "$analysis" | sed 's/^/    /'
  printf '%s\n' "$analysis" > "$out/capture.txt"
  local peak; peak=$(awk '/^capture /{print $NF}' <<< "$analysis")
  check "capture is not silent (peak ${peak:-?})" test "${peak:-0}" -gt 1000
  mapfile -t S < <(awk '/^sound /{print $2, $3, $4}' <<< "$analysis")
  check "capture holds 4 sounds (found ${#S[@]})" test "${#S[@]}" -eq 4
  if [ "${#S[@]}" -eq 4 ]; then
    local names=(input delete system custom) maxms=(11 19 29 62) i ms pk
    for i in 0 1 2 3; do
      read -r _ ms pk <<< "${S[$i]}"
      if [ $i -lt 3 ]; then
        # the loopback is bit-exact: volume 0.5 puts every built-in sound's peak at 0.8*0.5*32767
        check "${names[$i]}: peak $pk = 13107 (volume 0.5, no clipping)" test "$pk" -ge 13105 -a "$pk" -le 13109
      else
        check "custom: peak $pk ~ 10000 (a 20000 WAV at volume 0.5)" test "$pk" -ge 9800 -a "$pk" -le 10100
      fi
      check "${names[$i]}: ${ms} ms long (2..${maxms[$i]} ms)" awk -v m="$ms" -v x="${maxms[$i]}" 'BEGIN{exit !(m >= 2 && m <= x)}'
    done
    local gaps; gaps=$(printf '%s\n' "${S[@]}" | awk 'NR>1{printf "%.0f ", ($1-p)*1000} {p=$1}')
    log "audio: sound onsets apart (ms): $gaps"
    check "sounds are spaced by the 300 ms pause (apart: $gaps)" \
      awk -v g="$gaps" 'BEGIN{n=split(g,a," "); for(i=1;i<=n;i++) if(a[i] < 250) exit 1}'
    local l0 l1 l2; l0=$(cut -d' ' -f2 <<< "${S[0]}"); l1=$(cut -d' ' -f2 <<< "${S[1]}"); l2=$(cut -d' ' -f2 <<< "${S[2]}")
    check "distinct lengths: input < delete < system ($l0 < $l1 < $l2 ms)" awk -v a="$l0" -v b="$l1" -v c="$l2" 'BEGIN{exit !(a < b && b < c)}'
  fi

  # -- key event -> first frame through the whole engine, on the loopback card
  "$KEYHOLD" feedback test --config "$cfg" --no-haptic --pause 0 --latency 50 > "$out/latency.out" 2> "$out/latency.err"
  local kl; kl=$(sed -n 's/^audio: key event -> first frame written, //p' "$out/latency.out")
  log "audio: key event -> first frame written: $kl"
  echo "audio key-event-to-first-frame: $kl" >> "$out/measurements.txt"
  check "latency run: all 50 key presses clicked" grep -q '^audio: key event -> first frame written, 50 of 50 presses' "$out/latency.out"

  # -- haptics: the driver's log
  check "haptic: keyhold found \"$RUMBLE\"" grep -q "^haptic: \"$RUMBLE\" (${FF_DEV[main]}): FF_RUMBLE, holds 16 effects, 10 uploaded" "$out/feedback-test.out"
  check "haptic: 7 of 7 patterns played" grep -q '^haptic: 7 of 7 patterns played' "$out/feedback-test.out"
  local want
  want=$(printf '%s\n' \
    "strong=16384 weak=8192 length=25 delay=0" "strong=32768 weak=16384 length=40 delay=0" \
    "strong=0 weak=12288 length=15 delay=0" "strong=65535 weak=32768 length=60 delay=0" \
    "strong=12288 weak=12288 length=30 delay=0" "strong=36864 weak=24576 length=45 delay=90" \
    "strong=36864 weak=20480 length=50 delay=0" "strong=36864 weak=20480 length=50 delay=120" \
    "strong=65535 weak=40960 length=70 delay=0" "strong=65535 weak=40960 length=90 delay=130")
  local got; got=$(sed -n 's/^upload id=[0-9]* type=rumble //p' "$ff")
  check "driver: 10 FF_RUMBLE uploads, exactly the pattern table" test "$got" = "$want"
  check "driver: uploads are one per pulse, ids 0..9" test "$(sed -n 's/^upload id=\([0-9]*\).*/\1/p' "$ff" | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 "
  check "driver: 10 plays (7 patterns, 3 of them two pulses)" test "$(ff_count "$ff" '^play .* value=1$')" -eq 10
  check "driver: every uploaded effect played once" test "$(sed -n 's/^play .* effect=\([0-9]*\) value=1$/\1/p' "$ff" | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 "
  check "driver: 10 erases when keyhold closed the device" test "$(ff_count "$ff" '^erase ')" -eq 10
  check "driver: no failed upload" grep -q 'failed_uploads=0' "$ff"
  # write-to-driver delay: keyhold prints its monotonic time per play, the driver its receive time
  awk '/^haptic: .* played at /{for (i = 1; i <= NF; i++) if ($i == "at") print $(i + 1)}' "$out/feedback-test.out" > "$E2E_WORK/sent"
  local lat
  lat=$("$PY" - "$E2E_WORK/sent" "$ff" <<'EOF'
import sys
sent = [float(x) for x in open(sys.argv[1])]
plays = [float(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("play ") and l.rstrip().endswith("value=1")]
firsts, prev = [], None          # the first EV_FF of each pattern (two-pulse patterns send two at once)
for t in plays:
    if prev is None or t - prev > 0.005: firsts.append(t)
    prev = t
if len(firsts) != len(sent): print("n/a (%d sent, %d received)" % (len(sent), len(firsts))); sys.exit()
d = sorted((r - s) * 1000 for s, r in zip(sent, firsts))
print("min %.3f median %.3f max %.3f ms over %d patterns" % (d[0], d[len(d) // 2], d[-1], len(d)))
EOF
)
  log "haptic: keyhold's play() to the driver reading EV_FF: $lat"
  echo "haptic play-to-driver: $lat" >> "$out/measurements.txt"
  echo "audio play-to-first-frame (ms): $delays" >> "$out/measurements.txt"

  # ---- the daemon: what a user gets from a key press and from a callout ------------------------
  # The same configuration as above (volume 0.5: every built-in sound peaks at 13107). The capture
  # runs before keyhold opens the loopback, so it fixes the format again. The source keyboard
  # exists before keyhold starts and is grabbed at start: no wait_flowing, whose taps would click.
  ffdriver_start run || fail "ffdriver (daemon part) created"
  local dcap=$E2E_WORK/capture-run.wav dff=${FF_LOG[run]}
  arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 1 --buffer-time=100000 --period-time=5000 "$dcap" \
    2> "$out/arecord-run.err" &
  arec=$!; E2E_PIDS+=("$arec")
  wait_until 10 grep -q RUNNING /proc/asound/Loopback/pcm1c/sub0/status || fail "arecord (daemon part) is capturing"
  src_start kb "Keyhold Feedback E2E Keyboard" || fail "source keyboard created"
  if keyhold_start "$cfg" --control none; then
    check "daemon: keyhold run opened hw:Loopback,0,0" wait_until 5 grep -q 'audio: ALSA device "hw:Loopback,0,0": 48000 Hz, 1 channel' "$out/keyhold.log"
    check "daemon: keyhold run found \"$RUMBLE\"" wait_until 5 grep -q "haptics: rumble on \"$RUMBLE\" (${FF_DEV[run]})" "$out/keyhold.log"
    check "daemon: the source keyboard is grabbed" wait_until 10 grep -q "grabbed ${SRC_DEV[kb]} " "$out/keyhold.log"
    local light medium mark
    light=$(ff_effect_id "$dff" "strong=16384 weak=8192 length=25 delay=0")
    medium=$(ff_effect_id "$dff" "strong=32768 weak=16384 length=40 delay=0")
    check "daemon: lightImpact (${light:-none}) and mediumImpact (${medium:-none}) uploaded" test -n "$light" -a -n "$medium"
    sleep 0.5                                       # nothing may have played yet: a quiet start
    # x is forwarded: it must still get the standard press feedback (input click, lightImpact)
    mark=$(wc -l < "$dff")
    record_start x "$KH_DEV" -n 2 -t 10
    src_send kb "d x" "u x"
    record_wait x 15
    check "daemon: x forwarded to the virtual keyboard" test "$(record_keys x | tr '\n' ' ')" = "45 1 45 0 "
    check "daemon: x -> the driver played lightImpact" wait_until 5 ff_played_after "$dff" "$mark" "$light"
    check "daemon: x -> no mediumImpact played" eval "! ff_played_after '$dff' '$mark' '$medium'"
    sleep 1                                         # a second of silence between the two sounds
    # e held past the long press: the callout opens with mediumImpact and the system click
    mark=$(wc -l < "$dff")
    src_send kb "d e" "t 600" "u e"
    src_sync kb
    check "daemon: hold e 600 ms (callout opens) -> the driver played mediumImpact" \
      wait_until 5 ff_played_after "$dff" "$mark" "$medium"
    sleep 0.5                                       # the system click is 28 ms: let it reach the capture
    keyhold_stop 10; rc=$?
    check "daemon: SIGTERM -> keyhold exits 0" test "$rc" -eq 0
  else
    fail "daemon: keyhold run started"; tail -20 "$out/keyhold.log"
  fi
  kill -INT "$arec" 2>/dev/null; wait_exit "$arec" 10
  cp "$dcap" "$out/capture-run.wav" 2>/dev/null
  src_stop kb
  ffdriver_stop run
  dff=$out/ffdriver.run.log
  check "daemon: every uploaded effect erased when keyhold stopped" \
    test "$(ff_count "$dff" '^upload ')" -ge 1 -a "$(ff_count "$dff" '^erase ')" -eq "$(ff_count "$dff" '^upload ')"
  analysis=$(capture_analyse "$out/capture-run.wav" 2>&1)
  printf '%s\n' "$analysis" | sed 's/^/    /'
  printf '%s\n' "$analysis" > "$out/capture-run.txt"
  # expected: x's input click, then e's press click, then (the long press) the system click
  mapfile -t S < <(awk '/^sound /{print $2, $3, $4}' <<< "$analysis")
  local x_ms x_pk sys_ms sys_pk gap
  read -r _ x_ms x_pk <<< "${S[0]:-0 0 0}"
  check "daemon: x -> the capture's first sound is an input click ($x_ms ms, peak $x_pk)" \
    awk -v m="$x_ms" -v p="$x_pk" 'BEGIN{exit !(m >= 2 && m <= 11 && p >= 13105 && p <= 13109)}'
  # the system click: after x's click, a sound of the system sound's length (input's is 10 ms,
  # delete's 18, system's 28); gap: from the sound before it (e's press click, if it has one)
  read -r sys_ms sys_pk gap <<< "$(printf '%s\n' "${S[@]}" | awk 'NR > 1 && $2 >= 21 && $2 <= 29 { print $2, $3, int(($1 - p) * 1000); exit } { p = $1 }')"
  check "daemon: hold e -> the capture holds the system click after x's (${sys_ms:-none} ms, peak ${sys_pk:-?}, ${gap:-?} ms after the sound before it)" \
    awk -v m="${sys_ms:-0}" -v p="${sys_pk:-0}" 'BEGIN{exit !(m >= 21 && m <= 29 && p >= 13105 && p <= 13109)}'

  # ---- failures
  # a missing sound card: one warning, exit 0; --strict makes it exit 1
  "$KEYHOLD" feedback test --audio-device hw:7,0 --no-haptic > "$out/nocard.out" 2> "$out/nocard.err"; rc=$?
  sed 's/^/    | /' "$out/nocard.out"; sed 's/^/    ! /' "$out/nocard.err"
  check "no sound card: exit 0" test "$rc" -eq 0
  check "no sound card: reported" grep -q '^audio: ALSA device "hw:7,0" not available' "$out/nocard.out"
  check "no sound card: exactly one warning" test "$(grep -c '^<4>' "$out/nocard.err")" -eq 1
  check "no sound card: alsa-lib's own messages are not on stderr" test "$(grep -c 'ALSA lib' "$out/nocard.err")" -eq 0
  "$KEYHOLD" feedback test --audio-device hw:7,0 --no-haptic --strict > /dev/null 2>&1; rc=$?
  check "no sound card with --strict: exit 1" test "$rc" -eq 1

  # no rumble device (only the PS/2 keyboard): one line, haptics off
  "$KEYHOLD" feedback test --config "$cfg" --no-audio --haptic-device "" > "$out/norumble.out" 2> "$out/norumble.err"; rc=$?
  sed 's/^/    | /' "$out/norumble.out"; sed 's/^/    ! /' "$out/norumble.err"
  check "no rumble device: exit 0, reported" grep -q '^haptic: no device: no input device with force feedback' "$out/norumble.out"
  check "no rumble device: one log line" test "$(grep -c 'haptics' "$out/norumble.err")" -eq 1

  # the rumble device is unplugged while keyhold plays: one warning, later patterns skipped
  ffdriver_start gone || fail "ffdriver (second) created"
  "$KEYHOLD" feedback test --config "$cfg" --no-audio --pause 600 > "$out/unplug.out" 2> "$out/unplug.err" &
  local kh=$!; E2E_PIDS+=("$kh")
  if wait_until 30 eval "[ \$(ff_count '${FF_LOG[gone]}' '^play ') -ge 2 ]"; then
    ffdriver_stop gone
    wait_exit "$kh" 30; rc=$?
    sed 's/^/    | /' "$out/unplug.out"; sed 's/^/    ! /' "$out/unplug.err"
    check "unplugged mid-run: keyhold went on and exited 0" test "$rc" -eq 0
    check "unplugged mid-run: exactly one warning" test "$(grep -c '^<4>' "$out/unplug.err")" -eq 1
    check "unplugged mid-run: the warning says the device is gone" grep -q 'is gone' "$out/unplug.err"
    check "unplugged mid-run: later patterns were not played" grep -q 'NOT played' "$out/unplug.out"
  else
    fail "unplug test: the driver saw no plays"; ffdriver_stop gone
  fi
  e2e_finish
}

host() {
  # shellcheck source=host.sh
  . "$HERE/host.sh"
  e2e_host feedback-e2e feedback --pkgs alsa-utils KEYHOLD FFDRIVER="$E2E_VMDIR/bin/ffdriver" VM_TIMEOUT="${VM_TIMEOUT:-300}"
}

# after vm.sh setup: keyhold (not e2e_host --keyhold: the debug build by default, built if
# missing), which must have `feedback test`; the ffdriver tool
host_after_setup() {
  KEYHOLD=${KEYHOLD:-$E2E_REPO/.build/debug/keyhold}
  if [ ! -x "$KEYHOLD" ]; then
    echo "feedback-e2e: building keyhold"; (cd "$E2E_REPO" && swift build --product keyhold) || return 1
  fi
  if ! "$KEYHOLD" feedback test --help > /dev/null 2>&1; then
    echo "feedback-e2e: $KEYHOLD has no 'feedback test' command (FeedbackCommand not registered?)"
    return 1
  fi
  mkdir -p "$E2E_VMDIR/bin"
  if [ ! -x "$E2E_VMDIR/bin/ffdriver" ] || [ "$HERE/ffdriver.c" -nt "$E2E_VMDIR/bin/ffdriver" ]; then
    gcc -O2 -Wall -Wextra -o "$E2E_VMDIR/bin/ffdriver" "$HERE/ffdriver.c" || return 1
  fi
}

# in the emptied results folder: the custom sound, 60 ms of 440 Hz, 44.1 kHz stereo, peak 20000
# (converted to 48 kHz mono)
host_before_guest() {
  "$PY" - "$E2E_RESDIR/custom.wav" <<'EOF'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(44100)
n = int(0.06 * 44100)
frames = b"".join(struct.pack("<hh", v, v) for v in (round(20000 * math.sin(2 * math.pi * 440 * i / 44100)) for i in range(n)))
w.writeframes(frames); w.close()
EOF
}

host_after_guest() {
  [ -f "$E2E_RESDIR/measurements.txt" ] && sed 's/^/feedback-e2e: /' "$E2E_RESDIR/measurements.txt"
  echo "feedback-e2e: total $((SECONDS - E2E_T0)) s"
}

if [ "${1:-}" = --guest ]; then guest; else host; fi
