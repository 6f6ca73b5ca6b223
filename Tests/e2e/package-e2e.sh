#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2153   # eval'd check expressions in single quotes; PKG_* etc. come from the host
# package-e2e.sh - the Debian package (make deb) installed, upgraded, removed and purged with apt in
# a QEMU guest booted with systemd (VM_SYSTEMD=1), on a machine without a Swift toolchain: the
# package built on Debian 12 checked on Debian 12 (the host's root) and again on Debian 13 (a
# trixie root and kernel: vm.sh VM_RELEASE=trixie, Tests/e2e/roots/trixie.pkgs), where it must
# install from that release's libraries.
#
#   Tests/e2e/package-e2e.sh            # host: make deb-only of the release binaries ($KEYHOLD, else
#                                       # built), lintian, vm.sh setup, boot, print the results
#   Tests/e2e/package-e2e.sh --guest    # what runs inside the guest (needs the host side's env)
#
# The package upgraded from: KEYHOLD_PREV_DEB=path/to/keyhold_OLD_amd64.deb (an earlier release),
# else the same binaries packaged again as version VERSION~prev. That tests the upgrade path of the
# maintainer scripts (conffile kept, one restart), with the new package's scripts on both sides;
# it does not test an older binary or older scripts. Building the previous commit's package
# instead costs a release build of both programs from a clean tree (2¾ minutes measured on the
# 2-core machine, more under load; this whole suite takes 5¼), and no commit before this suite
# has `make deb` to build it with.
#
# The guest is a Debian machine as a user has it, but for: the host container's policy-rc.d (which
# forbids maintainer scripts to start services) is removed, and apt is given no package source (the
# guest has no network, and the package's dependencies are installed), so it reads no package lists.
#
# Checks, each PASS/FAIL (host: lintian; the rest in the guest):
#   lintian    no error (warnings are printed)
#   machine    systemd is PID 1; the Swift toolchain is hidden (an empty tmpfs over its directory)
#   install    `apt install ./keyhold_VERSION.deb` on a machine that never had Keyhold: installed,
#              `keyhold --version` says the package's version, every library found without the
#              toolchain; keyhold user and group; keyhold.service enabled and active as user
#              keyhold; the probe keyboard grabbed; hold e, 2 types é in an application on a VT;
#              keyhold-session.service enabled for users (--global); the settings window in the
#              menus (its desktop entry) and starting as a user; config.toml a conffile
#   kde        `keyhold-session --take-input-method` (what the companion does at a KDE login): KWin's
#              input method selected in a user's kwinrc where none was, left alone where the user
#              chose fcitx5
#   remove     `apt remove`: service stopped, keyboard let go, virtual keyboard gone, no ACL for
#              keyhold left, the configuration kept, the programs gone; the KDE user's kwinrc as
#              before the install, the other's untouched
#   purge      `apt purge`: no file of the package, no user, no group, no device ACL different
#              from before the install, no keyhold unit enabled or masked, /etc/keyhold gone, and
#              the file list equal to the one before (all of /etc and /usr/local, the directories
#              of units, udev rules, sysusers.d, modules-load.d, libinput quirks, deb-systemd-helper's
#              state; the names with keyhold in /usr/bin, /usr/sbin and dpkg's database)
#   converge   `make install-files` of the same tree, then `apt install` of the package: the copy
#              in /usr/local is gone, the service runs the package's binary, and the file list
#              equals the one after the plain install (Debian 12 only: make's files and dpkg's
#              are the same on 13)
#   upgrade    the previous package installed (a downgrade), config.toml edited, then `apt install`
#              of the new one: the edit kept and in effect (hold e, 1 types ë), the service
#              restarted exactly once (one more daemon start in the journal, a new InvocationID,
#              NRestarts=0)
#   boot       the same machine booted again (its overlay on a disk, VM_DISK), cold, to
#              multi-user.target as a machine boots: the service the package enabled starts beside
#              logind (ordered after it) and follows seat0's active session; a keyboard plugged in
#              then is grabbed; a user's graphical login (sway in a logind session, its config
#              starting keyhold-session as the README says): hold e, 2 types é in foot
#
# Results go to $E2E_RESULTS/package (default <repo>/e2e-results/package): counts, lintian.txt,
# apt logs, file lists; Debian 13's in package/trixie (its checks' names begin "Debian 13: "). The
# last line is "N passed, N failed"; exit status non-zero on any failure.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

