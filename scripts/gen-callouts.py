#!/usr/bin/python3
"""Writes Sources/KeyholdKit/Callouts/LocalizedCalloutData.swift from Unicode CLDR.

Run by hand (never at build time), from anywhere:

    /usr/bin/python3 scripts/gen-callouts.py            # regenerate the Swift file
    /usr/bin/python3 scripts/gen-callouts.py --check    # regenerate in memory, verify it and the file on disk
    /usr/bin/python3 scripts/gen-callouts.py --dump fr  # print one locale's table, readable

Input: the Debian package `unicode-cldr-core` (/usr/share/unicode/cldr/common), Python 3 stdlib only.

What goes into a locale's line
------------------------------
* Letters: the lowercase non-ASCII letters of the locale's standard exemplar set
  (`<exemplarCharacters>`) and auxiliary set (`type="auxiliary"`), resolved through CLDR
  inheritance (parentLocales, then truncation, then root).  Each letter hangs off an ASCII base
  letter a-z: the first character of its NFD decomposition, or BASE_OVERRIDES for letters that do
  not decompose (ø æ œ ß ł đ ð þ ı ŋ ə ...).  Multi-letter strings such as {ch} {dž} {ij} {cʼh}
  are skipped; a {string} that is one letter plus combining marks (Lithuanian {ą\u0301}) is one
  user-perceived character and is kept.
* Order per base letter: the standard set first, then the auxiliary set.  Within each, letters
  that KeyboardKit's English (macOS) table has for that base come first in that table's order,
  the rest follow in CLDR order.  Locales in KEEP_CLDR_ORDER (Vietnamese: CLDR lists tone marks in
  their systematic order, grouped a/ă/â) keep CLDR order.
* `$`: the locale's currency symbol (territory from likelySubtags, currency from supplemental
  currencyData, symbol from the locale's <currencies>), then KeyboardKit's `$₽¥€¢£₩`, no
  duplicates.  When CLDR's symbol is only the ISO code (RON, CHF...) the narrow symbol is used
  when there is one (lei).
* `"`: the locale's quotationStart/End and alternateQuotationStart/End, then KeyboardKit's
  `"„“”«»`, no duplicates.
* Candidates never include the base character itself (no `$` under `$`, no `e` under `e`).
* `en` is KeyboardKit's hand-written English table (EN_TABLE), not CLDR's; `en-*` regional
  lines reuse it and only move their currency to the front of `$`.
* `zh-Latn-pinyin`: CLDR 41 has no zh_Latn locale (no Pinyin exemplar set).  The line is derived
  from CLDR's own transforms instead: the vowels of Latin-NumericPinyin.xml ($vowel, minus the
  ASCII stand-in v) times the four tone marks of Pinyin-NumericPinyin.xml, in tone order 1-4.

Line format (parsed by LocalizedCalloutTable.swift):
    id<TAB>base=cand cand cand<TAB>base=cand ...
Candidates are separated by one space; the base is one character.
"""
import argparse
import os
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET

CLDR = "/usr/share/unicode/cldr/common"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "Sources/KeyholdKit/Callouts/LocalizedCalloutData.swift")

# European Latin-script languages CLDR 41 has in common/main (plus az, tr, vi), CLDR ids.
# Not included: ia (Interlingua: a-z only, no territory/currency).
LOCALES = [
    "ast", "az", "br", "bs", "ca", "cs", "cy", "da", "de", "dsb", "eo", "es", "et", "eu",
    "fi", "fo", "fr", "fur", "fy", "ga", "gd", "gl", "gsw", "gv", "hr", "hsb", "hu", "is",
    "it", "ksh", "kw", "lb", "lt", "lv", "mt", "nb", "nds", "nl", "nn", "no", "pl", "pt",
    "rm", "ro", "sc", "se", "sk", "sl", "smn", "sq", "sr_Latn", "sv", "tr", "vi", "wae",
]
# Regional lines where the territory's currency differs from the language's default territory.
# Letters and quotes come from the regional CLDR file through inheritance.
REGIONAL = ["de_CH", "fr_CH", "it_CH", "en_GB", "en_IE", "sv_FI"]

