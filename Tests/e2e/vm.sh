#!/usr/bin/env bash
# vm.sh - run a command inside a throw-away QEMU guest booting Debian's stock kernel
# (linux-image-amd64: uinput, evdev, i8042/atkbd, snd-aloop, 9p). The development and CI
# machines have no uinput and no input devices; the guest has both.
#
# The guest sees the host's whole / read-only over 9p under a tmpfs overlay (guest writes
# vanish at power-off), plus one host directory read-write at the same path. With VM_RELEASE it
# boots another Debian release instead: a root file system of that release's packages (made by
# mmdebstrap, cached, remade when Tests/e2e/roots/RELEASE.pkgs changes) and its own kernel, the
# host paths VM_HOST_PATHS names seen read-only at the same paths (the tests, the probe). The command
# runs as root with bash, cwd = $PWD and PATH = host PATH; its output streams to stdout and
# vm.sh exits with its exit status (125 if the guest never reported one, e.g. on timeout).
#
#   vm.sh setup                  # idempotent: apt packages, kernel, initramfs, guest tools
#   vm.sh run 'shell command'    # boot, run it, power off
#   vm.sh run prog arg1 arg2     # same, argv form
#   vm.sh build                  # (re)build the guest tools only (probe, bare-forwarder)
#
# Knobs (environment, all optional):
#   VM_DIR=/tmp/keyhold-vm  cache: kernel, vmlinux, initrd, bin/probe, per-run dirs
#   VM_RWDIR=$PWD         host dir mounted read-write at the same path ("" = none; no spaces)
#   VM_QMP=/path/sock     open a QMP socket there (the host can inject PS/2 keys: qmp.py)
#   VM_QEMU_OPTS="..."    extra qemu args, e.g. "-device virtio-keyboard-pci"
#   VM_TIMEOUT=600        seconds for the whole guest run (qemu is killed after that)
#   VM_SYSTEMD=1          boot systemd as PID 1 (basic.target + the command as a oneshot)
#   VM_SYSTEMD_TARGET=T   with VM_SYSTEMD=1, boot target T instead of basic.target (multi-user.target)
#   VM_DISK=FILE          the overlay's upper layer on a disk image (made if missing): the next
#                         boot with the same FILE finds what this one wrote, as after a reboot
#   VM_MEM=1024 VM_CPUS=2 guest memory (MiB) and vCPUs
#   VM_ENV="A B"          names of host env vars to pass into the guest (PATH always passed)
#   VM_APPEND="..."       extra kernel command line       VM_DEBUG=1  kernel messages + init trace
#   VM_EXTRA_PKGS="..."   (setup) more Debian packages    VM_REFRESH=1 (setup) re-resolve the kernel
#   VM_RELEASE=trixie     (setup and run) boot that Debian release's root and kernel, not the host's
#                         (trixie-gnome: its root with roots/trixie-gnome.pkgs added)
#   VM_HOST_PATHS="/a /b" (run, with VM_RELEASE) host directories seen read-only at the same paths
#
# KVM is deliberately not offered: /dev/kvm on these machines is a PVM host on which a stock
# kernel hangs ("KVM internal error"), so the guest always runs under TCG.
# shellcheck disable=SC2054,SC2206   # commas are qemu syntax; VM_QEMU_OPTS is split on purpose
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_DIR=${VM_DIR:-/tmp/keyhold-vm}
VM_RELEASE=${VM_RELEASE:-}
if [ -n "$VM_RELEASE" ]; then
  RELEASE_DIR="$VM_DIR/$VM_RELEASE"
  ROOT="$RELEASE_DIR/root"       # the release's root file system (mmdebstrap)
  GUEST="$RELEASE_DIR/guest"     # vmlinux, initrd
else
  ROOT=/
  GUEST="$VM_DIR/guest"          # kernel tree (dpkg -x), vmlinux, initrd
fi

# Host packages. The guest runs the host's binaries, so test tools installed here are the
# guest's too. udev lets a guest run systemd-udevd (udev-rule tests); gcc + libevdev-dev build
# the probe tool (it only needs kernel headers, libevdev is for the daemon's own build).
PKGS="qemu-system-x86 busybox-static kmod udev interception-tools evtest kbd python3 gcc libc6-dev libevdev-dev e2fsprogs ${VM_EXTRA_PKGS:-}"
# another release's root is made by mmdebstrap; its kernel is zstd-compressed
[ -z "$VM_RELEASE" ] || PKGS+=" mmdebstrap zstd xz-utils"

