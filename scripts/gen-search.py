#!/usr/bin/python3
"""Writes Sources/KeyholdKit/Search/CharacterSearchData.swift, the table the picker's search
looks characters up in, by name and keyword; and CharacterSearchLocaleData.swift, CLDR's names
and keywords for them in the callout locales' languages.

Run by hand (never at build time), from anywhere:

    /usr/bin/python3 scripts/gen-search.py            # regenerate the Swift files
    /usr/bin/python3 scripts/gen-search.py --check    # regenerate in memory, compare with the files
    /usr/bin/python3 scripts/gen-search.py --find euro sign   # what the table says matches, in order

Input: the Debian packages `unicode-data` (UnicodeData.txt, emoji/emoji-test.txt) and
`unicode-cldr-core` (CLDR's annotations), Python 3 stdlib only; the callout locales and their
CLDR parents are gen-callouts.py's.

What is in it
-------------
* Characters: every character UnicodeData.txt names one by one (ranges such as CJK ideographs and
  Hangul syllables are not named there) whose general category is a letter, mark, number,
  punctuation or symbol; and every fully-qualified emoji of emoji-test.txt without a skin tone
  (ZWJ sequences and flags included), typed as that fully-qualified sequence.
* Phrases per character, each a list of words: its Unicode name; CLDR's English name (`tts`) and
  keywords; an emoji's emoji-test name. Words are folded as `fold()` says, which the search folds
  a query with too (CharacterSearchIndex.swift).
* Order, which ranks equally good matches: characters CLDR annotates (the emoji and common
  symbols people search for), then those of the blocks most people type from (COMMON), then the
  others, combining marks and characters beyond the BMP last; within each, shorter names first,
  then code point.

Format (parsed once by CharacterSearchIndex.swift):
    words:      the distinct words, sorted by their UTF-8 bytes, one per line; a word's id is its line
    characters: one line per character, in rank order: TEXT<TAB>NAME<TAB>PHRASES, where PHRASES are
                its names (Unicode's, the emoji's, CLDR's), then `;` and its keywords if it has any:
                phrases separated by `,`, each word ids in base 36 separated by ` `; NAME is empty
                where it is the first phrase's words joined by spaces

Per language (CharacterSearchLocaleData.swift), for the characters its CLDR annotations name:
    words:      its distinct words, as above
    characters: one line per character: INDEX<TAB>NAME<TAB>PHRASES; INDEX is the character's line
                in the English table (base 36), NAME CLDR's name in the language (may be empty),
                PHRASES its name's words, then `;` and the keywords the English table lacks
A callout locale names the languages it takes them from: its own file, then its CLDR parents'
(`de-CH`: de_CH, then de); English variants and locales CLDR annotates in no file add nothing.
"""
import argparse
import importlib.util
import os
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

UNICODE = "/usr/share/unicode"
ANNOTATIONS = "/usr/share/unicode/cldr/common/annotations"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "Sources/KeyholdKit/Search/CharacterSearchData.swift")
LOCALE_OUT = os.path.join(REPO, "Sources/KeyholdKit/Search/CharacterSearchLocaleData.swift")

