#!/usr/bin/env python3
"""fixture-plan.py - the host side of run-e2e's fixtures group: what each simulate fixture
(Tests/Fixtures/simulate/*.txt, format in its README.md) must make the real daemon's virtual
keyboard emit, as `keyhold simulate --trace` says, and whether the guest can play it.

  fixture-plan.py KEYHOLD FIXTURES_DIR DEFAULT_CONFIG OUT_DIR

Writes OUT_DIR/plan.txt, one fixture a line, tab-separated, in the order the guest plays them:
  NAME play CONFIG DIRTY LOCKS SETTLE
                            CONFIG: cfg-HASH.toml, the fixture's configuration with its `locale:`
                            (the embedded default's text when it has none), shared by the
                            fixtures that have the same; DIRTY: 1 when it may change what a reload
                            keeps (the layer, the locale), or the next counts on a daemon that
                            keeps nothing (the callout picks the frequent order goes by), so the
                            next needs a daemon of its own;
                            LOCKS: 1 when it presses Caps Lock or Num Lock on the output, so the
                            console's locks are put off after it; SETTLE: the ms to wait before
                            it, after the fixture before it let go of its keys (an engine kept
                            across them would take a key released at the end of one and at the
                            start of the next for a double tap)
  NAME skip REASON          the guest cannot reproduce it; REASON says why
  NAME fail REASON          the plan could not be made (the guest counts it as a failure)
and for each fixture played: NAME.cmds (`probe source` commands: the script with its timing),
NAME.expect (the key events `keyhold simulate` sends to the output, `CODE VALUE` a line),
NAME.held (`held: CODE ...` as `probe keystate` prints the keys left down, or `held: none`),
NAME.release (commands that let go of the source keys the script leaves down).

A guest under TCG delivers a key later than its script says, never sooner (each wait is a sleep
after the previous write, and the daemon times keys by the kernel's stamps). A fixture is played
only when its output stays the same with any one of its waits, or its end, JITTER_MS later:
otherwise its meaning hangs on a few milliseconds (a long press at exactly 500 ms, a double tap
just too slow) and the guest would pass or fail it by chance.
"""
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys
import tomllib

JITTER_MS = 100
# The longest script played: the group has about a minute of guest time for all of them.
MAX_SCRIPT_MS = 5000
HEADER = "/usr/include/linux/input-event-codes.h"
KEY_CAPSLOCK, KEY_NUMLOCK = 58, 69


def parse_fixture(path):
    """The fields of a fixture: script, locale, config, text (README.md's format)."""
    fields, current = {}, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("#"):
            continue
        if line.startswith("    ") or not line.strip():
            if current:
                fields[current][1].append(line[4:])
            continue
        name, _, value = line.partition(":")
        current = name.strip()
        fields[current] = (value.strip(), [])
    script = " ".join([fields["script"][0]] + fields["script"][1]).split()
    config = None
    if "config" in fields:
        block = fields["config"][1]
        while block and not block[-1].strip():
            block.pop()
        config = "\n".join(block) + "\n"
    return {"script": script, "locale": fields.get("locale", ("", []))[0] or None,
            "config": config, "text": unquote(fields["text"][0])}


def unquote(quoted):
    """A fixture's quoted text with its escapes: \\\\ \\" \\n \\t \\u{HEX}."""
    body = quoted[1:-1]
    return re.sub(r'\\(u\{([0-9a-fA-F]+)\}|.)',
                  lambda m: chr(int(m.group(2), 16)) if m.group(2) else {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)),
                  body)


def configuration(fixture, default_text):
    """The configuration file `keyhold run` is given: the fixture's (or the default), with its
    `locale:` as `[callouts] locales`, which is what simulate's --locale means."""
    text = fixture["config"] if fixture["config"] is not None else default_text
    if not fixture["locale"]:
        return text
    setting = 'locales = ["%s"]' % fixture["locale"]
    lines, section, callouts = text.rstrip("\n").split("\n"), None, None
    for i, line in enumerate(lines):
        header = re.match(r"\s*\[([^\]]*)\]", line)
        if header:
            section = header.group(1).strip()
            callouts = i if section == "callouts" else callouts
        elif section == "callouts" and re.match(r"\s*locales\s*=", line):
            lines[i] = setting
            return "\n".join(lines) + "\n"
    if callouts is None:
        lines += ["", "[callouts]", setting]
    else:
        lines.insert(callouts + 1, setting)
    return "\n".join(lines) + "\n"