die() { echo "vm.sh: $*" >&2; exit 125; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

missing_pkgs() {
  local p out=""
  for p in $PKGS; do
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || out+=" $p"
  done
  echo "$out"
}

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  local APT="apt-get -y -q -o DPkg::Lock::Timeout=600"
  $APT update >/dev/null
  [ $# -gt 0 ] || return 0
  # an interrupted earlier apt (e.g. a systemd upgrade pulled in by udev) needs -f install first
  $APT install --no-install-recommends "$@" >/dev/null \
    || { dpkg --configure -a >/dev/null 2>&1 || true; $APT -f install >/dev/null
         $APT install --no-install-recommends "$@" >/dev/null; }
}

setup() {
  local t0 t; t0=$(now); mkdir -p "$GUEST"
  # 1. packages: skip apt entirely when everything is installed (keeps repeat setups ~1 s)
  t=$(now); local miss; miss=$(missing_pkgs)
  local need_kernel=0
  if [ -z "$VM_RELEASE" ] && { [ ! -f "$GUEST/vmlinux" ] || [ ! -f "$GUEST/kpkg" ] || [ "${VM_REFRESH:-0}" = 1 ]; }; then need_kernel=1; fi
  if [ -n "$miss" ] || [ $need_kernel = 1 ]; then
    # shellcheck disable=SC2086
    apt_install $miss
  fi
  echo "setup: packages $(since "$t")${miss:+ (installed:$miss)}"

  # 2. kernel: the current ABI package behind linux-image-amd64 (a glob would fetch every ABI;
  #    -cloud- has no uinput/9p). Booted as an uncompressed ELF vmlinux (PVH entry): QEMU skips
  #    the xz decompressor, which is slow under TCG.
  t=$(now)
  if [ $need_kernel = 1 ]; then
    local kpkg; kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    [ -n "$kpkg" ] || die "cannot resolve linux-image-amd64 (apt-get update failed?)"
    if [ ! -f "$GUEST/kpkg" ] || [ "$(cat "$GUEST/kpkg")" != "$kpkg" ] || [ ! -f "$GUEST/vmlinux" ]; then
      rm -rf "$GUEST/kernel" "$GUEST"/*.deb "$GUEST/vmlinux"; mkdir -p "$GUEST/kernel"
      (cd "$GUEST" && apt-get download -q "$kpkg" >/dev/null 2>&1) || die "apt-get download $kpkg failed"
      dpkg -x "$GUEST"/"$kpkg"_*.deb "$GUEST/kernel"
      rm -f "$GUEST"/*.deb
      local kv; kv=$(ls "$GUEST/kernel/lib/modules")
      depmod -b "$GUEST/kernel" "$kv"          # the package ships no modules.dep
      vmlinux_of "$GUEST/kernel/boot/vmlinuz-$kv" "$GUEST/vmlinux" || die "cannot unpack vmlinuz-$kv"
      echo "$kpkg" > "$GUEST/kpkg"
    fi
  fi
  # the modules' tree (KBASE/lib/modules/KV) and where the guest finds it ("" = in its own root)
  local kv kbase=$GUEST/kernel guest_mods
  if [ -n "$VM_RELEASE" ]; then
    release_root
    kbase=$ROOT; kv=$(ls "$ROOT/usr/lib/modules" | tail -1); guest_mods=""
    if [ ! -f "$GUEST/vmlinux" ] || [ "$(cat "$GUEST/kpkg" 2>/dev/null)" != "$kv" ]; then
      vmlinux_of "$ROOT/boot/vmlinuz-$kv" "$GUEST/vmlinux" || die "cannot unpack $ROOT/boot/vmlinuz-$kv"
      echo "$kv" > "$GUEST/kpkg"
    fi
  else
    kv=$(ls "$GUEST/kernel/lib/modules"); guest_mods=$GUEST/kernel/lib/modules/$kv
  fi
  echo "setup: kernel $(since "$t") ($(cat "$GUEST/kpkg"))"

  # 3. initramfs: static busybox + virtio/9p/overlay modules + our /init; rebuilt only when
  #    the init script or the kernel changed
  t=$(now)
  local sum; sum=$( { write_init; echo "$kv $kbase"; } | md5sum | cut -d' ' -f1)
  if [ ! -f "$GUEST/initrd.gz" ] || [ "$(cat "$GUEST/initrd.sum" 2>/dev/null)" != "$sum" ]; then
    local ir="$GUEST/ir"; rm -rf "$ir"; mkdir -p "$ir"/{bin,dev,proc,sys,mods}
    cp /bin/busybox "$ir/bin/busybox"
    mknod "$ir/dev/console" c 5 1                 # else init's output vanishes
    : > "$ir/modules.list"
    # (busybox's insmod takes modules uncompressed: a newer release's are .ko.xz)
    modprobe -d "$kbase" -S "$kv" --show-depends -a virtio_pci 9p 9pnet_virtio overlay virtio_blk ext4 \
      | awk '$1=="insmod"{print $2}' | awk '!seen[$0]++' | while read -r f; do
        m=$(basename "$f"); m=${m%.xz}; m=${m%.zst}
        case $f in
          *.xz) xz -dc "$f" > "$ir/mods/$m" ;;
          *.zst) zstd -qdc "$f" > "$ir/mods/$m" ;;
          *) cp "$f" "$ir/mods/$m" ;;
        esac
        echo "$m" >> "$ir/modules.list"; done
    write_init > "$ir/init"; chmod 755 "$ir/init"
    (cd "$ir" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null | gzip -1) > "$GUEST/initrd.gz.tmp"
    mv "$GUEST/initrd.gz.tmp" "$GUEST/initrd.gz"; rm -rf "$ir"
    echo "$guest_mods" > "$GUEST/moddir"
    echo "$sum" > "$GUEST/initrd.sum"
  fi
  echo "setup: initramfs $(since "$t")"

  t=$(now); build; echo "setup: guest tools $(since "$t")"
  echo "setup done in $(since "$t0"): kernel $kv, cache $VM_DIR${VM_RELEASE:+, root $ROOT}"
}

# vmlinux_of VMLINUZ OUT: the kernel's ELF image, booted directly (PVH entry): QEMU then skips the
# kernel's own decompressor, which is slow under TCG (xz: Debian 12; zstd: Debian 13)
vmlinux_of() {
  /usr/bin/python3 - "$1" "$2.tmp" <<'EOF' && mv "$2.tmp" "$2"
import lzma, subprocess, sys
d = open(sys.argv[1], 'rb').read()
xz, zst = d.find(b'\xfd7zXZ\x00'), d.find(b'\x28\xb5\x2f\xfd')
if xz >= 0:
    elf = lzma.LZMADecompressor().decompress(d[xz:])
elif zst >= 0:
    # zstd ends the frame with an error for the bytes after it: the ELF is whole
    elf = subprocess.run(['zstd', '-qdc'], input=d[zst:], capture_output=True).stdout
else:
    sys.exit("vmlinuz is neither xz- nor zstd-compressed")
if not elf.startswith(b'\x7fELF'): sys.exit("no ELF image in vmlinuz")
open(sys.argv[2], 'wb').write(elf)
EOF
}

# release_root: ROOT made by mmdebstrap from Debian's archive: the release's packages of priority
# important and those Tests/e2e/roots/RELEASE.pkgs lists, no Recommends (a test names what it
# uses); made again when that list or this function changes, else kept. VM_RELEASE=SUITE-FLAVOUR
# (trixie-gnome) is SUITE with roots/SUITE-FLAVOUR.pkgs added, in a root of its own.
release_root() {
  local suite=${VM_RELEASE%%-*} lists list pkgs sum t; t=$(now)
  lists=("$HERE/roots/$suite.pkgs"); [ "$suite" = "$VM_RELEASE" ] || lists+=("$HERE/roots/$VM_RELEASE.pkgs")
  for list in "${lists[@]}"; do [ -f "$list" ] || die "no package list for $VM_RELEASE ($list)"; done
  pkgs=$(cat "${lists[@]}" | sed 's/#.*//' | xargs | tr ' ' ,)
  sum=$( { echo "$VM_RELEASE $pkgs"; declare -f release_root; } | md5sum | cut -d' ' -f1)
  if [ -d "$ROOT" ] && [ "$(cat "$RELEASE_DIR/root.sum" 2>/dev/null)" = "$sum" ]; then
    echo "setup: $VM_RELEASE root kept ($ROOT)"; return
  fi
  mkdir -p "$RELEASE_DIR" "$GUEST"; rm -rf "$ROOT" "$ROOT.new" "$RELEASE_DIR/root.sum"
  mmdebstrap --mode=root --variant=important --aptopt='APT::Install-Recommends "false"' \
    --include="$pkgs" "$suite" "$ROOT.new" http://deb.debian.org/debian > "$RELEASE_DIR/mmdebstrap.log" 2>&1 \
    || { tail -20 "$RELEASE_DIR/mmdebstrap.log" >&2; die "mmdebstrap $VM_RELEASE failed (log: $RELEASE_DIR/mmdebstrap.log)"; }
  mv "$ROOT.new" "$ROOT"; echo "$sum" > "$RELEASE_DIR/root.sum"
  echo "setup: $VM_RELEASE root made in $(since "$t") ($(du -sh "$ROOT" | cut -f1))"
}

# The guest-side tools, built on the host (the guest sees them over 9p): probe, the input tool
# (see probe.c), and bare-forwarder, the benchmark's floor (see bare-forwarder.c).
build() {
  mkdir -p "$VM_DIR/bin"
  local tool
  for tool in probe bare-forwarder; do
    if [ ! -x "$VM_DIR/bin/$tool" ] || [ "$HERE/$tool.c" -nt "$VM_DIR/bin/$tool" ]; then
      gcc -O2 -Wall -Wextra -o "$VM_DIR/bin/$tool.tmp" "$HERE/$tool.c" && mv "$VM_DIR/bin/$tool.tmp" "$VM_DIR/bin/$tool" || return 1
    fi
  done
}

write_init() {
cat <<'EOF'
#!/bin/busybox sh
# PID 1 of the guest: mount host / (9p, ro) + tmpfs overlay, run /run/khvm/cmd.sh, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
arg() { for x in $(cat /proc/cmdline); do case "$x" in "$1="*) echo "${x#*=}";; esac; done; }
[ -n "$(arg khvm.debug)" ] && set -x
for m in $(cat /modules.list); do insmod /mods/$m || echo "khvm-init: insmod $m failed"; done
R=/newroot; mkdir -p $R
O9P=trans=virtio,version=9p2000.L,msize=512000
# host / read-only over 9p, under a tmpfs-backed overlay: the guest may write anywhere, the host is untouched
mkdir -p /lower /ov; mount -t 9p -o ro,$O9P,cache=loose hostroot /lower || { echo "khvm-init: 9p root mount failed"; poweroff -f; }
# with a disk (VM_DISK) the upper layer is on it: what one boot wrote is there at the next
if [ -n "$(arg khvm.disk)" ]; then mount -t ext4 /dev/vda /ov || { echo "khvm-init: disk mount failed"; poweroff -f; }
else mount -t tmpfs -o mode=755 ov /ov; fi
mkdir -p /ov/u /ov/w
mount -t overlay -o lowerdir=/lower,upperdir=/ov/u,workdir=/ov/w vmroot $R || { echo "khvm-init: overlay failed"; poweroff -f; }
rm -f $R/.dockerenv $R/run/.containerenv   # else systemd believes it runs in a container
chmod 1777 $R/tmp
mount -t proc proc $R/proc; mount -t sysfs sys $R/sys; mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
# devtmpfs lacks these (udev makes them on a normal boot); bash's <(...) needs /dev/fd
ln -sfn /proc/self/fd $R/dev/fd; ln -sf /proc/self/fd/0 $R/dev/stdin
ln -sf /proc/self/fd/1 $R/dev/stdout; ln -sf /proc/self/fd/2 $R/dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $R/dev/pts; mount -t tmpfs -o mode=1777 shm $R/dev/shm
mount -t tmpfs -o mode=755 run $R/run
# modprobe in the guest finds the guest kernel's modules (depmod'ed on the host) through this link
# (another release's root has its kernel's modules itself: no khvm.mods)
KV=$(uname -r); M=$(arg khvm.mods)
if [ -n "$M" ]; then mkdir -p $R/usr/lib/modules; ln -sfn "$M" $R/usr/lib/modules/$KV; fi
mkdir -p $R/run/khvm; mount -t 9p -o $O9P khvmrun $R/run/khvm
# another release's root: the host directories the test needs, read-only at the same paths
HP=$(arg khvm.hostpaths)
if [ -n "$HP" ]; then
  mkdir -p $R/run/khvm-host; mount -t 9p -o ro,$O9P,cache=loose hostfs $R/run/khvm-host
  for p in $(echo "$HP" | tr , ' '); do mkdir -p "$R$p"; mount -o bind "$R/run/khvm-host$p" "$R$p"; done
fi
RW=$(arg khvm.rwdir)
if [ -n "$RW" ]; then mkdir -p "$R$RW"; mount -t 9p -o $O9P rwdir "$R$RW"; fi
stty -F /dev/console -onlcr 2>/dev/null   # the serial console would turn LF into CRLF
# stage 2 runs as PID 1 inside the real root (switch_root, not chroot: systemd tools such as
# udevadm refuse to work when they detect a chroot)
# (with the initramfs's busybox: another release's root has none)
mkdir -p $R/run/khvm-bin; cp /bin/busybox $R/run/khvm-bin/busybox
cat > $R/run/khvm-stage2 <<'S2'
#!/run/khvm-bin/busybox sh
/usr/bin/env -i HOME=/root TERM=linux LANG=C.UTF-8 /bin/sh -c \
  '. /run/khvm/env; cd "$(cat /run/khvm/cwd)" 2>/dev/null || cd /; exec /bin/bash /run/khvm/cmd.sh' \
  </dev/console >/dev/console 2>&1
echo $? > /run/khvm/exit_status
sync
/run/khvm-bin/busybox poweroff -f
S2
chmod 755 $R/run/khvm-stage2
if [ -n "$(arg khvm.systemd)" ]; then
  # systemd as PID 1: boot only khvm.target (basic.target + our oneshot), power off when it ends
  sed -e 's|^/run/khvm-bin/busybox poweroff -f$|exit 0|' $R/run/khvm-stage2 > $R/run/khvm-stage2-systemd
  chmod 755 $R/run/khvm-stage2-systemd
  # booting basic.target (or khvm.target=TARGET: multi-user.target, as a machine boots) + our oneshot
  T=$(arg khvm.target); T=${T:-basic.target}
  cat > $R/etc/systemd/system/khvm.target <<T
[Unit]
Description=keyhold test run
Requires=$T khvm-run.service
After=$T
AllowIsolate=yes
T
  cat > $R/etc/systemd/system/khvm-run.service <<T
[Unit]
Description=keyhold test command
After=$T
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
ExecStart=/run/khvm-stage2-systemd
TimeoutStartSec=infinity
T
  # tmpfiles-setup walks big host trees over 9p: ~90 s under TCG
  ln -sf /dev/null $R/etc/systemd/system/systemd-tmpfiles-setup.service
  # a newer release mounts a tmpfs on /tmp (Debian 13), which would hide the host paths there
  [ -z "$HP" ] || ln -sf /dev/null $R/etc/systemd/system/tmp.mount
  exec switch_root -c /dev/console $R /lib/systemd/systemd --unit=khvm.target --show-status=no
fi
exec switch_root -c /dev/console $R /run/khvm-stage2
EOF
}

