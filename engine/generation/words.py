"""Words as the support check, the closer look and the rewrites compare them: content words (three
letters or more, less the common ones), matched by stem."""

from __future__ import annotations

import re

CITE = re.compile(r"\[(\d{1,3})\]")
WORD = re.compile(r"[A-Za-zÀ-ÿ]{3,}")
STOP = frozenset("""
the and for with that this from your you are was were has have had not but its into which who whom
what when where will would can could should about there their they them also than then been being
our out based information provided evidence according mentioned stated given context text document
documents file files still without just even yet already ever very
""".split())


def content_words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(CITE.sub("", text))} - STOP


def stem(word: str) -> str:
    """A word cut to its first five letters: "cancel" and "cancellation", "directed" and "director" are one."""
    return word[:5]


def stems(words: set[str]) -> set[str]:
    return {stem(w) for w in words}


def shared(words: set[str], held: set[str]) -> int:
    """How many of `words` `held` has, by stem."""
    known = stems(held)
    return sum(1 for w in words if stem(w) in known)
