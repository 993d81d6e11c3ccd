"""Numbers the model copied wrong, written again as the cited text gives them.

A 1.5B model reading a precinct bulletin ("327 BALLOTS CAST … 1100 REGISTERED VOTERS") answers
"327 ballots were cast and 1,045 voters were registered [1]": the words are the file's, the number is
not. The support check drops such a sentence, and with it the part that was right. Where the number
the sentence should carry can be found without guessing, it is put in instead:

- by its label: the words the sentence writes next to the wrong number ("voters", "registered") are
  the words the cited text writes next to exactly one number (a label belongs to the nearest number
  on its side, so "SUP 05 1100 REGISTERED VOTERS" gives 1100, not 05);
- by a glued footnote: "1,83,190,556" where the text reads "273.879.750 1 83,190,556 2" is a
  footnote mark run into the number after it.

Anything less certain is left for the gate to drop.
"""

from __future__ import annotations

import itertools
import re

from engine.generation.words import CITE, content_words, stem

_TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|[A-Za-zÀ-ÿ]+")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*$")
_NUMBERS = re.compile(r"\d+(?:[.,:]\d+)*")
_CLAUSE_END = re.compile(r"[,;:()]|\band\b|\bbut\b|\bwhile\b|\bwhereas\b", re.IGNORECASE)
LABEL_WORDS = 4  # words read on each side of a number, up to the next number
FOOTNOTE_DIGITS = 2  # a footnote mark run into a number is this short at most


def mended(sentence: str, number: str, texts: list[str]) -> str | None:
    """`sentence` with the misquoted `number` replaced by the one `texts` give for the same words,
    or None when no single number is certain."""
    right = _glued(number, texts) or _labelled(_label_words(sentence, number), texts, sentence)
    if right is None or right == number:
        return None
    return re.sub(rf"(?<![\d.,:]){re.escape(number)}(?![\d])", right, sentence, count=1)


def _label_words(sentence: str, number: str) -> set[str]:
    """The content words of the clause that holds `number`, by stem: what the sentence says it counts."""
    at = sentence.find(number)
    if at < 0:
        return set()
    before = _CLAUSE_END.split(sentence[:at])[-1]
    after = _CLAUSE_END.split(sentence[at + len(number):])[0]
    before, after = re.split(r"\d", before)[-1], re.split(r"\d", after)[0]
    return {stem(w) for w in content_words(f"{before} {after}")}


def _labelled(words: set[str], texts: list[str], sentence: str) -> str | None:
    """The one number of `texts` whose label holds the most of `words` (all of them when the clause
    has one or two, at least two otherwise), nearest to it, and not a number the sentence already
    states. Words of a stated number's label are its own ("327 BALLOTS CAST 1100 …": "ballots cast"
    are not 1100's)."""
    if not words:
        return None
    need = len(words) if len(words) <= 2 else 2
    stated = set(_NUMBERS.findall(CITE.sub("", sentence)))
    labelled = [pair for text in texts for pair in _numbers_with_labels(text)]
    claimed = {w for value, label in labelled if value in stated for w in label}
    scored: dict[str, tuple[int, int]] = {}
    for value, label in labelled:
        held = words & label.keys() - claimed
        score = (len(held), -sum(label[w] for w in held))  # more of the words, then nearer
        if len(held) >= need and value not in stated and score > scored.get(value, (0, 0)):
            scored[value] = score
    if not scored:
        return None
    best = max(scored.values())
    winners = [v for v, n in scored.items() if n == best]
    return winners[0] if len(winners) == 1 else None


def _numbers_with_labels(text: str) -> list[tuple[str, dict[str, int]]]:
    """Each number of `text` with the stems of the words beside it and how many words away each is,
    up to `LABEL_WORDS` a side and never past another number."""
    tokens = _TOKEN.findall(text)
    out = []
    for i, token in enumerate(tokens):
        if not _NUMBER.match(token):
            continue
        label: dict[str, int] = {}
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(tokens) and abs(j - i) <= LABEL_WORDS and not _NUMBER.match(tokens[j]):
                for word in content_words(tokens[j]):
                    label[stem(word)] = min(label.get(stem(word), LABEL_WORDS), abs(j - i))
                j += step
        out.append((token, label))
    return out


def _glued(number: str, texts: list[str]) -> str | None:
    """The number a short footnote mark was run into: `number`'s digits are a footnote's and the
    next number's, read one after the other in `texts`."""
    digits = re.sub(r"\D", "", number)
    found = set()
    for text in texts:
        tokens = _TOKEN.findall(text)
        for mark, value in itertools.pairwise(tokens):
            if _NUMBER.match(mark) and _NUMBER.match(value) and len(mark) <= FOOTNOTE_DIGITS and \
                    re.sub(r"\D", "", mark + value) == digits and len(re.sub(r"\D", "", value)) > len(mark):
                found.add(value)
    return found.pop() if len(found) == 1 else None