CATEGORIES = ("L", "M", "N", "P", "S")
SKIN_TONES = {chr(c) for c in range(0x1F3FB, 0x1F400)}
# Letters NFKD leaves alone, as people spell them without the keyboard for them.
FOLDS = {"œ": "oe", "æ": "ae", "ß": "ss", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ŋ": "n"}


def fold(text):
    """Lowercase, without diacritics, the FOLDS spelled out; then split into words (runs of
    letters and digits). The Swift side folds a typed query the same way (CharacterSearchFold)."""
    text = "".join(FOLDS.get(c, c) for c in text.lower())
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return [w for w in re.split(r"[^\w]+|_", text) if w]


def unicode_characters():
    """(character, Unicode name) for the named characters of CATEGORIES."""
    out = []
    with open(os.path.join(UNICODE, "UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            fields = line.split(";")
            name, category = fields[1], fields[2]
            if name.startswith("<") or not category.startswith(CATEGORIES):
                continue
            out.append((chr(int(fields[0], 16)), name))
    return out


def emoji():
    """(fully-qualified emoji, its emoji-test name), skin tones left out."""
    out = []
    with open(os.path.join(UNICODE, "emoji/emoji-test.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([0-9A-F ]+?)\s*; fully-qualified\s*# \S+ E[\d.]+ (.*)$", line)
            if not m:
                continue
            text = "".join(chr(int(c, 16)) for c in m.group(1).split())
            if SKIN_TONES.isdisjoint(text):
                out.append((text, m.group(2)))
    return out


def annotations(language="en"):
    """CLDR's keywords and name per annotated text (without U+FE0F), in `language` (a file's name)."""
    keywords, names = {}, {}
    for a in ET.parse(os.path.join(ANNOTATIONS, language + ".xml")).getroot().iter("annotation"):
        cp, text = a.get("cp"), (a.text or "").strip()
        if not text or a.get("draft") in ("unconfirmed", "provisional"):
            continue
        if a.get("type") == "tts":
            names[cp] = text
        else:
            keywords[cp] = [k.strip() for k in text.split("|") if k.strip()]
    return keywords, names


# Blocks most people type from: Latin, Greek, Cyrillic, and the punctuation, currency, letterlike,
# number form, arrow, mathematical, technical, shape and dingbat blocks (U+2000-U+2BFF).
COMMON = [(0x20, 0x250), (0x370, 0x530), (0x2000, 0x2C00)]


def group(text, entry):
    """Which of equally good matches come first: what CLDR annotates, then the common blocks'
    characters, then other characters, then combining marks and the rest of the planes."""
    if entry["annotated"]:
        return 0
    cp = ord(text[0])
    if unicodedata.category(text[0]).startswith("M"):
        return 3
    if any(lo <= cp < hi for lo, hi in COMMON):
        return 1
    return 2 if cp < 0x10000 else 3


def build():
    keywords, tts = annotations()
    # text -> {"name": display name, "names": [words...] of its names, "keywords": [words...], "annotated": bool}
    entries = {}
    for text, name in unicode_characters():
        entries[text] = {"name": name.lower(), "names": [fold(name)], "keywords": [], "annotated": False}
    for text, name in emoji():
        e = entries.setdefault(text, {"name": name, "names": [], "keywords": [], "annotated": False})
        e["names"].append(fold(name))
        bare = text.replace("\ufe0f", "")
        if bare != text and bare in entries:   # ❤ and ❤️ are one character to a user: the emoji form
            e["names"] += entries.pop(bare)["names"]
    for cp in set(keywords) | set(tts):
        text = annotated_text(cp, entries)
        if text is None:
            continue
        e = entries[text]
        e["annotated"] = True
        if cp in tts:
            e["name"] = tts[cp]
            e["names"].append(fold(tts[cp]))
        e["keywords"] += [fold(k) for k in keywords.get(cp, [])]
    for e in entries.values():
        e["names"] = distinct(e["names"])
        e["keywords"] = distinct(e["keywords"], e["names"])
        e["phrases"] = e["names"] + e["keywords"]
    ranked = sorted(entries.items(), key=lambda kv: (group(kv[0], kv[1]), len(kv[1]["name"]), [ord(c) for c in kv[0]]))
    words = sorted({w for _, e in ranked for p in e["phrases"] for w in p}, key=lambda w: w.encode())
    return ranked, words


def annotated_text(cp, entries):
    """The table's text for an annotation's code points: as written, or its emoji form."""
    return cp if cp in entries else (cp + "\ufe0f" if cp + "\ufe0f" in entries else None)


def callout_locales():
    """{callout locale (`de-CH`): the languages whose annotations it takes, its own first}: the
    CLDR locales gen-callouts.py makes callouts of, and their parents, that have a file."""
    spec = importlib.util.spec_from_file_location("gen_callouts", os.path.join(REPO, "scripts/gen-callouts.py"))
    callouts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(callouts)
    out = {}
    for locale in callouts.LOCALES + callouts.REGIONAL:
        files = [c for c in callouts.chain(locale)
                 if c != "root" and not c.startswith("en") and os.path.exists(os.path.join(ANNOTATIONS, c + ".xml"))]
        if files:
            out[locale.replace("_", "-")] = files
    return out


def distinct(phrases, known=()):
    """The phrases without repeats, empty ones and those in `known`, in order."""
    seen, out = {tuple(p) for p in known}, []
    for p in phrases:
        if p and tuple(p) not in seen:
            seen.add(tuple(p)); out.append(p)
    return out


def render_phrases(names, keywords, ids):
    """Names, then `;` and keywords if any: phrases separated by `,`, word ids by ` `."""
    def phrases(ps):
        return ",".join(" ".join(base36(ids[w]) for w in p) for p in ps)
    return phrases(names) + (";" + phrases(keywords) if keywords else "")


def language_tables(ranked, locales):
    """{language: (words, [(index, name, names, keywords)])}: the names of each language `locales`
    take (`callout_locales()`) and the phrases its keywords add to the English table's characters."""
    index = {text: i for i, (text, _) in enumerate(ranked)}
    english = {text: {tuple(p) for p in e["phrases"]} for text, e in ranked}
    languages = sorted({f for files in locales.values() for f in files})
    tables = {}
    for language in languages:
        keywords, tts = annotations(language)
        rows = []
        for cp in set(keywords) | set(tts):
            text = annotated_text(cp, index)
            if text is None:
                continue
            name = tts.get(cp, "")
            names = distinct([fold(name)])
            phrases = distinct([fold(k) for k in keywords.get(cp, [])], english[text] | {tuple(p) for p in names})
            if name or phrases:
                assert "\t" not in name and "\n" not in name
                rows.append((index[text], name, names, phrases))
        rows.sort()
        words = sorted({w for row in rows for p in row[2] + row[3] for w in p}, key=lambda w: w.encode())
        tables[language] = (words, rows)
    return tables


def letter_folds():
    """`fold()` of the Latin letters a keyboard layout may type (Latin-1, Extended-A and -B,
    Extended Additional), for the Swift side, which has no Unicode decomposition of its own."""
    out = []
    for cp in list(range(0xC0, 0x250)) + list(range(0x1E00, 0x1F00)):
        c = chr(cp)
        words = fold(c) if c.isalpha() else []
        if len(words) == 1 and words[0].isascii() and words[0] != c:
            out.append(c + words[0])
    return out


def base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    s = ""
    while True:
        n, r = divmod(n, 36)
        s = digits[r] + s
        if n == 0:
            return s


def render(ranked, words):
    ids = {w: i for i, w in enumerate(words)}
    lines = []
    for text, e in ranked:
        phrases = render_phrases(e["names"], e["keywords"], ids)
        assert "\t" not in e["name"] and "\n" not in e["name"]
        # The name is left out where it is the first phrase's words (most Unicode names).
        name = "" if e["name"] == " ".join(e["phrases"][0]) else e["name"]
        lines.append(f"{text}\t{name}\t{phrases}")
    head = f"""// Generated by scripts/gen-search.py from UnicodeData.txt and emoji-test.txt (Debian unicode-data)
// and CLDR {cldr_version()}'s English annotations (Debian unicode-cldr-core); do not edit.
// Regenerate: /usr/bin/python3 scripts/gen-search.py   (verify: ... --check)
// {len(ranked)} characters, {len(words)} words.

/// Source text of ``CharacterSearchIndex``, as string literals (parsed once, on first use).
enum CharacterSearchData {{
    /// The distinct folded words, sorted by their UTF-8 bytes, one a line: a word's id is its line.
    static let words = #\"\"\"
"""
    # Raw multi-line literals: `\"\"\"#` cannot occur in the data (no line holds a quote then `#`).
    body = "\n".join(words) + '\n"""#\n\n'
    body += "    /// Latin letters a layout may type and their folded spelling, `é` `e`, separated by spaces.\n"
    body += '    static let letterFolds = "' + " ".join(letter_folds()) + '"\n\n'
    body += "    /// One character a line, best first: TEXT<TAB>NAME<TAB>PHRASES (word ids in base 36,\n"
    body += "    /// its names, then `;` and its keywords; `,` between phrases, ` ` between words; NAME empty\n"
    body += "    /// where it is the first phrase's words).\n"
    common = sum(1 for text, e in ranked if group(text, e) < 2)
    body += '    static let characters = #"""\n' + "\n".join(lines) + '\n"""#\n\n'
    body += "    /// How many of the first characters are CLDR's or of the common blocks (gen-search.py, group()).\n"
    body += f"    static let commonCount = {common}\n}}\n"
    return head + body


def cldr_version():
    cldr = open("/usr/share/unicode/cldr/common/dtd/ldml.dtd", encoding="utf-8").read()
    return re.search(r'cldrVersion CDATA #FIXED "([\d.]+)"', cldr).group(1)


def render_languages(tables, locales):
    out = f"""// Generated by scripts/gen-search.py from CLDR {cldr_version()}'s annotations (Debian unicode-cldr-core),
// for the characters of CharacterSearchData.swift (made in the same run); do not edit.
// Regenerate: /usr/bin/python3 scripts/gen-search.py   (verify: ... --check)
// {len(tables)} languages, {sum(len(rows) for _, rows in tables.values())} names and keyword lists.

/// Source text of the search's names and keywords in other languages than English (parsed for
/// the locales a configuration names, `CharacterSearchIndex.localized`).
enum CharacterSearchLocaleData {{
    /// The languages each callout locale takes names and keywords from, its own first.
    static let languages: [String: [String]] = [
"""
    for locale in sorted(locales):
        out += f'        "{locale}": [' + ", ".join(f'"{f}"' for f in locales[locale]) + "],\n"
    out += """    ]

    /// Per language: its distinct folded words (sorted by their UTF-8 bytes, one a line: a word's
    /// id is its line), and one line a character: INDEX<TAB>NAME<TAB>PHRASES (INDEX the English
    /// table's line, in base 36; NAME CLDR's name here, may be empty; PHRASES as the English table's).
    static let tables: [String: (words: String, characters: String)] = [
"""
    for language in sorted(tables):
        words, rows = tables[language]
        ids = {w: i for i, w in enumerate(words)}
        lines = [f"{base36(i)}\t{name}\t" + render_phrases(names, keywords, ids) for i, name, names, keywords in rows]
        out += f'        "{language}": (words: #"""\n' + "\n".join(words) + '\n"""#, characters: #"""\n'
        out += "\n".join(lines) + '\n"""#),\n'
    return out + "    ]\n}\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--find", nargs="+")
    ap.add_argument("-q", action="store_true")
    args = ap.parse_args()
    ranked, words = build()
    if args.find:
        query = [w for q in args.find for w in fold(q)]
        for text, e in ranked:
            all_words = [w for p in e["phrases"] for w in p]
            if all(any(w.startswith(q) for w in all_words) for q in query):
                print(text, e["name"], flush=True)
        return 0
    locales = callout_locales()
    tables = language_tables(ranked, locales)
    outputs = [(OUT, render(ranked, words), f"{len(ranked)} characters, {len(words)} words"),
               (LOCALE_OUT, render_languages(tables, locales), f"{len(tables)} languages")]
    for path, text, what in outputs:
        if args.check:
            on_disk = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            if on_disk != text:
                print(f"{path} is not what scripts/gen-search.py makes of this machine's Unicode data: regenerate it", file=sys.stderr)
                return 1
            if not args.q:
                print(f"search data up to date: {what}")
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {path}: {what}, {len(text.encode())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