SRC_NAME="Keyhold Package E2E Keyboard"
CONFIG=/etc/keyhold/config.toml
K_E=18

# ----------------------------------------------------------------------------------------------
# guest side
# ----------------------------------------------------------------------------------------------

unit_prop() { systemctl show -P "$1" keyhold.service; }
starts() { journalctl -q -o cat -u keyhold.service --no-pager | grep -c ' starting, configuration ' || true; }
# hold_pick KEY N: hold KEY 650 ms, then press digit N (picks candidate N of the callout)
hold_pick() { src_send kb "d $1" "t 650" "u $1" "t 60" "d $(( $2 + 1 ))" "u $(( $2 + 1 ))"; }
# apt_do NAME ARGS...: apt as a user runs it, unattended (--force-confold stands in for the answer
# "keep yours" that a changed default configuration would ask for), on a machine with no package
# source (the guest has no network; the package's dependencies are installed): apt then reads no
# package lists, 10 s less per run under TCG. Log in $E2E_OUT/apt-NAME.log.
APT_OFFLINE=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/tmp/apt-lists -o Dir::State::Lists=/tmp/apt-lists
             -o Dir::Cache::pkgcache=/tmp/apt-pkgcache.bin -o Dir::Cache::srcpkgcache=/tmp/apt-srcpkgcache.bin)