run() {
  if [ ! -f "$GUEST/initrd.gz" ] || [ ! -f "$GUEST/vmlinux" ]; then die "run '$0 setup' first"; fi
  [ $# -ge 1 ] || die "usage: $0 run COMMAND..."
  local rw=${VM_RWDIR-$PWD}
  case "$rw" in *[[:space:]]*) die "VM_RWDIR must not contain spaces (it goes on the kernel command line)";; esac
  if [ -n "$rw" ]; then [ -d "$rw" ] || die "VM_RWDIR $rw is not a directory"; fi
  mkdir -p "$VM_DIR"
  RUNDIR=$(mktemp -d "$VM_DIR/run.XXXXXX"); local run=$RUNDIR
  trap 'rm -rf "$RUNDIR"' EXIT
  if [ $# -eq 1 ]; then printf '%s\n' "$1" > "$run/cmd.sh"; else printf '%q ' "$@" > "$run/cmd.sh"; echo >> "$run/cmd.sh"; fi
  pwd > "$run/cwd"
  { printf 'export PATH=%q\n' "$PATH"
    for v in ${VM_ENV:-}; do if [ -n "${!v+x}" ]; then printf 'export %s=%q\n' "$v" "${!v}"; fi; done; } > "$run/env"
  local append; append="console=ttyS0 panic=-1"
  [ -z "$(cat "$GUEST/moddir")" ] || append+=" khvm.mods=$(cat "$GUEST/moddir")"
  if [ "${VM_DEBUG:-0}" = 1 ]; then append+=" khvm.debug=1"; else append+=" loglevel=0"; fi
  if [ -n "$rw" ]; then append+=" khvm.rwdir=$rw"; fi
  if [ "${VM_SYSTEMD:-0}" = 1 ]; then append+=" khvm.systemd=1${VM_SYSTEMD_TARGET:+ khvm.target=$VM_SYSTEMD_TARGET}"; fi
  if [ -n "${VM_DISK:-}" ]; then
    # a new disk: 4 GiB, sparse, ext4 (the overlay's upper layer needs xattrs and whiteouts)
    [ -f "$VM_DISK" ] || { truncate -s 4G "$VM_DISK" && mkfs.ext4 -q -F "$VM_DISK"; } || die "cannot make the disk $VM_DISK"
    append+=" khvm.disk=1"
  fi
  local hostpaths=""
  if [ -n "$VM_RELEASE" ] && [ -n "${VM_HOST_PATHS:-}" ]; then
    hostpaths=$(echo "$VM_HOST_PATHS" | xargs -n1 | sort -u | paste -sd, -)
    append+=" khvm.hostpaths=$hostpaths"
  fi
  append+=" ${VM_APPEND:-}"
  local args=(
    -accel tcg -cpu max -machine q35 -m "${VM_MEM:-1024}" -smp "${VM_CPUS:-2}"
    -nodefaults -no-user-config -display none -no-reboot
    -chardev stdio,id=con,signal=off -serial chardev:con
    -kernel "$GUEST/vmlinux" -initrd "$GUEST/initrd.gz" -append "$append"
    -fsdev local,id=fs0,path="$ROOT",security_model=none,readonly=on,multidevs=remap
    -device virtio-9p-pci,fsdev=fs0,mount_tag=hostroot
    -fsdev local,id=fs1,path="$run",security_model=none
    -device virtio-9p-pci,fsdev=fs1,mount_tag=khvmrun
  )
  if [ -n "$rw" ]; then args+=(-fsdev local,id=fs2,path="$rw",security_model=none -device virtio-9p-pci,fsdev=fs2,mount_tag=rwdir); fi
  if [ -n "$hostpaths" ]; then args+=(-fsdev local,id=fs3,path=/,security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=fs3,mount_tag=hostfs); fi
  # (a test's disk: its writes need not survive the host, so QEMU may skip the flushes)
  if [ -n "${VM_DISK:-}" ]; then args+=(-drive file="$VM_DISK",if=virtio,format=raw,cache=unsafe); fi
  if [ -n "${VM_QMP:-}" ]; then rm -f "$VM_QMP"; args+=(-qmp unix:"$VM_QMP",server=on,wait=off); fi
  args+=(${VM_QEMU_OPTS:-})
  local qrc=0 t0; t0=$(now)
  timeout -k 5 "${VM_TIMEOUT:-600}" qemu-system-x86_64 "${args[@]}" </dev/null || qrc=$?
  if [ -f "$run/exit_status" ]; then
    local st; st=$(cat "$run/exit_status")
    echo "vm.sh: guest command exited $st after $(since "$t0")" >&2
    return "$st"
  fi
  echo "vm.sh: guest did not report an exit status after $(since "$t0") (qemu rc=$qrc; 124 = VM_TIMEOUT)" >&2
  return 125
}

case "${1:-}" in
  setup) setup ;;
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 setup | build | run COMMAND..." >&2; exit 2 ;;
esac
