# Keyhold: build, install as a system service, or make a Debian package of it.
#
#   make                         release build (swift build -c release)
#   sudo make install            install the Debian build packages (scripts/install-deps.sh),
#                                build (as you, not root), install, create the keyhold user and
#                                group, reload udev and
#                                systemd, enable and start keyhold.service, and enable the
#                                session companion (keyhold-session) for every graphical session
#   sudo make install-files BINARY=path/to/keyhold   the same with a binary built elsewhere
#   sudo make uninstall          stop, disable and remove everything but /etc/keyhold
#   make deb                     release build, then keyhold_VERSION_ARCH.deb in this directory
#                                (install it with: sudo apt install ./keyhold_VERSION_ARCH.deb)
#   make deb-only BINARY=path/to/keyhold   the package of binaries built elsewhere
#   make fcitx5-addon            the fcitx5 addon alone (make builds it where fcitx5's -dev packages are)
#   make version                 the version (Sources/keyhold/Version.swift: the one place it is)
#   make list-files              where install-files puts each file (and its flags in packaging/files)
#
# What goes where is listed once, in packaging/files: install-files, uninstall and the package
# read it through packaging/install-files (the package is install-files staged with PREFIX=/usr).
# What makes the files take effect (user and group, udev, systemd) is packaging/activate.sh:
# make install runs it, and make deb copies it into the package's maintainer scripts.
#
# Knobs: PREFIX (/usr/local), DESTDIR (staging root for packages: nothing is run, nothing is
# started), NO_START=1 (install and reload, but do not enable or start the service), SWIFT,
# SWIFT_FLAGS; for deb: DEB_VERSION (the package's version, VERSION by default), DEB_OUT (where
# the .deb goes), DEB_STAGE. systemd, udev and sysusers read /usr/local/lib/... as well as
# /usr/lib/...; libinput reads quirks only from its own data directory, hence QUIRKSDIR outside
# PREFIX.