apt_do() {
  local name=$1 t0=$SECONDS rc=0; shift
  mkdir -p /tmp/apt-lists/partial
  DEBIAN_FRONTEND=noninteractive apt "${APT_OFFLINE[@]}" "$@" -y -o Dpkg::Options::=--force-confdef \
    -o Dpkg::Options::=--force-confold < /dev/null > "$E2E_OUT/apt-$name.log" 2>&1 || rc=$?
  log "apt $* took $((SECONDS - t0)) s (exit $rc)"
  return $rc
}
# snapshot FILE: every file, link and directory under the directories a package, make install or
# their scripts write to (/etc whole), with type, mode, owner and link target (an owner that no
# longer exists shows as a number); in the big shared ones (/usr/bin, dpkg's database) those named
# keyhold: stat over 9p is slow under TCG
snapshot() {
  local fmt='%y %m %u:%g %p -> %l\n'
  { find /etc /usr/local /usr/lib/systemd /usr/lib/udev/rules.d /usr/lib/sysusers.d /usr/lib/modules-load.d \
      /usr/share/libinput /usr/share/doc/keyhold -printf "$fmt" 2> /dev/null
    find /usr/bin /usr/sbin /var/lib/dpkg/info -name '*keyhold*' -printf "$fmt"
    find /var/lib/systemd -path '*deb-systemd*' -printf "$fmt" 2> /dev/null
  } | LC_ALL=C sort > "$1"
}
# same_files A B: the two lists are equal, else the difference is shown
same_files() { diff "$1" "$2" > "$E2E_WORK/diff" && return 0; cat "$E2E_WORK/diff"; return 1; }
acls() { getfacl -p /dev/input/event* /dev/uinput /dev/snd/* /dev/tty[0-9]* 2> /dev/null; }
no_keyhold_acl() { ! getfacl -p /dev/input/event* /dev/uinput /dev/snd/* /dev/tty[0-9]* 2> /dev/null | grep -q keyhold; }
installed_ok() { [ "$(dpkg-query -W -f='${Status} ${Version}' keyhold 2> /dev/null)" = "install ok installed $1" ]; }
kh_dev() { "$PROBE" find "$KH_NAME" -t 10; }
# service_up: active as user keyhold, the probe keyboard flowing into the virtual keyboard
service_up() {
  check "keyhold.service active" wait_until 30 systemctl is-active --quiet keyhold.service || return 1
  check "runs as user keyhold (uid $(stat -c %u "/proc/$(unit_prop MainPID)"))" \
    test "$(stat -c %U "/proc/$(unit_prop MainPID)")" = keyhold
  KH_DEV=$(kh_dev)
  check "the probe keyboard is grabbed and flows into the virtual keyboard ($KH_DEV)" wait_flowing kb "$KH_DEV" 20
}

guest() {
  # shellcheck source=SCRIPTDIR/lib.sh
  . "$HERE/lib.sh"
  e2e_init || { e2e_finish; return 1; }
  local v_new=$PKG_VERSION v_prev t0=$SECONDS
  v_prev=$(dpkg-deb -f "$PKG_PREV" Version)

  # ---- the machine: systemd, udevd; no Swift toolchain; no container's policy-rc.d
  log "the machine: $(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), systemd $(systemctl --version | awk 'NR==1{print $2}')"
  check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
  check "systemd-udevd is running" wait_until 30 systemctl is-active --quiet systemd-udevd.service
  mkdir -p "$SWIFT_ROOT"   # (the host's path: a Debian 13 root has no such directory)
  mount -t tmpfs -o mode=0755,size=64k keyhold-no-swift "$SWIFT_ROOT"
  check "the Swift toolchain is hidden ($SWIFT_ROOT is empty, swift cannot run)" \
    eval '[ -z "$(ls -A "$SWIFT_ROOT")" ] && ! swift --version > /dev/null 2>&1'
  # The host is a container whose policy-rc.d forbids maintainer scripts to start services; a real
  # machine has none.
  rm -f /usr/sbin/policy-rc.d
  if ! src_start kb "$SRC_NAME"; then fail "probe source keyboard created"; e2e_finish; return 1; fi
  udevadm settle -t 15
  # the application on VT 2 first: openvt makes its VT root:root, which is not the package's doing
  check "console app started on VT 2" vt_start
  # two KDE users: one with a kwinrc of their own and no input method, one with fcitx5 chosen
  local kwinrc_kde=/home/kdeuser/.config/kwinrc kwinrc_fx=/home/fxuser/.config/kwinrc
  useradd -m -s /bin/sh kdeuser && useradd -m -s /bin/sh fxuser
  runuser -u kdeuser -- sh -c 'mkdir -p ~/.config && printf "[General]\nfoo=bar\n" > ~/.config/kwinrc'
  runuser -u fxuser -- sh -c 'mkdir -p ~/.config && printf "[Wayland]\nInputMethod=/usr/share/applications/org.fcitx.Fcitx5.desktop\n" > ~/.config/kwinrc'
  cp "$kwinrc_kde" "$E2E_WORK/kwinrc-kde.before"; cp "$kwinrc_fx" "$E2E_WORK/kwinrc-fx.before"
  snapshot "$E2E_OUT/files-before.txt"
  acls > "$E2E_OUT/acl-before.txt"
  # Its binaries' packed relocations need glibc 2.36: the package says so (a system with less
  # would refuse it instead of installing a daemon that cannot start).
  check "the package needs libc6 (>= 2.36), as its binaries' packed relocations do" \
    eval 'dpkg-deb -f "$PKG_NEW" Depends | grep -q "libc6 (>= 2.36)"'
  check "no keyhold user, group or package before" eval '! getent passwd keyhold && ! getent group keyhold && ! dpkg-query -W keyhold'

  # ---- install on a machine that never had Keyhold
  check "apt install ./$(basename "$PKG_NEW")" apt_do install install "$PKG_NEW"
  check "installed: keyhold $v_new" installed_ok "$v_new"
  check "keyhold --version says the package's version ($(keyhold --version 2>&1))" test "$(keyhold --version)" = "$v_new"
  ldd /usr/bin/keyhold /usr/bin/keyhold-session /usr/bin/keyhold-settings > "$E2E_OUT/ldd.txt" 2>&1
  check "the three programs find every library without the toolchain (ldd)" \
    eval '! grep -q "not found" "$E2E_OUT/ldd.txt" && ! grep -q "$SWIFT_ROOT" "$E2E_OUT/ldd.txt"'
  check "keyhold user and group exist (system ids)" \
    eval '[ "$(id -u keyhold)" -lt 1000 ] && [ "$(getent group keyhold | cut -d: -f3)" -lt 1000 ]'
  check "keyhold.service enabled" systemctl is-enabled --quiet keyhold.service
  service_up
  hold_pick $K_E 2
  check "typing: hold e, 2 -> é on the VT" vt_expect 'e\177\303\251'
  vt_clear
  check "keyhold-session.service enabled for users (systemctl --global: $(systemctl --global is-enabled keyhold-session.service 2>&1))" \
    test "$(systemctl --global is-enabled keyhold-session.service)" = enabled
  check "the settings window is in the desktop's menus (its entry runs /usr/bin/keyhold-settings)" \
    grep -qx 'Exec=/usr/bin/keyhold-settings' /usr/share/applications/org.keyhold.Settings.desktop
  check "keyhold-settings starts (--help, as a user)" eval 'runuser -u kdeuser -- /usr/bin/keyhold-settings --help | grep -q "^usage: keyhold-settings"'
  check "the fcitx5 addon is where fcitx5 loads addons, its description where it reads them" \
    test -f "$(dpkg -L keyhold | grep '/fcitx5/libkeyhold\.so$')" -a -f /usr/share/fcitx5/addon/keyhold.conf
  check "$CONFIG is a conffile" eval 'dpkg-query -W -f="\${Conffiles}" keyhold | grep -q "^ $CONFIG "'
  snapshot "$E2E_OUT/files-installed.txt"
  dpkg -L keyhold > "$E2E_OUT/package-files.txt"

  # ---- KDE: the companion selects Keyhold as KWin's input method where none is (as at a
  # login), never where the user chose another
  check "kdeuser: keyhold-session --take-input-method ($(runuser -u kdeuser -- /usr/bin/keyhold-session --take-input-method 2>&1))" \
    grep -qx 'InputMethod=/usr/.*/applications/keyhold-session-kwin.desktop' "$kwinrc_kde"
  check "fxuser: it leaves fcitx5 as chosen ($(runuser -u fxuser -- /usr/bin/keyhold-session --take-input-method 2>&1))" \
    same_files "$E2E_WORK/kwinrc-fx.before" "$kwinrc_fx"

  # ---- remove: stopped, configuration kept
  check "apt remove keyhold" apt_do remove remove keyhold
  check "removed, configuration kept (dpkg state rc)" \
    test "$(dpkg-query -W -f='${db:Status-Abbrev}' keyhold 2> /dev/null | tr -d ' ')" = rc
  check "the service is stopped" eval '! systemctl is-active --quiet keyhold.service'
  check "the virtual keyboard is gone" eval '! "$PROBE" find "$KH_NAME" -t 2'
  check "the probe keyboard is let go" "$PROBE" grabbed "${SRC_DEV[kb]}" -r -t 5
  check "no device ACL for keyhold left" no_keyhold_acl
  check "the configuration stays ($CONFIG)" test -f "$CONFIG"
  check "the programs are gone" test ! -e /usr/bin/keyhold -a ! -e /usr/bin/keyhold-session -a ! -e /usr/bin/keyhold-settings
  check "the fcitx5 addon is gone" test ! -e /usr/share/fcitx5/addon/keyhold.conf
  check "kdeuser's kwinrc is as before the install (the input method given back)" same_files "$E2E_WORK/kwinrc-kde.before" "$kwinrc_kde"
  check "fxuser's kwinrc is untouched (fcitx5)" same_files "$E2E_WORK/kwinrc-fx.before" "$kwinrc_fx"
  check "no record of it is left in kdeuser's state directory" test ! -e /home/kdeuser/.local/state/keyhold/kwin-input-method

  # ---- purge: as before the install
  check "apt purge keyhold" apt_do purge purge keyhold
  check "purged: dpkg knows no keyhold" eval '! dpkg-query -W -f="\${db:Status-Abbrev}" keyhold 2> /dev/null | grep -q "^[a-z]"'
  check "no file of the package is left" eval '! while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"; done < "$E2E_OUT/package-files.txt" | grep .'
  check "no keyhold user, no keyhold group" eval '! getent passwd keyhold && ! getent group keyhold'
  acls > "$E2E_OUT/acl-purged.txt"
  check "device ACLs as before the install" same_files "$E2E_OUT/acl-before.txt" "$E2E_OUT/acl-purged.txt"
  check "no keyhold unit enabled, masked or known to systemd" \
    eval '! systemctl is-enabled keyhold.service && ! systemctl --global is-enabled keyhold-session.service \
          && ! find /etc/systemd -name "*keyhold*" | grep .'
  check "/etc/keyhold is gone" test ! -e /etc/keyhold
  snapshot "$E2E_OUT/files-purged.txt"
  check "the files are exactly as before the install" same_files "$E2E_OUT/files-before.txt" "$E2E_OUT/files-purged.txt"

  # ---- make install of the same tree, then the package over it (on the host's release only:
  # what it checks, make's files and dpkg's, does not change with the release)
  if [ "${PKG_CONVERGE:-1}" = 1 ]; then
    check "make install-files BINARY=$KEYHOLD" eval 'make -C "$REPO" --no-print-directory install-files BINARY="$KEYHOLD" > "$E2E_OUT/make-install.log" 2>&1'
    check "make install: keyhold.service active from /usr/local" \
      eval 'wait_until 30 systemctl is-active --quiet keyhold.service && [ "$(unit_prop FragmentPath)" = /usr/local/lib/systemd/system/keyhold.service ]'
    check "apt install ./$(basename "$PKG_NEW") over make install" apt_do over-make install "$PKG_NEW"
    check "no Keyhold file left in /usr/local" eval '! find /usr/local -name "*keyhold*" | grep .'
    check "the service runs the package's unit and binary ($(unit_prop FragmentPath))" \
      eval 'wait_until 30 systemctl is-active --quiet keyhold.service && [ "$(readlink -f "$(unit_prop FragmentPath)")" = /usr/lib/systemd/system/keyhold.service ] \
            && [ "$(readlink /proc/$(unit_prop MainPID)/exe)" = /usr/bin/keyhold ]'
    snapshot "$E2E_OUT/files-over-make.txt"
    check "the files are exactly those of the plain install" same_files "$E2E_OUT/files-installed.txt" "$E2E_OUT/files-over-make.txt"
    KH_DEV=$(kh_dev)
    check "the probe keyboard is grabbed" wait_flowing kb "$KH_DEV" 20
    hold_pick $K_E 2
    check "typing: hold e, 2 -> é" vt_expect 'e\177\303\251'
    vt_clear
  fi

  # ---- upgrade from the previous package, with an edited configuration (the previous package is
  # put back by a downgrade: one apt run less than a purge and a fresh install, about 40 s here)
  check "apt install ./$(basename "$PKG_PREV") (the previous package, $v_prev)" apt_do install-prev install --allow-downgrades "$PKG_PREV"
  check "keyhold.service active under $v_prev" eval 'installed_ok "$v_prev" && wait_until 30 systemctl is-active --quiet keyhold.service'
  sed -i '/^\[callouts.custom\]/a e = ["ë", "é"]' "$CONFIG"
  cp "$CONFIG" "$E2E_WORK/config.edited"
  local inv starts0
  inv=$(unit_prop InvocationID); starts0=$(starts)
  check "apt install ./$(basename "$PKG_NEW") (upgrade $v_prev -> $v_new)" apt_do upgrade install "$PKG_NEW"
  check "installed: keyhold $v_new" installed_ok "$v_new"
  check "the edited $CONFIG is kept" cmp "$CONFIG" "$E2E_WORK/config.edited"
  check "keyhold.service active after the upgrade" wait_until 30 systemctl is-active --quiet keyhold.service
  sleep 2
  check "restarted exactly once (daemon starts $starts0 -> $(starts), new InvocationID, NRestarts=$(unit_prop NRestarts))" \
    eval '[ "$(starts)" -eq $((starts0 + 1)) ] && [ "$(unit_prop InvocationID)" != "$inv" ] && [ "$(unit_prop NRestarts)" = 0 ]'
  KH_DEV=$(kh_dev)
  check "the probe keyboard is grabbed again" wait_flowing kb "$KH_DEV" 20
  hold_pick $K_E 1
  check "the edited configuration is in effect: hold e, 1 -> ë" vt_expect 'e\177\303\253'
  vt_clear

  vt_stop
  src_stop kb

  # ---- the machine as the next boot finds it (the overlay is on the guest's disk): the package
  # installed, a user whose sway session starts the companion as the README says, and of the
  # units the host machine enables for multi-user.target (a database, interception-tools'
  # udevmon) only Debian's own and Keyhold's
  useradd -m -s /bin/sh kuser
  install -d -o kuser /home/kuser/.config/sway
  printf '%s\n' "output HEADLESS-1 mode 800x600" "xwayland disable" "exec keyhold-session" \
    "exec foot --title keyhold-foot sh -c 'stty raw -echo; exec cat >> /home/kuser/foot.txt'" > /home/kuser/.config/sway/config
  local units
  units=$(find /etc/systemd/system/multi-user.target.wants -mindepth 1 -printf '%f\n' | grep -vx keyhold.service)
  # shellcheck disable=SC2086   # one name per word
  [ -z "$units" ] || systemctl mask --quiet $units
  check "keyhold.service enabled for the next boot" systemctl is-enabled --quiet keyhold.service
  log "guest phases took $((SECONDS - t0)) s"
  e2e_finish
}

