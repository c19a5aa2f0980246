"""Writes packages/core/data/tokenizer/hf-unicode.json: the Unicode data HF `tokenizers` really
uses, read from the Python package over every code point, so that envroll's pre-tokenizer
classes and NFC follow HF and not the Unicode version of whatever Node runs them.

- classes: the code points Oniguruma (HF's regex engine) puts in \\p{L}, \\p{N}, \\p{P}, \\p{S},
  \\p{M}, \\p{Lu}, \\p{Ll}, \\p{Lt}, \\p{Lm}, \\p{Lo} and \\s, as [first, last] ranges;
- case_fold: for each ASCII letter, the other code points `(?i:x)` matches (s → ſ);
- nfd: full canonical decompositions (Hangul syllables excluded: they are algorithmic);
- ccc: canonical combining classes of the non-starters, probed by canonical reordering;
- compose: [first, second, composite] for every primary composite.

    .venv/bin/python test/tokenizer/gen_hf_unicode.py          # rewrite
    .venv/bin/python test/tokenizer/gen_hf_unicode.py --check  # exit 1 unless current
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import tokenizers
from tokenizers import Regex, normalizers, pre_tokenizers

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "packages/core/data/tokenizer/hf-unicode.json"
CLASSES = ["L", "N", "P", "S", "M", "Lu", "Ll", "Lt", "Lm", "Lo", "s"]
HANGUL = range(0xAC00, 0xD7A4)

CPS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
ALL = "".join(map(chr, CPS))
NFC = normalizers.NFC()
NFD = normalizers.NFD()


def ranges_of(members: list[bool]) -> list[list[int]]:
    out: list[list[int]] = []
    for i, cp in enumerate(CPS):
        if not members[i]:
            continue
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def class_members(pattern: str) -> list[bool]:
    """Which code points the pattern matches: the gaps `removed` leaves are the non-matches."""
    members = [True] * len(CPS)
    for _, (a, b) in pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(ALL):
        for i in range(a, b):
            members[i] = False
    return members


def case_fold() -> dict[str, list[int]]:
    out = {}
    for ch in "abcdefghijklmnopqrstuvwxyz":
        members = class_members(f"(?i:{ch})")
        out[ch] = [cp for i, cp in enumerate(CPS) if members[i] and chr(cp) not in (ch, ch.upper())]
    return out


def swapped(c: str, r: str) -> bool:
    """Canonical reordering moved r before c: ccc(c) > ccc(r) > 0."""
    return c != r and NFD.normalize_str("a" + c + r) == "a" + r + c


def ccc_table(nfd: dict[int, list[int]]) -> dict[int, int]:
    # One reference mark per combining class, taken from Python's Unicode data but kept only
    # where HF agrees it is a non-starter (HF's normalizer is older than some marks).
    refs: dict[int, str] = {1: "\u0334"}
    for cp in range(0x300, 0x20000):
        v = unicodedata.combining(chr(cp))
        if v > 1 and v not in refs and cp not in nfd and swapped(chr(cp), refs[1]):
            refs[v] = chr(cp)
    values = sorted(refs)
    out: dict[int, int] = {}
    for cp in CPS:
        if cp in nfd:
            continue
        c = chr(cp)
        if swapped(c, refs[1]):
            out[cp] = next((v for v in values if not swapped(c, refs[v])), 255)
        elif NFC.normalize_str("a" + c + "\u0301") == "\u00e1" + c:
            out[cp] = 1
    return out


def generate() -> dict:
    classes = {name: ranges_of(class_members(r"\s" if name == "s" else rf"\p{{{name}}}")) for name in CLASSES}
    nfd: dict[int, list[int]] = {}
    for cp in CPS:
        if cp in HANGUL:
            continue
        d = NFD.normalize_str(chr(cp))
        if d != chr(cp):
            nfd[cp] = [ord(x) for x in d]
    compose = []
    for cp, d in nfd.items():
        if len(d) < 2:
            continue
        first = NFC.normalize_str("".join(map(chr, d[:-1])))
        if len(first) == 1 and NFC.normalize_str(first + chr(d[-1])) == chr(cp):
            compose.append([ord(first), d[-1], cp])
    return {
        "source": f"tokenizers {tokenizers.__version__}",
        "classes": classes,
        "case_fold": case_fold(),
        "nfd": {str(k): v for k, v in nfd.items()},
        "ccc": {str(k): v for k, v in ccc_table(nfd).items()},
        "compose": compose,
    }


def dump(data: dict) -> str:
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in data.items()) + "\n}\n"


if __name__ == "__main__":
    fresh = dump(generate())
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != fresh:
            sys.exit(f"{OUT.relative_to(ROOT)} is stale: rerun test/tokenizer/gen_hf_unicode.py")
    else:
        OUT.write_text(fresh, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)} ({len(fresh)} bytes)")