# KeyboardKit 9 English callouts (macOS order), without the base character.  Hand-written.
EN_TABLE = {
    "a": "àáâäæãåā", "c": "çćč", "e": "èéêëēėę", "i": "îïíīįì", "l": "ł", "n": "ñń",
    "o": "ôöòóœøōõ", "s": "ßśš", "u": "ûüùúū", "y": "ÿ", "z": "žźż",
}
EN_DOLLAR = "$₽¥€¢£₩"   # KeyboardKit's `$` callout
EN_QUOTE = "\"„“”«»"    # KeyboardKit's `”` callout (the `"` key on a physical keyboard)

# Letters that do not decompose under NFD, attached to the ASCII letter they are typed from.
BASE_OVERRIDES = {
    "æ": "a",  # ligature ae; macOS/iOS put it under a
    "ɑ": "a",  # Latin alpha (Galician auxiliary set)
    "ª": "a",  # feminine ordinal (Spanish, Portuguese...); iOS Spanish has it under a
    "œ": "o",  # ligature oe; macOS/iOS put it under o
    "ø": "o",  # o with stroke
    "º": "o",  # masculine ordinal; iOS Spanish has it under o
    "ß": "s",  # sharp s
    "ſ": "s",  # long s (French auxiliary set)
    "ł": "l", "ŀ": "l",  # l with stroke, l with middle dot (Catalan)
    "đ": "d", "ð": "d",  # d with stroke, eth
    "þ": "t",  # thorn, spelled "th"
    "ŧ": "t",  # t with stroke (Sami)
    "ħ": "h",  # h with stroke (Maltese)
    "ǥ": "g",  # g with stroke (Skolt Sami, Finnish auxiliary)
    "ı": "i",  # dotless i (Turkish, Azerbaijani)
    "ĳ": "i",  # ligature ij, typed from i
    "ŋ": "n",  # eng (Sami)
    "ĸ": "k",  # kra
    "ə": "e",  # schwa (Azerbaijani)
    "ʒ": "z",  # ezh (Skolt Sami); ǯ decomposes to ʒ + caron and follows it
}

# Locales whose letters stay in CLDR order instead of the macOS order (see module docstring).
KEEP_CLDR_ORDER = {"vi"}

# Currency changes after CLDR 41 (2022-04): Croatia adopted the euro on 2023-01-01.
CURRENCY_OVERRIDES = {"HR": "EUR"}


# --------------------------------------------------------------------------- UnicodeSet

class UnicodeSetError(ValueError):
    pass


def _read_escape(s, i):
    """s[i] is the backslash; returns (text, next index)."""
    c = s[i + 1]
    if c == "u":
        return chr(int(s[i + 2:i + 6], 16)), i + 6
    if c == "U":
        return chr(int(s[i + 2:i + 10], 16)), i + 10
    if c == "x":
        if s[i + 2] == "{":
            j = s.index("}", i)
            return "".join(chr(int(h, 16)) for h in s[i + 3:j].split()), j + 1
        return chr(int(s[i + 2:i + 4], 16)), i + 4
    if c == "N":
        j = s.index("}", i)
        return unicodedata.lookup(s[i + 3:j]), j + 1
    if c in "pP":
        raise UnicodeSetError("property escapes \\p are not supported: %r" % s)
    named = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b", "e": "\x1b"}
    return named.get(c, c), i + 2


def parse_unicode_set(text):
    """Items of a flat CLDR UnicodeSet `[a b-d {ch} \\u0301 \\-]`, in order, ranges expanded.

    Supports what CLDR exemplar sets use: whitespace separators (ignored), single characters,
    ranges x-y, {multi-character strings}, backslash escapes (\\uXXXX, \\UXXXXXXXX, \\x{..},
    \\N{name}, \\c for a literal c).  Rejects nested sets, properties and set operators loudly.
    """
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise UnicodeSetError("not a set: %r" % text)
    s = s[1:-1]
    items = []
    i, n = 0, len(s)
    pending_range = False
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c == "{":
            j, buf = i + 1, []
            while s[j] != "}":
                if s[j] == "\\":
                    t, j = _read_escape(s, j)
                    buf.append(t)
                elif s[j].isspace():
                    j += 1  # whitespace inside strings is ignored, as in ICU
                else:
                    buf.append(s[j])
                    j += 1
            items.append("".join(buf))
            i = j + 1
            continue
        if c in "[]^&$:" and not (c == "^" and i > 0):
            raise UnicodeSetError("unsupported UnicodeSet syntax %r in %r" % (c, text))
        if c == "-":
            if not items or len(items[-1]) != 1 or pending_range:
                raise UnicodeSetError("dangling '-' in %r" % text)
            pending_range = True
            i += 1
            continue
        if c == "\\":
            ch, i = _read_escape(s, i)
        else:
            ch, i = c, i + 1
        if pending_range:
            lo = items.pop()
            if ord(ch) < ord(lo):
                raise UnicodeSetError("reversed range %s-%s" % (lo, ch))
            items.extend(chr(x) for x in range(ord(lo), ord(ch) + 1))
            pending_range = False
        else:
            items.append(ch)
    if pending_range:
        raise UnicodeSetError("dangling '-' in %r" % text)
    return items


