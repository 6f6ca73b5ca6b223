# Keyhold: build and install as a system service.
#
#   make                         release build (swift build -c release)
#   sudo make install            install the Debian build packages (scripts/install-deps.sh),
#                                build (as you, not root), install, create the keyhold user and
#                                group, reload udev and
#                                systemd, enable and start keyhold.service, and enable the
#                                session companion (keyhold-session) for every graphical session
#   sudo make install-files BINARY=path/to/keyhold   the same with a binary built elsewhere
#   sudo make uninstall          stop, disable and remove everything but /etc/keyhold
#
# Knobs: PREFIX (/usr/local), DESTDIR (staging root for packages: nothing is run, nothing is
# started), NO_START=1 (install and reload, but do not enable or start the service), SWIFT,
# SWIFT_FLAGS. systemd, udev and sysusers read /usr/local/lib/... as well as /usr/lib/...; libinput
# reads quirks only from its own data directory, hence QUIRKSDIR outside PREFIX.

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
AUTOSTARTDIR ?= $(SYSCONFDIR)/xdg/autostart

INSTALL      ?= install
SYSTEMCTL    ?= systemctl
UDEVADM      ?= udevadm

.PHONY: all deps build install install-files uninstall activate

all: build

# Under sudo the build runs as the user who called it: root only installs.
build:
	@if [ "$$(id -u)" = 0 ] && [ -n "$$SUDO_USER" ] && [ "$$SUDO_USER" != root ]; then \
	  echo "runuser -u $$SUDO_USER -- $(SWIFT) build -c release $(SWIFT_FLAGS)"; \
	  runuser -u "$$SUDO_USER" -- $(SWIFT) build -c release $(SWIFT_FLAGS); \
	else \
	  echo "$(SWIFT) build -c release $(SWIFT_FLAGS)"; $(SWIFT) build -c release $(SWIFT_FLAGS); \
	fi

# The Debian packages the build links against (libevdev, libudev, xkbcommon, ALSA, libsystemd).
deps:
	scripts/install-deps.sh

install: deps build install-files

install-files:
	@test -x "$(BINARY)" || { echo "make: no keyhold binary at $(BINARY) (run make, or pass BINARY=path)" >&2; exit 1; }
	$(INSTALL) -D -m 0755 "$(BINARY)" "$(DESTDIR)$(BINDIR)/keyhold"
	$(INSTALL) -d -m 0755 "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(USERUNITDIR)"
	sed 's|/usr/local/bin/keyhold|$(BINDIR)/keyhold|g' systemd/keyhold.service > "$(DESTDIR)$(UNITDIR)/keyhold.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/keyhold.service"
	$(INSTALL) -D -m 0644 udev/75-keyhold.rules "$(DESTDIR)$(UDEVRULESDIR)/75-keyhold.rules"
	$(INSTALL) -D -m 0644 udev/50-keyhold.quirks "$(DESTDIR)$(QUIRKSDIR)/50-keyhold.quirks"
	$(INSTALL) -D -m 0644 systemd/keyhold.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/keyhold.conf"
	$(INSTALL) -D -m 0644 systemd/keyhold-modules.conf "$(DESTDIR)$(MODULESDIR)/keyhold.conf"
	@# The session companion: a user unit every graphical session starts, and an autostart
	@# entry for desktops that do not run graphical-session.target.
	@if [ -x "$(SESSION_BINARY)" ]; then \
	  set -e; \
	  $(INSTALL) -D -m 0755 "$(SESSION_BINARY)" "$(DESTDIR)$(BINDIR)/keyhold-session"; \
	  sed 's|/usr/local/bin/keyhold|$(BINDIR)/keyhold|g' systemd/keyhold-session.service > "$(DESTDIR)$(USERUNITDIR)/keyhold-session.service"; \
	  chmod 0644 "$(DESTDIR)$(USERUNITDIR)/keyhold-session.service"; \
	  $(INSTALL) -d -m 0755 "$(DESTDIR)$(AUTOSTARTDIR)"; \
	  sed 's|/usr/local/bin/keyhold|$(BINDIR)/keyhold|g' systemd/keyhold-session.desktop > "$(DESTDIR)$(AUTOSTARTDIR)/keyhold-session.desktop"; \
	  chmod 0644 "$(DESTDIR)$(AUTOSTARTDIR)/keyhold-session.desktop"; \
	  echo "installed keyhold-session, its user unit and $(AUTOSTARTDIR)/keyhold-session.desktop"; \
	else \
	  echo "no keyhold-session at $(SESSION_BINARY): not installed (make builds it)"; \
	fi
	@if [ -e "$(DESTDIR)$(SYSCONFDIR)/keyhold/config.toml" ]; then \
	  echo "keeping $(DESTDIR)$(SYSCONFDIR)/keyhold/config.toml (the default is config/keyhold.toml)"; \
	else \
	  echo "$(INSTALL) -D -m 0644 config/keyhold.toml $(DESTDIR)$(SYSCONFDIR)/keyhold/config.toml"; \
	  $(INSTALL) -D -m 0644 config/keyhold.toml "$(DESTDIR)$(SYSCONFDIR)/keyhold/config.toml"; \
	fi
	@if [ -z "$(DESTDIR)" ]; then $(MAKE) --no-print-directory activate; else echo "DESTDIR set: not activating"; fi

