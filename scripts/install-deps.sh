#!/usr/bin/env bash
# Installs the Debian packages Keyhold builds against and needs (GTK 4 and libadwaita: the
# settings window; fcitx5's -dev packages and xcb-ewmh, which fcitx5's xcb header includes: the
# fcitx5 addon; acl: the udev rules set device ACLs with setfacl; dpkg-dev: make deb's
# dpkg-shlibdeps) and, with --e2e, what the QEMU end-to-end tests need. Idempotent; needs root
# (or sudo).
set -euo pipefail
pkgs=(acl pkg-config libevdev-dev libudev-dev libxkbcommon-dev xkb-data libasound2-dev libsystemd-dev unicode-cldr-core unicode-data
      libx11-dev libxtst-dev libxi-dev libx11-xcb-dev libxkbcommon-x11-dev libwayland-dev libwayland-bin
      libgtk-3-dev libgtk-layer-shell-dev libpango1.0-dev libatspi2.0-dev libibus-1.0-dev dpkg-dev
      libgtk-4-dev libadwaita-1-dev libfcitx5core-dev fcitx5-modules-dev libxcb-ewmh-dev)
if [ "${1:-}" = "--e2e" ]; then
  pkgs+=(qemu-system-x86 busybox-static kmod udev kbd interception-tools)
  # The desktop suite: a real X server (dummy video, libinput), a GTK 3 entry, xterm; the guest
  # runs the host's binaries, so they are installed here.
  pkgs+=(xserver-xorg-core xserver-xorg-video-dummy xserver-xorg-input-libinput x11-xkb-utils x11-utils
         xdotool xterm xfonts-base python3-gi gir1.2-gtk-3.0 fonts-dejavu-core)
  # ... and a Wayland one: sway (headless output, libinput through logind) and foot.
  pkgs+=(sway foot)
  # The picker's screenshots: grim (sway), xwd (X11), ImageMagick to crop and compare, tesseract to read them.
  pkgs+=(grim x11-apps imagemagick tesseract-ocr tesseract-ocr-eng)
  # The search's emoji candidates drawn as emoji in the screenshots, as on a desktop.
  pkgs+=(fonts-noto-color-emoji)
  # The picker at the caret (AT-SPI: the accessibility bus on the user's session bus),
  # and the companion's sounds captured from snd-aloop.
  pkgs+=(at-spi2-core dbus-user-session alsa-utils)
  # The package suite checks make deb's package with lintian.
  pkgs+=(lintian)
fi
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
APT="$SUDO apt-get -y -q -o DPkg::Lock::Timeout=600"
$APT update >/dev/null
# udev pulls a systemd upgrade; an interrupted earlier run can leave apt half configured.
$APT install --no-install-recommends "${missing[@]}" >/dev/null \
  || { $APT -f install >/dev/null; $APT install --no-install-recommends "${missing[@]}" >/dev/null; }
echo "installed: ${missing[*]}"
