"""A closer look when the model says the evidence does not answer: the lines of the items that
hold every word the question asks with, shown alone.

A 1.5B model told "Until when can I cancel my Lisbon hotel booking for free?" misses "Free
cancellation until 1 May 2025." inside a passage of seven lines, and quotes it when the line is all
it reads. Only an item that holds every name of the question and most of its other words (all of a
short question's; of a longer one, all but two fifths: "still … without paying" may be the file's
"Free cancellation") is looked at again, so a question about something the files do not hold ("my
hotel in Porto") is not answered from the nearest line."""

from __future__ import annotations

import re
from dataclasses import replace

from engine.generation.answer import question_names
from engine.generation.evidence import Evidence
from engine.generation.words import content_words, stems

SHARED = 2  # question words (by stem) a line must hold to be shown again
MOST_LINES = 3  # lines kept of one item
MOST_ITEMS = 2
_LINES = re.compile(r"\n+|(?<=[.!?;])\s+(?=[A-Z0-9])")


def focused(question: str, evidence: list[Evidence]) -> list[Evidence]:
    """The items that hold what the question asks with, each cut to its lines that share the most
    words with it (in reading order, numbers kept); [] when no item does."""
    asked = stems(content_words(question))
    names = [name.lower() for name in question_names(question)]
    if len(asked) < 2:
        return []
    out = []
    for item in evidence:
        whole = f"{item.stated()} {getattr(item, 'section', '')}"
        if any(name not in whole.lower() for name in names):
            continue
        if len(asked - stems(content_words(whole))) > _may_miss(len(asked)):
            continue
        lines = _closest_lines(item.text, asked)
        if lines:
            out.append(replace(item, text=" … ".join(lines)))
    return out[:MOST_ITEMS]


def _may_miss(asked: int) -> int:
    """How many of the question's words an item may lack and still be looked at again."""
    return max(1, 2 * asked // 5) if asked >= 5 else 0


def _closest_lines(text: str, asked: set[str]) -> list[str]:
    lines = [line.strip() for line in _LINES.split(text) if line.strip()]
    shared = [len(asked & stems(content_words(line))) for line in lines]
    best = sorted((i for i, n in enumerate(shared) if n >= SHARED), key=lambda i: -shared[i])[:MOST_LINES]
    return [lines[i] for i in sorted(best)]
