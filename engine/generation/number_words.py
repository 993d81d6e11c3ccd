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
