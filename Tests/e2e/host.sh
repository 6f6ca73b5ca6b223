# shellcheck shell=bash
# host.sh - the host side of Keyhold's end-to-end suites, sourced first thing by each suite's
# host(), which then calls e2e_host. Needs the suite's $HERE (this folder).
#
# Set here: E2E_REPO (the repository), E2E_VMDIR (vm.sh's cache: $VM_DIR or /tmp/keyhold-vm).
# Set by e2e_host: E2E_T0 ($SECONDS at its start), E2E_RESDIR (the suite's results folder),
# E2E_PASSED and E2E_FAILED (the totals it prints last; a hook may add to them).
E2E_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E_VMDIR=${VM_DIR:-/tmp/keyhold-vm}

# e2e_host SUITE NAME [--qmp] [--keyhold] [--pkgs "PKG..."] [ARG...]: the whole host side of
# Tests/e2e/SUITE.sh; prints "N passed, N failed" last and returns non-zero on any failure.
#   1. --keyhold: build the release keyhold if $KEYHOLD is unset (in $E2E_SCRATCH if set), check
#      that it is executable, make its path absolute
#   2. the hook host_before_setup, if the suite defines it
#   3. vm.sh setup, with PKG... added to VM_EXTRA_PKGS
#   4. the hook host_after_setup
#   5. the results folder E2E_RESDIR = ${E2E_RESULTS:-<repo>/e2e-results}/NAME, emptied
#   6. the hook host_before_guest
#   7. --qmp: qmp.py serving the guest's host_keys requests (E2E_QMP=1 in the guest, VM_QMP)
#   8. one guest running "bash $HERE/SUITE.sh --guest" (e2e_vm_run, ARG... as described there)
#   9. its counts (e2e_guest_counts) into E2E_PASSED and E2E_FAILED
#  10. the hook host_after_guest: the suite's report and its "SUITE: ... total N s" line (from
#      E2E_T0); it may boot more guests and add their counts to E2E_PASSED and E2E_FAILED
# A step or hook that fails ends it there with "0 passed, 1 failed" (a hook says why first).
e2e_host() {
  local suite=$1 name=$2 qmp=0 keyhold=0 pkgs="" agent="" sock="" rc=0; shift 2
  while [ $# -gt 0 ]; do
    case $1 in
      --qmp) qmp=1 ;;
      --keyhold) keyhold=1 ;;
      --pkgs) pkgs=$2; shift ;;
      *) break ;;
    esac
    shift
  done
  # shellcheck disable=SC2034   # read by the suites' host_after_guest
  E2E_T0=$SECONDS
  E2E_RESDIR=${E2E_RESULTS:-$E2E_REPO/e2e-results}/$name
  local results=$E2E_RESDIR
  if [ "$keyhold" = 1 ]; then e2e_release_keyhold "$suite" || { echo "0 passed, 1 failed"; return 1; }; fi
  e2e_hook host_before_setup || { echo "0 passed, 1 failed"; return 1; }
  local setup_env=()
  [ -z "$pkgs" ] || setup_env=(VM_EXTRA_PKGS="$pkgs ${VM_EXTRA_PKGS:-}")
  env "${setup_env[@]}" "$HERE/vm.sh" setup || { echo "0 passed, 1 failed"; return 1; }
  e2e_hook host_after_setup || { echo "0 passed, 1 failed"; return 1; }
  rm -rf "$results"
  if [ "$qmp" = 1 ]; then mkdir -p "$results/.qmp"; else mkdir -p "$results"; fi
  e2e_hook host_before_guest || { echo "0 passed, 1 failed"; return 1; }
  if [ "$qmp" = 1 ]; then
    sock=$(mktemp -u "$E2E_VMDIR/qmp.XXXXXX")
    # the QMP agent answers the guest's host_keys requests until QEMU exits
    /usr/bin/python3 "$HERE/qmp.py" "$sock" serve "$results/.qmp" &
    agent=$!
    set -- E2E_QMP=1 VM_QMP="$sock" "$@"
  fi
  e2e_vm_run "$results" "bash $HERE/$suite.sh --guest" "$@" || rc=$?
  if [ -n "$agent" ]; then kill "$agent" 2>/dev/null; wait "$agent" 2>/dev/null; rm -f "$sock"; fi
  e2e_guest_counts "$suite" "$results" "$rc"
  E2E_PASSED=$E2E_P E2E_FAILED=$E2E_F
  e2e_hook host_after_guest
  echo "$E2E_PASSED passed, $E2E_FAILED failed"
  [ "$E2E_FAILED" -eq 0 ]
}