def simulate(keyhold, config, steps):
    """What `keyhold simulate --trace` prints: the text, and the output's key events (name, value)."""
    run = subprocess.run([keyhold, "simulate", "--config", config, "--trace", " ".join(steps)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("keyhold simulate: " + run.stderr.strip())
    trace = run.stderr.splitlines()
    values = {"down": 1, "up": 0, "repeat": 2}
    events = [(w[2], values[w[3]]) for w in (l.split(" ") for l in trace) if len(w) == 4 and w[1] == "out"]
    return run.stdout[:-1] if run.stdout.endswith("\n") else run.stdout, events, trace


def later(steps, gap, ms):
    """The script with the wait before key step `gap` (len(keys): its end) `ms` longer."""
    keys = [i for i, s in enumerate(steps) if not s.lower().startswith("t:")]
    at = keys[gap] if gap < len(keys) else len(steps)
    return steps[:at] + ["t:%d" % ms] + steps[at:]


def main():
    keyhold, fixtures_dir, default_config, out = sys.argv[1:5]
    default_text = open(default_config, encoding="utf-8").read()
    codes = {}
    for line in open(HEADER):
        m = re.match(r"#define\s+(KEY_\w+)\s+(\w+)", line)
        if m:
            codes[m.group(1)] = int(m.group(2), 0) if m.group(2)[0].isdigit() else codes.get(m.group(2))

    def code(name):
        if name.startswith("code") and name[4:].isdigit():
            return int(name[4:])
        value = codes.get("KEY_" + name.upper())
        if value is None:
            raise RuntimeError("no key code for '%s' in %s" % (name, HEADER))
        return value

    os.makedirs(out, exist_ok=True)

    def plan_one(name):
        try:
            return (name,) + plan_fixture(name, os.path.join(fixtures_dir, name), keyhold, default_text, out, code)
        except Exception as error:   # one broken fixture must not hide the others
            return (name, "fail", str(error))
    # a thousand simulate runs: one worker a core
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        plan = list(pool.map(plan_one, sorted(f for f in os.listdir(fixtures_dir) if f.endswith(".txt"))))
    lines, before, last_played = [], None, None
    for line in plan:
        if line[1] == "play":
            name, _, config, dirty, locks, keys = line
            if keys["fresh"] and last_played is not None:
                lines[last_played][3] = "1"
            last_played = len(lines)
            line = (name, "play", config, dirty, locks, str(settle(before, keys)))
            before = keys
        lines.append(list(line))
    with open(os.path.join(out, "plan.txt"), "w") as f:
        f.writelines("\t".join(line) + "\n" for line in lines)
    played = sum(1 for p in plan if p[1] == "play")
    print("fixture-plan: %d fixtures: %d to play, %d skipped, %d failed" %
          (len(plan), played, sum(1 for p in plan if p[1] == "skip"), sum(1 for p in plan if p[1] == "fail")))


def settle(before, after):
    """The ms the fixture `after` must wait once `before` let go of its keys: a key released in
    both, with its last release in `before` and its first in `after` closer than a double tap
    (and JITTER_MS), would be a double tap if the engine was kept."""
    if before is None:
        return 0
    interval = max(before["double_tap"], after["double_tap"]) + JITTER_MS
    waits = [interval - (before["end"] - before["last_release"][k]) - after["first_release"][k]
             for k in set(before["last_release"]) & set(after["first_release"])]
    return max([0] + waits)


def plan_fixture(name, path, keyhold, default_text, out, code):
    fixture = parse_fixture(path)
    steps = fixture["script"]
    text = configuration(fixture, default_text)
    config = "cfg-%s.toml" % hashlib.sha256(text.encode()).hexdigest()[:12]
    config_path = os.path.join(out, config)
    # whole or not at all: another worker may be simulating with the same file
    with open(config_path + "." + name, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(config_path + "." + name, config_path)
    printed, events, trace = simulate(keyhold, config_path, steps)
    if printed != fixture["text"]:
        raise RuntimeError("simulate with %s prints %r, the fixture says %r" % (config, printed, fixture["text"]))
    if any(l.split(" ")[1:2] == ["panic"] for l in trace):
        return ("skip", "the panic escape ends the daemon")
    total = sum(int(s[2:]) for s in steps if s.lower().startswith("t:"))
    if total > MAX_SCRIPT_MS:
        return ("skip", "its waits take %.1f s, over the %d s a fixture may take in the group" % (total / 1000, MAX_SCRIPT_MS // 1000))
    keys = [s for s in steps if not s.lower().startswith("t:")]
    for gap in range(len(keys) + 1):
        moved_text, moved, _ = simulate(keyhold, config_path, later(steps, gap, JITTER_MS))
        if (moved_text, moved) != (printed, events):
            where = "its end" if gap == len(keys) else "%s (key step %d)" % (keys[gap], gap + 1)
            return ("skip", "timing: its output changes when %s comes %d ms later" % (where, JITTER_MS))
    expect = [(code(k), v) for k, v in events]
    held = sorted({k for k, _ in expect if [v for c, v in expect if c == k][-1] != 0})
    down, now, first_release, last_release = [], 0, {}, {}
    with open(os.path.join(out, name + ".cmds"), "w") as f:
        for step in steps:
            kind, _, arg = step.lower().partition(":")
            if kind == "t":
                f.write("t %s\n" % arg)
                now += int(arg)
                continue
            key = code(arg)
            f.write("%s %d\n" % (kind, key))
            if kind == "d" and key not in down:
                down.append(key)
            elif kind == "u" and key in down:
                down.remove(key)
                first_release.setdefault(key, now)
                last_release[key] = now
    for key in down:   # let go of after the end
        last_release[key] = now
    with open(os.path.join(out, name + ".expect"), "w") as f:
        f.writelines("%d %d\n" % e for e in expect if e[1] != 2)
    with open(os.path.join(out, name + ".held"), "w") as f:
        f.write("held: %s\n" % (" ".join(map(str, held)) or "none"))
    with open(os.path.join(out, name + ".release"), "w") as f:
        f.writelines("u %d\n" % k for k in reversed(down))
    dirty = any(re.search(r" (gesture .* (keyboardType:|nextLocale)|locale )", l) for l in trace)
    locks = any(c in (KEY_CAPSLOCK, KEY_NUMLOCK) and v == 1 for c, v in expect)
    toml = tomllib.loads(text)
    keys = {"double_tap": toml.get("gestures", {}).get("double_tap_ms", 200), "end": now,
            "first_release": first_release, "last_release": last_release,
            # the frequent order goes by the picks a daemon kept: it needs one that kept none
            "fresh": toml.get("callouts", {}).get("order") == "frequent"}
    return ("play", config, "1" if dirty else "0", "1" if locks else "0", keys)


if __name__ == "__main__":
    main()