# --------------------------------------------------------------------------- CLDR access

_trees = {}


def tree(locale):
    if locale not in _trees:
        path = os.path.join(CLDR, "main", locale + ".xml")
        _trees[locale] = ET.parse(path).getroot() if os.path.exists(path) else None
    return _trees[locale]


_supp = ET.parse(os.path.join(CLDR, "supplemental/supplementalData.xml")).getroot()
_likely = ET.parse(os.path.join(CLDR, "supplemental/likelySubtags.xml")).getroot()

PARENTS = {}
for pl in _supp.iter("parentLocale"):
    for loc in pl.get("locales").split():
        PARENTS[loc] = pl.get("parent")

LIKELY = {e.get("from"): e.get("to") for e in _likely.iter("likelySubtag")}


def chain(locale):
    """The locale, its CLDR parents, and root."""
    out = [locale]
    while locale != "root":
        if locale in PARENTS:
            locale = PARENTS[locale]
        elif "_" in locale:
            locale = locale.rsplit("_", 1)[0]
        else:
            locale = "root"
        out.append(locale)
    return out


def _plain(elements):
    """Elements without alt= (variants); draft status is accepted as CLDR ships it."""
    return [e for e in elements if e.get("alt") is None]


def find_inherited(locale, xpath, want_alt=None):
    for loc in chain(locale):
        root = tree(loc)
        if root is None:
            continue
        hits = [e for e in root.findall(xpath) if e.get("alt") == want_alt]
        if hits:
            return hits[0].text or ""
    return None


def exemplar_items(locale, kind):
    """Items of the standard (kind=None) or auxiliary exemplar set, inherited."""
    for loc in chain(locale):
        root = tree(loc)
        if root is None:
            continue
        for e in _plain(root.findall("characters/exemplarCharacters")):
            if e.get("type") == kind:
                return parse_unicode_set(e.text or "[]"), loc
    return [], None


def territory(locale):
    parts = locale.split("_")
    if len(parts) > 1 and re.fullmatch(r"[A-Z]{2}|\d{3}", parts[-1]):
        return parts[-1]
    for key in (locale, parts[0]):
        if key in LIKELY:
            region = LIKELY[key].split("_")[-1]
            return region if re.fullmatch(r"[A-Z]{2}", region) else None
    return None


def currency_code(region):
    if region is None:
        return None
    if region in CURRENCY_OVERRIDES:
        return CURRENCY_OVERRIDES[region]
    for r in _supp.iter("region"):
        if r.get("iso3166") == region:
            for c in r.findall("currency"):
                if c.get("to") is None and c.get("tender") != "false":
                    return c.get("iso4217")
    return None


def currency_symbol(locale, code):
    path = "numbers/currencies/currency[@type='%s']/symbol" % code
    symbol = find_inherited(locale, path)
    if symbol is None or symbol == code:
        narrow = find_inherited(locale, path, want_alt="narrow")
        if narrow and narrow != code:
            return narrow
    return symbol or code


def quotes(locale):
    out = []
    for tag in ("quotationStart", "quotationEnd", "alternateQuotationStart", "alternateQuotationEnd"):
        q = find_inherited(locale, "delimiters/" + tag)
        if q:
            out.append(q)
    return out