# e2e_hook NAME: runs the suite's function NAME if it defines one
e2e_hook() { if declare -F "$1" > /dev/null; then "$1"; fi; }

# e2e_vm_run OUT CMD [ARG...]: vm.sh run CMD with OUT read-write (VM_RWDIR) and, in the guest,
# E2E_OUT=OUT and E2E_PROBE (the probe tool) plus what ARG... names, in order:
#   NAME=VALUE      NAME set to VALUE in the guest
#   NAME            the caller's NAME passed as it is now, if set (e.g. KEYHOLD, DESKTOP_PHASES)
#   VM_KNOB=VALUE   a vm.sh knob (VM_SYSTEMD=1, VM_TIMEOUT=...), not passed to the guest
# $VM_ENV names more variables to pass, as with vm.sh. A guest of another release (VM_RELEASE=...)
# sees the repository and the probe's folder at the same paths. Returns vm.sh's exit status.
e2e_vm_run() {
  local out=$1 cmd=$2 arg names="E2E_OUT E2E_PROBE" vars; shift 2
  vars=(E2E_OUT="$out" E2E_PROBE="$E2E_VMDIR/bin/probe")
  for arg in "$@"; do
    case $arg in
      VM_*=*) vars+=("$arg") ;;
      *=*) vars+=("$arg"); names+=" ${arg%%=*}" ;;
      *) names+=" $arg"; if [ -n "${!arg+x}" ]; then vars+=("$arg=${!arg}"); fi ;;
    esac
  done
  env VM_HOST_PATHS="$E2E_REPO $E2E_VMDIR/bin ${VM_HOST_PATHS:-}" "${vars[@]}" VM_ENV="$names ${VM_ENV:-}" VM_RWDIR="$out" \
    "$HERE/vm.sh" run "$cmd"
}

# e2e_release_keyhold SUITE: sets KEYHOLD to an absolute path, building the release keyhold first
# when KEYHOLD is unset (with --scratch-path $E2E_SCRATCH if set); fails if it is not executable
e2e_release_keyhold() {
  local suite=$1
  if [ -z "${KEYHOLD:-}" ]; then
    echo "$suite: building keyhold (release)"
    local scratch=()
    [ -z "${E2E_SCRATCH:-}" ] || scratch=(--scratch-path "$E2E_SCRATCH")
    (cd "$E2E_REPO" && swift build -c release --product keyhold "${scratch[@]}" 2>&1 | tail -3) || return 1
    KEYHOLD=$(cd "$E2E_REPO" && swift build -c release "${scratch[@]}" --show-bin-path)/keyhold
  fi
  [ -x "$KEYHOLD" ] || { echo "$suite: $KEYHOLD is not executable"; return 1; }
  KEYHOLD=$(cd "$(dirname "$KEYHOLD")" && pwd)/$(basename "$KEYHOLD")
}

# e2e_guest_counts SUITE RESULTS RC: sets E2E_P and E2E_F from the counts the guest wrote to
# RESULTS/counts. A guest that did not finish, or vm.sh exiting with RC != 0, is a failure, and
# is said so under the suite's name.
e2e_guest_counts() {
  local suite=$1 results=$2 rc=$3
  E2E_P=0 E2E_F=0
  if [ -f "$results/counts" ]; then read -r E2E_P E2E_F < "$results/counts"
  else E2E_F=1; echo "$suite: the guest did not finish (vm.sh exit $rc)"; fi
  if [ "$rc" -ne 0 ] && [ "$E2E_F" -eq 0 ]; then E2E_F=1; echo "$suite: guest exit status $rc"; fi
}
