# host.sh - host-side helpers for Keyhold's end-to-end suites, sourced by each suite's host().

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