def cldr_version():
    m = re.search(r'cldrVersion CDATA #FIXED "([^"]+)"', open(os.path.join(CLDR, "dtd/ldml.dtd")).read())
    return m.group(1) if m else "unknown"


def debian_version():
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "unicode-cldr-core"],
                              capture_output=True, text=True, check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# --------------------------------------------------------------------------- letters

def is_ascii_lower(c):
    return "a" <= c <= "z"


def base_letter(letter):
    """ASCII base a-z of a lowercase letter (or letter + combining marks), or None."""
    first = letter[0]
    seen = set()
    while first not in seen:
        seen.add(first)
        if is_ascii_lower(first):
            return first
        if first in BASE_OVERRIDES:
            return BASE_OVERRIDES[first]
        d = unicodedata.normalize("NFD", first)
        if d[0] == first:
            break
        first = d[0]
    return None


def usable_letter(item):
    """NFC form of an exemplar item if it is one lowercase letter (+ combining marks), else None."""
    item = unicodedata.normalize("NFC", item)
    if not item:
        return None
    head, marks = item[0], item[1:]
    if any(unicodedata.category(m) not in ("Mn", "Mc") for m in marks):
        return None  # multi-letter string such as {ch}, {dž}, {ij}
    if unicodedata.category(head) != "Ll" and head not in BASE_OVERRIDES:
        return None  # uppercase (İ), punctuation (·), other scripts
    if not marks and is_ascii_lower(head):
        return None
    return item


def letters_of(items, warn, what):
    out = []
    for it in items:
        letter = usable_letter(it)
        if letter is None:
            continue
        base = base_letter(letter)
        if base is None:
            warn("%s: no ASCII base for %r (U+%04X), skipped" % (what, letter, ord(letter[0])))
            continue
        if letter not in [l for l, _ in out]:
            out.append((letter, base))
    return out


def order_group(letters, base, keep_cldr):
    if keep_cldr:
        return list(letters)
    en = EN_TABLE.get(base, "")
    pos = {c: i for i, c in enumerate(letters)}
    return sorted(letters, key=lambda c: (0, en.index(c)) if c in en else (1, pos[c]))


def locale_letters(locale, warn):
    std, std_from = exemplar_items(locale, None)
    aux, aux_from = exemplar_items(locale, "auxiliary")
    std_l = letters_of(std, warn, "%s standard (from %s)" % (locale, std_from))
    aux_l = letters_of(aux, warn, "%s auxiliary (from %s)" % (locale, aux_from))
    keep = locale.split("_")[0] in KEEP_CLDR_ORDER
    table = {}
    for b in "abcdefghijklmnopqrstuvwxyz":
        s = order_group([l for l, x in std_l if x == b], b, keep)
        a = order_group([l for l, x in aux_l if x == b and l not in s], b, keep)
        if s or a:
            table[b] = s + a
    return table, [l for l, _ in std_l]


def pinyin_letters():
    """zh-Latn-pinyin from CLDR's Pinyin transforms (CLDR 41 has no zh_Latn exemplars)."""
    tones = {}
    rules = ET.parse(os.path.join(CLDR, "transforms/Pinyin-NumericPinyin.xml")).getroot().find(".//tRule").text
    for line in rules.splitlines():
        m = re.match(r"\s*(\S+)\s*↔\s*([1-4])\s*;", line)
        if m:
            tones[int(m.group(2))] = m.group(1)
    if sorted(tones) != [1, 2, 3, 4] or not all(unicodedata.category(t) == "Mn" for t in tones.values()):
        raise SystemExit("unexpected Pinyin-NumericPinyin.xml: %r" % tones)
    rules = ET.parse(os.path.join(CLDR, "transforms/Latin-NumericPinyin.xml")).getroot().find(".//tRule").text
    m = re.search(r"\$vowel\s*=\s*(\[[^\]]*\])\s*;", rules)
    vowels = [v for v in parse_unicode_set(m.group(1)) if v == v.lower() and v != "v"]  # v stands for ü
    table = {}
    for v in vowels:
        base = base_letter(v)
        cands = [] if v == base else [v]
        cands += [unicodedata.normalize("NFC", v + tones[t]) for t in (1, 2, 3, 4)]
        table.setdefault(base, []).extend(c for c in cands if c not in table.get(base, []))
    return table, [c for cs in table.values() for c in cs]


