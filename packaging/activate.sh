# shellcheck shell=sh
# activate.sh - what makes Keyhold's installed files take effect on a machine, and what undoes it.
# The Makefile sources it (make install, make uninstall) and make deb copies it into the package's
# maintainer scripts, so both do the same steps. POSIX sh, no systemctl but daemon-reload (the
# package enables and starts units with deb-systemd-helper and deb-systemd-invoke, make with
# systemctl). Reads SYSUSERSDIR, UDEVRULESDIR and USERUNITDIR.

# keyhold_activate: the keyhold user and group (sysusers.d), the uinput module, the udev rules
# applied to the devices present (user keyhold's ACLs), systemd told of the units. Enabling and
# starting them is the caller's.
keyhold_activate() {
  systemd-sysusers "$SYSUSERSDIR/keyhold.conf"
  keyhold_remove_old_layout
  modprobe uinput 2>/dev/null || true
  keyhold_udev_reload --trigger
  keyhold_systemd_reload
}

# keyhold_deactivate: once the files are gone, udev and systemd forget them, and user keyhold's
# ACLs go from the device nodes (udev never takes back an ACL entry a rule's setfacl added).
keyhold_deactivate() {
  keyhold_udev_reload
  keyhold_drop_acls
  keyhold_systemd_reload
}

# keyhold_give_back_input_methods COMPANION: every user for whom the companion selected Keyhold
# as KWin's input method (its record in their state directory) gets kwinrc back as it was, each
# as themselves (nothing in a home is written as root), KWin told where their session runs.
# Before the companion's binary goes.
keyhold_give_back_input_methods() {
  [ -x "$1" ] || return 0
  getent passwd | while IFS=: read -r user _ uid _ _ home _; do
    [ -f "$home/.local/state/keyhold/kwin-input-method" ] || continue
    bus=""; [ -S "/run/user/$uid/bus" ] && bus="DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus"
    # shellcheck disable=SC2086   # no word when there is no bus
    runuser -u "$user" -- env -i HOME="$home" PATH=/usr/bin:/bin $bus "$1" --give-back-input-method || true
  done
}

# keyhold_delete_accounts: the keyhold user and group (what sysusers.d made).
keyhold_delete_accounts() {
  if getent passwd keyhold > /dev/null; then userdel keyhold; fi
  if getent group keyhold > /dev/null; then groupdel keyhold; fi
}

# keyhold_udev_reload [--trigger]: udevd rereads the rules and, with --trigger, replays the devices
# the rules match (keyboards, uinput, sound, virtual consoles). Nothing when udevd is not running
# (a chroot, a container): the rules apply at the next boot.
keyhold_udev_reload() {
  [ -S /run/udev/control ] || return 0
  udevadm control --reload
  if [ "${1:-}" = --trigger ]; then
    udevadm trigger --action=change --subsystem-match=input --subsystem-match=misc \
      --subsystem-match=sound --subsystem-match=tty
    udevadm settle --timeout=15 || true
  fi
}

keyhold_systemd_reload() {
  if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
}

# keyhold_drop_acls: user keyhold's entry goes from every node that has one; so does the mask
# setfacl added with it, where no other named entry is left (the node's ACL is then as before the
# install). One getfacl and one setfacl for all nodes: a VT alone has 63 of them.
keyhold_drop_acls() {
  command -v setfacl > /dev/null && getent passwd keyhold > /dev/null || return 0
  nodes=$(getfacl -p /dev/input/event* /dev/uinput /dev/snd/* /dev/tty[0-9]* 2> /dev/null \
    | awk '/^# file: / { f = substr($0, 9) } /^user:keyhold:/ { print f }')
  [ -n "$nodes" ] || return 0
  # shellcheck disable=SC2086   # device paths, one a word
  setfacl -x u:keyhold $nodes || true
  # shellcheck disable=SC2086
  bare=$(getfacl -p $nodes 2> /dev/null | awk '
    /^# file: / { if (f != "" && !named) print f; f = substr($0, 9); named = 0 }
    /^(user|group):[^:]+:/ { named = 1 }
    END { if (f != "" && !named) print f }')
  # shellcheck disable=SC2086
  if [ -n "$bare" ]; then setfacl -b $bare || true; fi
}

# keyhold_remove_old_layout: an install from before 75-keyhold.rules gave group keyhold every
# keyboard and /dev/uinput and had a user service: its rules file, its user unit (and what enabled
# it) and the group's ACL entries go.
keyhold_remove_old_layout() {
  [ -e "$UDEVRULESDIR/70-keyhold.rules" ] || [ -e "$USERUNITDIR/keyhold.service" ] || return 0
  echo "removing the old layout: 70-keyhold.rules, the keyhold user service, group keyhold's device ACLs"
  find /etc/systemd/user -name keyhold.service -type l -delete 2> /dev/null || true
  rm -f "$UDEVRULESDIR/70-keyhold.rules" "$USERUNITDIR/keyhold.service"
  for node in /dev/input/event* /dev/uinput; do setfacl -x g:keyhold "$node" 2> /dev/null || true; done
}