# Makes the installed files take effect on this machine (run by install-files without DESTDIR).
activate:
	systemd-sysusers "$(SYSUSERSDIR)/keyhold.conf"
	@# An older install gave group keyhold every keyboard and /dev/uinput, and had a user service:
	@# gone, with the ACL entries it left on the device nodes.
	@if [ -e "$(UDEVRULESDIR)/70-keyhold.rules" ] || [ -e "$(USERUNITDIR)/keyhold.service" ]; then \
	  echo "removing the old layout: 70-keyhold.rules, the keyhold user service, group keyhold's device ACLs"; \
	  $(SYSTEMCTL) --global disable keyhold.service 2>/dev/null || true; \
	  rm -f "$(UDEVRULESDIR)/70-keyhold.rules" "$(USERUNITDIR)/keyhold.service"; \
	  for node in /dev/input/event* /dev/uinput; do setfacl -x g:keyhold "$$node" 2>/dev/null || true; done; \
	fi
	-modprobe uinput
	$(UDEVADM) control --reload
	$(UDEVADM) trigger --action=change --subsystem-match=input --subsystem-match=misc --subsystem-match=sound --subsystem-match=tty
	-$(UDEVADM) settle --timeout=15
	$(SYSTEMCTL) daemon-reload
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
	  $(SYSTEMCTL) --global disable keyhold-session.service 2>/dev/null || true; fi
	rm -f "$(DESTDIR)$(BINDIR)/keyhold" "$(DESTDIR)$(BINDIR)/keyhold-session" \
	  "$(DESTDIR)$(USERUNITDIR)/keyhold-session.service" "$(DESTDIR)$(AUTOSTARTDIR)/keyhold-session.desktop" \
	  "$(DESTDIR)$(UNITDIR)/keyhold.service" "$(DESTDIR)$(USERUNITDIR)/keyhold.service" \
	  "$(DESTDIR)$(UDEVRULESDIR)/75-keyhold.rules" "$(DESTDIR)$(UDEVRULESDIR)/70-keyhold.rules" "$(DESTDIR)$(QUIRKSDIR)/50-keyhold.quirks" \
	  "$(DESTDIR)$(SYSUSERSDIR)/keyhold.conf" "$(DESTDIR)$(MODULESDIR)/keyhold.conf"
	@if [ -z "$(DESTDIR)" ]; then \
	  $(UDEVADM) control --reload; $(SYSTEMCTL) daemon-reload; \
	  $(UDEVADM) trigger --action=change --subsystem-match=input --subsystem-match=misc --subsystem-match=sound --subsystem-match=tty || true; \
	  for node in /dev/input/event* /dev/uinput /dev/snd/* /dev/tty[0-9]*; do setfacl -x u:keyhold "$$node" 2>/dev/null || true; done; \
	fi
	@if [ -z "$(DESTDIR)" ]; then userdel keyhold 2>/dev/null || true; groupdel keyhold 2>/dev/null || true; fi
	@echo "kept $(SYSCONFDIR)/keyhold (your configuration); removed the keyhold user and group"
