#!/usr/bin/env bash
# vt-capture.sh - inside the test guest: an application on a Linux virtual console that writes
# every byte it receives to a file, so a test can check what a keyboard really typed (through
# the kernel's keymap, as a user's shell would get it).
#
#   vt-capture.sh start FILE [VT]          start it on VT (default 2), switch to it, wait till ready
#   vt-capture.sh wait FILE N [SEC]        wait until FILE holds >= N bytes (default 10 s)
#   vt-capture.sh expect FILE TEXT [SEC]   wait for as many bytes as TEXT has, then compare exactly
#                                          (TEXT goes through printf %b: '\r', '\x03', '\303\251')
#   vt-capture.sh clear FILE               empty FILE (the app appends, so this is safe)
#   vt-capture.sh stop FILE                end the app, switch back to VT 1
#
# The tty is in raw mode, so bytes arrive exactly as the keyboard produced them: Enter is \r,
# Ctrl+C is \x03, nothing is echoed or line-edited. VT_STTY="..." overrides the stty settings.
# The console keyboard is in Unicode mode (the kernel default): Alt + KP2 KP3 KP3 gives c3 a9.
set -euo pipefail

usage() { sed -n '2,15p' "$0" >&2; exit 2; }
now_us() { echo "${EPOCHREALTIME/./}"; }   # bash 5 builtin clock: no fork per poll

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# wait_size FILE N SEC: poll every 20 ms; a bounded wait instead of a fixed sleep
wait_size() {
  local end=$(( $(now_us) + ${3:-10} * 1000000 ))
  while [ "$(size "$1")" -lt "$2" ]; do
    [ "$(now_us)" -lt "$end" ] || return 1
    sleep 0.02
  done
}

show() { od -An -c "$1" | head -20 >&2; }

cmd=${1:-}; [ $# -ge 2 ] || usage
file=$2
case "$cmd" in
  start)
    vt=${3:-2}
    rm -f "$file.pid"; : > "$file"
    # The pid file is written after stty: keys typed between it and cat's first read wait in the
    # tty's input queue, so nothing is lost. Append mode lets `clear` truncate under the writer.
    # shellcheck disable=SC2016   # $1 and $VT_STTY expand in the app's shell
    VT_STTY=${VT_STTY:-raw -echo} openvt -c "$vt" -f -- \
      sh -c 'exec >>"$1"; stty $VT_STTY || exit 1; echo $$ > "$1.pid"; exec cat' vt-capture "$file"
    chvt "$vt"
    end=$(( $(now_us) + 10000000 ))
    until [ -s "$file.pid" ] && [ "$(fgconsole 2>/dev/null)" = "$vt" ]; do
      if [ "$(now_us)" -gt "$end" ]; then echo "vt-capture: app on VT $vt not ready after 10 s" >&2; exit 1; fi
      sleep 0.02
    done ;;
  wait)
    [ $# -ge 3 ] || usage
    if ! wait_size "$file" "$3" "${4:-10}"; then
      echo "vt-capture: $file has $(size "$file") of $3 bytes after ${4:-10} s:" >&2; show "$file"; exit 1
    fi ;;
  expect)
    [ $# -ge 3 ] || usage
    want=$(mktemp); trap 'rm -f "$want"' EXIT
    printf '%b' "$3" > "$want"
    wait_size "$file" "$(size "$want")" "${4:-10}" || true
    # a short grace period: catches extra bytes (e.g. doubled keys) arriving right behind
    sleep 0.1
    if ! cmp -s "$file" "$want"; then
      echo "vt-capture: $file differs from the expected text; got:" >&2; show "$file"
      echo "expected:" >&2; show "$want"; exit 1
    fi ;;
  clear) : > "$file" ;;
  stop)
    if [ -s "$file.pid" ]; then kill "$(cat "$file.pid")" 2>/dev/null || true; fi
    rm -f "$file.pid"; chvt 1 ;;
  *) usage ;;
esac