VERSION      := $(shell sed -n 's/^ *static let current = "\(.*\)"$$/\1/p' Sources/keyhold/Version.swift)
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
SYSCONFDIR   ?= /etc
UNITDIR      ?= $(LIBDIR)/systemd/system
USERUNITDIR  ?= $(LIBDIR)/systemd/user
UDEVRULESDIR ?= $(LIBDIR)/udev/rules.d
SYSUSERSDIR  ?= $(LIBDIR)/sysusers.d
MODULESDIR   ?= $(LIBDIR)/modules-load.d
QUIRKSDIR    ?= /usr/share/libinput
DESTDIR      ?=
NO_START     ?=
SWIFT        ?= swift
SWIFT_FLAGS  ?=
BINARY       ?= .build/release/keyhold
SESSION_BINARY ?= $(dir $(BINARY))keyhold-session
SETTINGS_BINARY ?= $(dir $(BINARY))keyhold-settings
FCITX5_ADDON ?= $(dir $(BINARY))fcitx5/libkeyhold.so
FCITX5_ADDONDIR ?= /usr/lib/$(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/fcitx5
FCITX5_DATADIR ?= $(PREFIX)/share/fcitx5
AUTOSTARTDIR ?= $(SYSCONFDIR)/xdg/autostart
APPLICATIONSDIR ?= $(PREFIX)/share/applications

SYSTEMCTL    ?= systemctl
DEB_VERSION  ?= $(VERSION)
DEB_OUT      ?= .
DEB_STAGE    ?= .build/deb

# The directories and binaries packaging/install-files and packaging/activate.sh read.
INSTALL_ENV = BINDIR='$(BINDIR)' UNITDIR='$(UNITDIR)' USERUNITDIR='$(USERUNITDIR)' UDEVRULESDIR='$(UDEVRULESDIR)' \
  SYSUSERSDIR='$(SYSUSERSDIR)' MODULESDIR='$(MODULESDIR)' QUIRKSDIR='$(QUIRKSDIR)' SYSCONFDIR='$(SYSCONFDIR)' \
  AUTOSTARTDIR='$(AUTOSTARTDIR)' APPLICATIONSDIR='$(APPLICATIONSDIR)' BINARY='$(BINARY)' SESSION_BINARY='$(SESSION_BINARY)' \
  SETTINGS_BINARY='$(SETTINGS_BINARY)' FCITX5_ADDON='$(FCITX5_ADDON)' FCITX5_ADDONDIR='$(FCITX5_ADDONDIR)' \
  FCITX5_DATADIR='$(FCITX5_DATADIR)' DESTDIR='$(DESTDIR)'

.PHONY: all deps build fcitx5-addon install install-files uninstall activate deb deb-only version list-files

all: build

# Under sudo the build runs as the user who called it: root only installs.
build:
	@if [ "$$(id -u)" = 0 ] && [ -n "$$SUDO_USER" ] && [ "$$SUDO_USER" != root ]; then \
	  echo "runuser -u $$SUDO_USER -- $(SWIFT) build -c release $(SWIFT_FLAGS)"; \
	  runuser -u "$$SUDO_USER" -- $(SWIFT) build -c release $(SWIFT_FLAGS); \
	else \
	  echo "$(SWIFT) build -c release $(SWIFT_FLAGS)"; $(SWIFT) build -c release $(SWIFT_FLAGS); \
	fi
	@if pkg-config --exists $(FCITX5_PKGS); then $(MAKE) --no-print-directory fcitx5-addon; \
	else echo "no $(FCITX5_PKGS) (libfcitx5core-dev, fcitx5-modules-dev): the fcitx5 addon is not built"; fi

# The addon fcitx5 loads (addons/fcitx5): the companion types through it where fcitx5 is the
# input method. C++, as fcitx5's API is; warnings are errors.
FCITX5_PKGS = Fcitx5Core Fcitx5Module wayland-client xcb
fcitx5-addon:
	@mkdir -p "$(dir $(FCITX5_ADDON))"
	$(CXX) -std=c++17 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
	  -DFCITX5_VERSION='"'"$$(pkg-config --modversion Fcitx5Core)"'"' -o "$(FCITX5_ADDON)" addons/fcitx5/keyhold.cpp \
	  $$(pkg-config --cflags --libs $(FCITX5_PKGS))

# The Debian packages the build links against (libevdev, libudev, xkbcommon, ALSA, libsystemd).
deps:
	scripts/install-deps.sh

install: deps build install-files

install-files:
	@$(INSTALL_ENV) packaging/install-files install
	@if [ -z "$(DESTDIR)" ]; then $(MAKE) --no-print-directory activate; else echo "DESTDIR set: not activating"; fi

# Makes the installed files take effect on this machine (run by install-files without DESTDIR).
activate:
	@echo "packaging/activate.sh: keyhold user and group, uinput, udev rules applied to the devices present, daemon-reload"
	@$(INSTALL_ENV) sh -c '. packaging/activate.sh && keyhold_activate'
	@if [ -e "$(USERUNITDIR)/keyhold-session.service" ]; then $(SYSTEMCTL) --global enable keyhold-session.service; fi
	@if [ "$(NO_START)" = 1 ]; then \
	  echo "NO_START=1: enable and start it with: systemctl enable --now keyhold"; \
	elif $(SYSTEMCTL) is-active --quiet keyhold.service; then \
	  echo "$(SYSTEMCTL) enable keyhold.service && $(SYSTEMCTL) restart keyhold.service"; \
	  $(SYSTEMCTL) enable keyhold.service && $(SYSTEMCTL) restart keyhold.service; \
	else \
	  echo "$(SYSTEMCTL) enable --now keyhold.service"; \
	  $(SYSTEMCTL) enable --now keyhold.service; \
	fi

uninstall:
	@if [ -z "$(DESTDIR)" ]; then $(SYSTEMCTL) disable --now keyhold.service 2>/dev/null || true; \
	  $(SYSTEMCTL) --global disable keyhold-session.service 2>/dev/null || true; \
	  $(INSTALL_ENV) sh -c '. packaging/activate.sh && keyhold_give_back_input_methods "$(BINDIR)/keyhold-session"'; fi
	@echo "packaging/install-files remove"; $(INSTALL_ENV) packaging/install-files remove
	@# and what an install from before 75-keyhold.rules had
	rm -f "$(DESTDIR)$(USERUNITDIR)/keyhold.service" "$(DESTDIR)$(UDEVRULESDIR)/70-keyhold.rules"
	@# udev and systemd reloaded, user keyhold's device ACLs taken back, the user and group deleted
	@if [ -z "$(DESTDIR)" ]; then \
	  $(INSTALL_ENV) sh -c '. packaging/activate.sh && keyhold_deactivate && keyhold_delete_accounts'; fi
	@echo "kept $(SYSCONFDIR)/keyhold (your configuration); removed the keyhold user and group"

# The Debian package: install-files staged with PREFIX=/usr, then packaging/build-deb (control
# file, dpkg-shlibdeps, maintainer scripts, dpkg-deb). The preinst gets the list of what a
# make install with this Makefile's defaults puts where the package puts nothing, to remove it.
deb: build
	@$(MAKE) --no-print-directory deb-only

deb-only:
	@test -x "$(SESSION_BINARY)" || { echo "make: no keyhold-session at $(SESSION_BINARY): the package carries all three programs (run make)" >&2; exit 1; }
	@test -x "$(SETTINGS_BINARY)" || { echo "make: no keyhold-settings at $(SETTINGS_BINARY): the package carries all three programs (run make)" >&2; exit 1; }
	rm -rf "$(DEB_STAGE)"
	$(MAKE) --no-print-directory install-files PREFIX=/usr DESTDIR="$(abspath $(DEB_STAGE))/debian/keyhold" > /dev/null
	$(MAKE) -s --no-print-directory list-files DESTDIR= > "$(DEB_STAGE)/source-install.list"
	$(MAKE) -s --no-print-directory list-files DESTDIR= PREFIX=/usr > "$(DEB_STAGE)/package.list"
	VERSION='$(VERSION)' DEB_VERSION='$(DEB_VERSION)' DEB_OUT='$(DEB_OUT)' packaging/build-deb "$(DEB_STAGE)"

version:
	@echo $(VERSION)

list-files:
	@$(INSTALL_ENV) packaging/install-files list