# --------------------------------------------------------------------------- extras

def dedupe(seq, exclude):
    out = []
    for x in seq:
        if x and x != exclude and x not in out:
            out.append(x)
    return out


def extras(locale, english=False):
    region = territory(locale)
    code = currency_code(region)
    symbol = currency_symbol(locale, code) if code else None
    dollar = dedupe(([symbol] if symbol else []) + list(EN_DOLLAR), "$")
    if english:
        quote = dedupe(list(EN_QUOTE), '"')
    else:
        quote = dedupe(quotes(locale) + list(EN_QUOTE), '"')
    return {"$": dollar, '"': quote}, (region, code, symbol)


# --------------------------------------------------------------------------- build

def build(warn):
    """[(id, {base: [candidates]}, [standard letters], note)] in output order."""
    rows = []
    en_letters = {b: list(c) for b, c in EN_TABLE.items()}
    ex, info = extras("en", english=True)
    rows.append(("en", {**en_letters, **ex}, [], info))
    for loc in sorted(LOCALES):
        letters, std = locale_letters(loc, warn)
        ex, info = extras(loc)
        rows.append((loc.replace("_", "-"), {**letters, **ex}, std, info))
    for loc in REGIONAL:
        if loc.startswith("en_"):
            letters, std = en_letters, []
            ex, info = extras(loc, english=True)
        else:
            letters, std = locale_letters(loc, warn)
            ex, info = extras(loc)
        rows.append((loc.replace("_", "-"), {**letters, **ex}, std, info))
    letters, std = pinyin_letters()
    ex, info = extras("zh")
    rows.append(("zh-Latn-pinyin", {**letters, **ex}, std, info))
    return rows


def autonym(ident):
    """The locale's name in its own language, as a settings window lists it: CLDR's name of the
    language, then of the script and territory in parentheses, its first letter capitalized
    (CLDR writes many in lowercase, as inside a sentence)."""
    if ident == "zh-Latn-pinyin":
        return "Hànyǔ Pīnyīn"   # CLDR 41 has no zh_Latn locale (see the module docstring)
    loc = ident.replace("-", "_")
    lang, *subtags = loc.split("_")
    name = find_inherited(loc, "localeDisplayNames/languages/language[@type='%s']" % lang)
    kinds = [("scripts/script" if len(t) == 4 else "territories/territory", t) for t in subtags]
    more = [find_inherited(loc, "localeDisplayNames/%s[@type='%s']" % k) for k in kinds]
    if not name or None in more:
        raise SystemExit("%s: CLDR has no name for it" % ident)
    name = name[0].upper() + name[1:]
    return name + (" (%s)" % ", ".join(more) if more else "")


def encode(rows):
    lines = []
    for ident, table, _, _ in rows:
        fields = [ident]
        for base, cands in table.items():
            for c in cands:
                if any(ch.isspace() for ch in c) or "\t" in c or c == "" or "\\" in c or '"""' in c:
                    raise SystemExit("%s %s: candidate %r cannot be encoded" % (ident, base, c))
            if len(base) != 1 or base in " \t=":
                raise SystemExit("%s: bad base %r" % (ident, base))
            fields.append("%s=%s" % (base, " ".join(cands)))
        lines.append("\t".join(fields))
    return lines


def decode(lines):
    out = {}
    for line in lines:
        fields = line.split("\t")
        table = {}
        for f in fields[1:]:
            assert f[1] == "=", f
            table[f[0]] = f[2:].split(" ")
        out[fields[0]] = table
    return out


