// The embedded default configuration: byte for byte config/keyhold.toml (a test checks it).
// After editing config/keyhold.toml, paste it between the delimiters again, unindented.

enum DefaultConfiguration {
    static let text = #"""
# Keyhold configuration.
#
# Keyhold reads /etc/keyhold/config.toml, or the file given with --config. With no file, this
# text applies: it is built into the daemon. Check a file with `keyhold check FILE`; apply it with `keyhold reload` (or SIGHUP),
# which keeps the running configuration if the new one has an error.
# Every value below is the default. Unknown keys are errors.

[devices]
# Which keyboards to grab. Each entry is a device name glob ("*Keychron*"), a USB id
# "vvvv:pppp" in hex ("046d:c52b"), or "phys:GLOB" matching the physical path
# ("phys:usb-0000:00:14.0-2/*"). An empty include list takes every keyboard (a device with
# keys A to Z and Space); exclude wins over include. Keyhold's own virtual keyboard is never taken.
include = []
exclude = []

[gestures]
# Key timing, in milliseconds.
# Holding a key this long, with no other key pressed since, opens its callouts (accent picker)
# or runs its long_press binding.
long_press_ms = 500
# Held keys that Keyhold handles and whose action repeats (backspace, cursor moves, space,
# characters without callouts) repeat first after this delay... Keys passed through unchanged
# keep the desktop's own key repeat.
repeat_delay_ms = 600
# ...then at this interval.
repeat_interval_ms = 40
# A second release of the same key within this time of the first is a double tap.
double_tap_ms = 200

[callouts]
# Hold a letter to pick an accent: hold e, then press 1-9 to choose, Right/Tab/e to cycle,
# Enter to keep what is shown, Esc to go back to e.
enabled = true
# An open callout nobody touches for this long closes, keeping what it shows (0: never).
timeout_ms = 10000
# Callout locales (CLDR identifiers: "fr", "de-CH", "sr-Latn", ...). The first is active; the
# nextLocale action cycles through them.
locales = ["en"]
# The candidates' order: "locale" (the locales' order: a candidate's number never moves) or
# "frequent" (the ones you pick most first; learned in your session, kept in your home by
# keyhold-session: keyhold picks shows them, keyhold picks --clear forgets them).
order = "locale"

[callouts.custom]
# Candidates per base character, in order; they replace the locale's candidates for it.
# An empty list turns callouts off for that character.
# e = ["é", "è", "ê", "ë"]
# "$" = ["€", "£", "¥"]

[callouts.locale]
# Locales of your own, to list in `locales` like any other: a table per locale with candidates
# per base character, on top of an optional base locale's. Named like a built-in locale ("fr"),
# it replaces that one.
# [callouts.locale.fr-linguist]
# base = "fr"
# e = ["é", "è", "ê", "ë", "ə", "ɛ"]

[output]
# The XKB layout characters are typed with. "" reads XKBLAYOUT, XKBVARIANT and XKBOPTIONS from
# /etc/default/keyboard, else uses "us".
layout = ""
variant = ""
options = ""
# How to type characters the layout cannot:
#   "auto"          by where the keys go, again at every session switch: "console" on a text
#                   VT; in a graphical session "session" while its keyhold-session companion
#                   is connected, else "ctrl-shift-u" (`keyhold status` says which)
#   "session"       the keyhold-session companion types them through the desktop
#   "console"       Linux virtual console: Alt held, the decimal code on the keypad
#   "ctrl-shift-u"  GTK and IBus hex entry
#   "compose"       Compose sequences from the table `keyhold compose-file` prints
unicode_method = "auto"
# The evdev name of the key your XKB setup treats as Compose (Multi_key), for "compose".
compose_key = "compose"
# Pause between synthetic key events, in microseconds, for programs that drop fast input.
pace_us = 0

[bindings]
# What keys do. key = "action" binds the press; a table binds gestures:
#   key = { press = "...", release = "...", long_press = "...", repeat_press = "...", double_tap = "..." }
# or makes a dual-role key (keyd's overload): the hold action is in force while the key is down
# (a modifier goes down at once); released within long_press_ms with no other key pressed, the
# hold is undone and the tap action runs instead:
#   key = { tap = "...", hold = "..." }
# Keys are evdev names without KEY_, in any case: a, 1, capslock, leftalt, rightmeta, f13, kp1...
# Actions: backspace, space, tab, return, escape, shift, capsLock, control, option, command,
#   moveCursorBackward, moveCursorForward, nextLocale, search (the picker as a search of every
#   character by name), none (swallows the key),
#   character:é, text:hello, emoji:🙂, key:f13 (sends that key), keyboardType:symbolic (switches
#   layer), primary:done, custom:NAME (for a custom action handler).
# Unbound keys without callouts pass through unchanged.
#
# Double-tap Right Alt (AltGr) to find any character by name: type "euro", then 1 for €; Right and
# Left turn pages, Backspace edits, Esc closes typing nothing. The key still works as it did.
rightalt = { double_tap = "search" }
# capslock = { tap = "escape", hold = "control" }
# rightalt = { press = "keyboardType:symbolic", release = "keyboardType:alphabetic" }

# [layers.symbolic]
# A layer, in the same form as [bindings], active while keyboardType:symbolic is selected
# (numeric, emojis or any other name work the same). Keys it does not bind use [bindings].
# j = "character:("

[feedback]
# Audio: short synthesized clicks through ALSA (input, delete and system sounds).
audio = true
# Haptics: rumble on a force-feedback device, where there is one.
haptic = true
# Audio volume, from 0 to 1.
volume = 0.5
# The ALSA PCM the daemon plays on without a companion; "default" is the sound card's own
# (ALSA's sysdefault), never a desktop sound server's, which a system service cannot reach.
audio_device = "default"
# The force-feedback device name (a glob); "" detects one.
haptic_device = ""

# Overrides of the standard feedback (input sound on typing, delete sound on backspace, system
# sound on other actions; a light tap on press and double tap, a medium one on long press).
# Each names a gesture, optionally an action, and the audio and/or haptic to use instead:
# audio is input, delete, system, none or a WAV file path; haptic is lightImpact, mediumImpact,
# heavyImpact, selectionChanged, success, warning, error or none.
# [[feedback.override]]
# action = "backspace"
# gesture = "long_press"
# audio = "/usr/share/sounds/keyhold/erase.wav"
# haptic = "none"

# Applications. Keyhold acts where text is typed and leaves everything else alone. The session
# companion says which application has the keyboard focus (X11: the active window's WM_CLASS;
# wlroots: the focused window's app_id) and, where the desktop knows, whether a text field has
# it. Built in, whatever the rules say: where the desktop says no text field has the focus (a
# fullscreen game, a video player), every key passes through unchanged, held while held; a
# password field never opens a picker. Where the desktop says nothing, the rules below and the
# settings above decide.
# [apps."GLOB"] tables are matched, in this file's order, against the application's ids (any
# case; shell globs: *, ?, [...]); the first that matches is in force while it has the focus.
# Each may set:
# callouts = false              no callouts: held keys repeat as the desktop repeats them
# bindings = { ... }            replaces [bindings] while in force ({} for none)
# layers = { NAME = { ... } }   replaces [layers]
# unicode_method = "compose"    as [output] unicode_method
# For example, plain key repeat in terminals (vim's normal mode takes keys, not text):
# [apps."xterm"]
# callouts = false
# [apps."foot"]
# callouts = false

[users]
# Each user may keep settings of their own in ~/.config/keyhold/config.toml (the same format,
# naming only what they change: a gesture time, callout locales, a binding, an application's
# rule). Their keyhold-session hands it to the daemon, which lays it over this file while their
# session is in front of the seat; `keyhold check` and `keyhold reload`, run as them, work on it.
# The sections users may set (devices, output and this table are this file's alone, as are the
# feedback devices and sound files):
allow = ["gestures", "callouts", "bindings", "layers", "apps", "feedback"]

"""#
}
