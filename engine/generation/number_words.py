"""Numbers written in words ("Four hundred sixty-eight medical societies", "twenty-one days") as
the digits an answer writes them with, so the support gate finds "468" in a text that spells it."""

from __future__ import annotations

import re

_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                       "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = "|".join([*_UNITS, *_TENS, *_SCALES])
_RUN = re.compile(rf"\b(?:{_WORD})(?:(?:\s+|-|\s+and\s+)(?:{_WORD}))*\b", re.IGNORECASE)


def spelled_numbers(text: str) -> list[int]:
    """Every number `text` writes in words, as a value ("four hundred and sixty-eight" -> 468)."""
    out = []
    for run in _RUN.finditer(text):
        words = [w for w in re.split(r"[\s-]+", run.group(0).lower()) if w != "and"]
        value = _value(words)
        if value is not None:
            out.append(value)
    return out


def _value(words: list[str]) -> int | None:
    total, current = 0, 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            return None
    return total + current


# "first" and "second" say earliest and a unit of time as often as a place in a series: not read
_ORDINALS = {w: i for i, w in enumerate("_ _ _ third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                                        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
                                        "twentieth".split()) if i >= 3}
_ORDINAL = re.compile(rf"\b(?:({'|'.join(_ORDINALS)})|(\d+)(?:st|nd|rd|th))\b", re.IGNORECASE)


def ordinals(text: str) -> list[int]:
    """The places in a series `text` writes ("the nineteenth edition", "the 19th"), from the third on."""
    return [_ORDINALS[m.group(1).lower()] if m.group(1) else int(m.group(2)) for m in _ORDINAL.finditer(text)]