def swift_source(rows):
    ver, deb = cldr_version(), debian_version()
    body = "\n".join("    " + l for l in encode(rows))
    ids = " ".join(r[0] for r in rows)
    names = "\n".join("    %s\t%s" % (r[0], autonym(r[0])) for r in rows)
    return f'''// Generated by scripts/gen-callouts.py from Unicode CLDR {ver} (Debian unicode-cldr-core {deb}); do not edit.
// Regenerate: /usr/bin/python3 scripts/gen-callouts.py   (verify: ... --check)
//
// Letters: CLDR standard then auxiliary exemplar characters, attached to their ASCII base letter
// by NFD (or a documented table for ø æ œ ß ł đ ð þ ı ŋ ə ...), macOS/KeyboardKit order first.
// `$`: the locale's currency symbol, then KeyboardKit's $₽¥€¢£₩. `"`: the locale's quotation
// marks, then KeyboardKit's "„“”«». `en` is KeyboardKit's English table, hand-written.
// zh-Latn-pinyin: CLDR {ver} has no zh_Latn (Pinyin) locale; that line is derived from CLDR's
// transforms Latin-NumericPinyin.xml (vowels) and Pinyin-NumericPinyin.xml (tone marks 1-4).
// HR uses EUR (adopted 2023-01-01, after CLDR {ver}, which still lists HRK).
//
// Locales ({len(rows)}): {ids}

/// Source text of ``LocalizedCalloutTable``, kept as one string literal so it type-checks fast.
enum LocalizedCalloutData {{
    /// One line a locale: `id<TAB>base=candidate candidate…<TAB>base=…`.
    /// Candidates are separated by one space, are in display order and exclude the base character.
    static let table = #"""
{body}
    """#
    /// One line a locale: `id<TAB>its name in its own language`, for lists a person chooses from.
    static let names = #"""
{names}
    """#
}}
'''


def check(rows, on_disk):
    problems = []
    by_id = {r[0]: r for r in rows}
    for ident, table, std, _ in rows:
        for letter in std:
            base = base_letter(letter)
            if letter not in table.get(base, []):
                problems.append("%s: standard letter %s not under %s" % (ident, letter, base))
        for base, cands in table.items():
            if len(set(cands)) != len(cands):
                problems.append("%s %s: duplicate candidates %r" % (ident, base, cands))
            if base in cands:
                problems.append("%s %s: base among its candidates" % (ident, base))
            if not cands:
                problems.append("%s %s: empty candidate list" % (ident, base))
        if "$" not in table or '"' not in table:
            problems.append("%s: missing $ or \" entry" % ident)
    # Romanian: comma below (U+0219, U+021B) first, cedilla forms never first.
    ro = by_id["ro"][1]
    if ro["s"][0] != "\u0219" or ro["t"][0] != "\u021b":
        problems.append("ro: s/t must start with ș ț (comma below): %r %r" % (ro["s"], ro["t"]))
    en = by_id["en"][1]
    for b, c in EN_TABLE.items():
        if "".join(en[b]) != c:
            problems.append("en %s: %r differs from KeyboardKit %r" % (b, en[b], c))
    if len(rows) < 30:
        problems.append("only %d locales" % len(rows))
    # The file on disk must be what this script writes now.
    if on_disk is None:
        problems.append("%s does not exist; run without --check" % OUT)
    else:
        m = re.search(r'#"""\n(.*?)\n    """#', on_disk, re.S)
        disk_lines = [l[4:] for l in m.group(1).split("\n")] if m else []
        if decode(disk_lines) != decode(encode(rows)):
            problems.append("%s is stale: run the generator" % OUT)
        if on_disk != swift_source(rows):
            problems.append("%s differs from the generator's output (header or layout)" % OUT)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="verify the generated data and the file on disk")
    ap.add_argument("--dump", metavar="LOCALE", help="print one locale's table and exit")
    ap.add_argument("-q", "--quiet", action="store_true", help="do not print skipped letters")
    args = ap.parse_args()

    warnings = []
    rows = build(warnings.append)
    if not args.quiet:
        for w in warnings:
            print("note:", w, file=sys.stderr)

    if args.dump:
        for ident, table, _, info in rows:
            if ident == args.dump:
                print("%s (territory %s, currency %s, symbol %s)" % ((ident,) + tuple(info)))
                for b, c in table.items():
                    print("  %s: %s" % (b, " ".join(c)))
                return 0
        print("no locale %r" % args.dump, file=sys.stderr)
        return 1

    if args.check:
        on_disk = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else None
        problems = check(rows, on_disk)
        for p in problems:
            print("FAIL:", p, file=sys.stderr)
        print("%d locales checked, %d problems" % (len(rows), len(problems)))
        return 1 if problems else 0

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(swift_source(rows))
    print("%d locales -> %s" % (len(rows), os.path.relpath(OUT, os.getcwd())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