foot_shows() { [ "$(cat /home/kuser/foot.txt)" = "$1" ]; }
# boot_guest: the same machine booted again, cold, to multi-user.target as a machine boots (the
# service starts beside logind, as the package enabled it), then kuser's graphical login: sway in
# a logind session, its config starting the companion; hold e, 2 in foot.
boot_guest() {
  # shellcheck source=SCRIPTDIR/lib.sh
  . "$HERE/lib.sh"
  e2e_init || { e2e_finish; return 1; }
  local kuid
  check "booted to multi-user.target" wait_until 120 systemctl is-active --quiet multi-user.target
  check "keyhold.service started at boot, active as user keyhold" \
    eval 'systemctl is-active --quiet keyhold.service && [ "$(stat -c %U "/proc/$(unit_prop MainPID)")" = keyhold ]'
  check "ordered after systemd-logind.service" eval 'unit_prop After | grep -qw systemd-logind.service'
  journalctl -b -q -o cat --no-pager -u keyhold.service > "$E2E_OUT/keyhold-boot.log"
  check "it follows seat0's active session (logind)" grep -q "following seat0's active session" "$E2E_OUT/keyhold-boot.log"
  if ! src_start kb "$SRC_NAME"; then fail "probe source keyboard created"; e2e_finish; return 1; fi
  KH_DEV=$(kh_dev)
  check "the keyboard plugged in after the boot is grabbed" wait_flowing kb "$KH_DEV" 30
  kuid=$(id -u kuser)
  systemd-run --unit=kuser-sway -p PAMName=login -p User=kuser -p TTYPath=/dev/tty3 -p StandardInput=tty \
    -E XDG_SESSION_TYPE=wayland -E XDG_SESSION_CLASS=user -E LIBSEAT_BACKEND=logind -E KEYHOLD_DEBUG=1 \
    -E WLR_BACKENDS=headless,libinput -E WLR_RENDERER=pixman -E WLR_HEADLESS_OUTPUTS=1 -E WLR_LIBINPUT_NO_DEVICES=1 \
    sh -c "exec sway > /tmp/sway.log 2>&1" > /dev/null 2>&1
  check "logind: kuser's graphical login on VT 3" wait_until 30 eval "loginctl list-sessions --no-legend | grep -q 'kuser.*tty3'"
  chvt 3
  check "the companion its session started connects" \
    wait_until 90 eval 'journalctl -b -q -o cat --no-pager -u keyhold.service | grep -q "keyhold-session pid .* of uid $kuid (wayland) connected"'
  check "foot started" wait_until 60 test -e /home/kuser/foot.txt
  log "$(sway --version), foot $(foot --version | awk '{print $2}')"
  sleep 2
  src_type kb x   # sway sends the keymap to the seat's clients once a keyboard types
  hold_pick $K_E 2
  check "hold e, 2 in foot -> é (through the companion)" wait_until 20 foot_shows $'xe\177é'
  log "foot received: $(od -An -c /home/kuser/foot.txt | tr -s ' ')"
  journalctl -b -q -o cat --no-pager -u keyhold.service > "$E2E_OUT/keyhold-boot.log"
  cp /tmp/sway.log "$E2E_OUT/" 2> /dev/null
  src_stop kb
  e2e_finish
}

# ----------------------------------------------------------------------------------------------
# host side
# ----------------------------------------------------------------------------------------------

# The suite's parts of e2e_host (host.sh): the release programs, the packages and lintian, the
# toolchain to hide; each sets what the guest is given by name.
host_before_setup() {
  if [ -z "${KEYHOLD:-}" ]; then
    echo "package-e2e: building keyhold, keyhold-session and keyhold-settings (release)"
    (cd "$E2E_REPO" && for p in keyhold keyhold-session keyhold-settings; do swift build -c release --product $p > /dev/null || exit; done) \
      || return 1
  fi
  KEYHOLD=$(cd "$(dirname "${KEYHOLD:-$E2E_REPO/.build/release/keyhold}")" && pwd)/keyhold
  REPO=$E2E_REPO
  # the toolchain the guest hides: the directory above swift's bin/ (never / or /usr)
  SWIFT_ROOT=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
  case "$SWIFT_ROOT" in /|/usr) echo "package-e2e: swift is in $SWIFT_ROOT, which cannot be hidden"; return 1 ;; esac
}
# the package, and the one to upgrade from (see the header); lintian on the host
host_before_guest() {
  local results=$E2E_RESDIR arch
  mkdir -p "$results/debs"
  PKG_VERSION=$(make -s -C "$E2E_REPO" version); arch=$(dpkg --print-architecture)
  local mk=(make -s -C "$E2E_REPO" --no-print-directory deb-only BINARY="$KEYHOLD" DEB_OUT="$results/debs" DEB_STAGE=.build/deb-e2e)
  "${mk[@]}" > "$results/make-deb.log" 2>&1 || { cat "$results/make-deb.log"; return 1; }
  PKG_NEW=$results/debs/keyhold_${PKG_VERSION}_$arch.deb
  PKG_PREV=${KEYHOLD_PREV_DEB:-}
  if [ -z "$PKG_PREV" ]; then
    # gzip: xz took most of a minute for a package only this test installs
    DEB_COMPRESSION=gzip "${mk[@]}" DEB_VERSION="$PKG_VERSION~prev" > /dev/null 2>&1 || return 1
    PKG_PREV=$results/debs/keyhold_${PKG_VERSION}~prev_$arch.deb
  fi
  echo "package-e2e: $(tail -1 "$results/make-deb.log")"
  # lintian meanwhile, while the guest runs (it reads the package only)
  { lintian "$PKG_NEW" 2>&1 | grep -v '^running with root privileges' > "$results/lintian.txt"; } &
  LINTIAN_PID=$!
}
# lintian's verdict; then the second boot of the same disk (boot_guest), its results in boot/;
# then both boots again on Debian 13
host_after_guest() {
  local results=$E2E_RESDIR t=$SECONDS
  wait "$LINTIAN_PID"
  sed 's/^/package-e2e: lintian: /' "$results/lintian.txt"
  if ! grep -q '^E:' "$results/lintian.txt"; then E2E_PASSED=$((E2E_PASSED + 1)); echo "PASS lintian: no error"
  else E2E_FAILED=$((E2E_FAILED + 1)); echo "FAIL lintian reports errors"; fi
  boot_again "$results" "$results/disk.img"
  echo "package-e2e: Debian 12 took $((SECONDS - E2E_T0)) s"
  t=$SECONDS
  if VM_RELEASE=trixie "$HERE/vm.sh" setup; then
    local rc=0 dir=$results/trixie
    mkdir -p "$dir"
    # (the packages' folder seen too when the results are outside the repository)
    VM_HOST_PATHS="$results/debs" e2e_vm_run "$dir" "bash $HERE/package-e2e.sh --guest" "${GUEST_ARGS[@]}" VM_DISK="$dir/disk.img" \
      VM_RELEASE=trixie E2E_LABEL="Debian 13: " PKG_CONVERGE=0 || rc=$?
    add_counts "$dir" "$rc"
    boot_again "$dir" "$dir/disk.img" VM_RELEASE=trixie E2E_LABEL="Debian 13: "
  else
    E2E_FAILED=$((E2E_FAILED + 1)); echo "FAIL Debian 13: its root made (vm.sh setup, VM_RELEASE=trixie)"
  fi
  echo "package-e2e: Debian 13 took $((SECONDS - t)) s; total $((SECONDS - E2E_T0)) s; logs in $results"
}
# boot_again DIR DISK [ARG...]: the machine on DISK booted again (boot_guest), its results in
# DIR/boot; the disk is removed after it
boot_again() {
  local dir=$1 disk=$2 rc=0; shift 2
  mkdir -p "$dir/boot"
  e2e_vm_run "$dir/boot" "bash $HERE/package-e2e.sh --boot-guest" "${GUEST_ARGS[@]}" VM_DISK="$disk" \
    VM_SYSTEMD_TARGET=multi-user.target "$@" || rc=$?
  add_counts "$dir/boot" "$rc"
  rm -f "$disk"
}
# add_counts DIR RC: a guest's counts added to the suite's
add_counts() {
  e2e_guest_counts package-e2e "$1" "$2"
  E2E_PASSED=$((E2E_PASSED + E2E_P)) E2E_FAILED=$((E2E_FAILED + E2E_F))
}

host() {
  # shellcheck source=host.sh
  . "$HERE/host.sh"
  # Both boots on one disk, made anew: the second boot finds the first one's machine.
  local disk=${E2E_RESULTS:-$E2E_REPO/e2e-results}/package/disk.img
  GUEST_ARGS=(KEYHOLD REPO PKG_NEW PKG_PREV PKG_VERSION SWIFT_ROOT VM_SYSTEMD=1
              VM_TIMEOUT="${VM_TIMEOUT:-900}" VM_APPEND="systemd.show_status=0 ${VM_APPEND:-}")
  e2e_host package-e2e package --pkgs "acl sway foot" "${GUEST_ARGS[@]}" VM_DISK="$disk"
}

case "${1:-}" in
  --guest) guest ;;
  --boot-guest) boot_guest ;;
  *) host ;;
esac
