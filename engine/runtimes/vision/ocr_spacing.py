"""The spaces of a line PP-OCR read: put back where its recogniser dropped them, taken out where they cut
a word in two.

PP-OCR's Chinese+English recogniser runs English words together ("EILEENCOLLINS") and cuts others
("in dication", "m ay", "Region-based seg mentation" on a scanned textbook page), and its character
boxes are columns, not glyph edges. The gaps between them and a WordPiece vocabulary (the text
embedder's) decide: over the figures of a scanned airworthiness directive, the share of OCR'd words
that are known words went from 77.5 % to 84.1 % with the cuts taken out (bench/RESULTS.md §46).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

STRONG_GAP = 0.7  # a gap this wide (in characters) between two character boxes is a space, unless it cuts a word
WEAK_GAP = 0.35  # a gap this wide is a space when it splits the text into known words
WORD_PIECES = 2  # a word cut by a space that is no known word is one WordPiece spells in two pieces at most
JOIN_COST = 1.0  # a space left out costs a piece ...
NOT_A_WORD = 0.5  # ... and so does joining into a spelling that is no known word
MOST_RUNS = 6  # a word is cut in this many runs at most


@dataclass(frozen=True)
class Vocabulary:
    """A WordPiece vocabulary: its whole words, to cut run-together text into words, and its pieces,
    to tell two words from one word cut in two ("seg mentation" is "segment" + "##ation" joined)."""

    words: frozenset[str] = frozenset()
    starts: frozenset[str] = frozenset()  # pieces that begin a word
    inner: frozenset[str] = frozenset()  # pieces that go on a word (written "##..." in the vocabulary)

    def known(self, piece: str) -> bool:
        lower = piece.lower()
        return lower.isdigit() or (lower in self.words and (len(lower) > 1 or lower in ("a", "i")))

    def word(self, piece: str) -> bool:
        """A known word or its plural ("minimums")."""
        return self.known(piece) or (piece[-1:].lower() == "s" and self.known(piece[:-1]))

    def pieces(self, token: str) -> int:
        """How many WordPiece pieces `token` takes (greedy longest match first, as BERT's tokenizer);
        a token it cannot spell counts more than any spelling of it."""
        token, count, start = token.lower(), 0, 0
        while start < len(token):
            pool = self.starts if start == 0 else self.inner
            end = next((end for end in range(len(token), start, -1) if token[start:end] in pool), None)
            if end is None:
                return len(token) + 1
            count, start = count + 1, end
        return count


def spaced(text: str, char_boxes: list, chars: list[str], vocab: Vocabulary | None = None) -> str:
    """Put back the spaces PP-OCR's recogniser drops ("EILEENCOLLINS" -> "EILEEN COLLINS"), and take
    out those that cut a word in two ("in dication", "m ay").

    Its character boxes are the recogniser's columns, not glyph edges, so gaps are noisy: a wide
    gap is a space and a middling one only where every piece it makes is a word of `vocab` (or a
    number): "FIRSTWOMANTOPILOT" -> "FIRST WOMAN TO PILOT", while "MARTIM" stays whole. A space,
    the recogniser's or a wide gap's, is left out where it cuts a word in two (`_word_ends`)."""
    vocab = vocab or Vocabulary()
    if len(chars) != len(char_boxes) or len(chars) < 2 or "".join(chars).replace(" ", "") != text.replace(" ", ""):
        return text
    lefts = [min(p[0] for p in box) for box in char_boxes]
    rights = [max(p[0] for p in box) for box in char_boxes]
    width = float(np.median([r - left for left, r in zip(lefts, rights, strict=True)])) or 1.0
    gaps = [(lefts[i + 1] - rights[i]) / width for i in range(len(chars) - 1)]
    line: list[str] = []  # the characters without spaces
    spaces: list[int] = []  # positions in `line` after the recogniser's spaces and wide gaps
    weak: list[int] = []  # positions after a middling gap: where a word may end
    for i, ch in enumerate(chars):
        if ch == " ":
            spaces.append(len(line))
            continue
        line.append(ch)
        if i < len(gaps) and chars[i + 1] != " " and gaps[i] >= WEAK_GAP:
            (spaces if gaps[i] >= STRONG_GAP else weak).append(len(line))
    spaces = sorted({cut for cut in spaces if 0 < cut < len(line)})
    ends = _word_ends(line, spaces, vocab)
    weak = sorted([*weak, *(cut for cut in spaces if cut not in ends)])
    pieces, start = [], 0
    for end in [*ends, len(line)]:
        pieces.append(_split(line[start:end], [cut - start for cut in weak if start < cut < end], vocab))
        start = end
    return " ".join(p for p in pieces if p)


def _word_ends(chars: list[str], cuts: list[int], vocab: Vocabulary) -> list[int]:
    """The spaces that end a word. The runs between spaces are grouped into words at the least cost
    (`_group_cost`): a known word costs 1, another spelling its WordPiece pieces, a space left out
    `JOIN_COST`; between equal costs the space stays. "seg|mentation", "m|ay" and "a|m|anner" (as
    "a manner") are joined, never "may|be" or "EILEEN|COLLINS" (two words)."""
    token = "".join(chars)
    bounds = [0, *cuts, len(chars)]
    runs = [token[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]
    best: list[tuple[float, list[int]]] = [(0.0, [])]  # over the first i runs: (cost, the cuts kept)
    for j in range(1, len(runs) + 1):
        options = []
        for i in range(j - 1, max(j - MOST_RUNS, 0) - 1, -1):
            cost = _group_cost(runs[i:j], vocab)
            if cost is not None:
                options.append((best[i][0] + cost, [*best[i][1], *([bounds[i]] if i else [])]))
        best.append(min(options, key=lambda option: option[0]))
    return best[-1][1]


def _group_cost(group: list[str], vocab: Vocabulary) -> float | None:
    """What spelling the runs of `group` as one word costs; None when they cannot be one: letters
    only, at most one of them a word by itself, a known word or one of `WORD_PIECES` pieces at most."""
    joined = "".join(group)
    if not joined.isalpha() or not vocab.starts:
        return 1.0 if len(group) == 1 else None
    if len(group) > 1 and (sum(vocab.word(run) for run in group) > 1 or _capitals_apart(group)
                           or any(a[-1].islower() and b[0].isupper() for a, b in zip(group, group[1:], strict=False))):
        return None  # two words, an acronym or initials in capitals, a capital after a small letter
    joins = JOIN_COST * (len(group) - 1)
    if vocab.word(joined):
        return 1.0 + joins
    pieces = vocab.pieces(joined)
    if len(group) == 1:
        return pieces + (1.0 if len(joined) == 1 else 0.0)  # a lone letter is rarely a word of its own
    return pieces + NOT_A_WORD + joins if pieces <= WORD_PIECES else None


def _capitals_apart(group: list[str]) -> bool:
    """Runs in capitals that are an acronym's letters ("M CAS", "A FM") or a name's initial ("MICHAEL P
    RIVES"): a short word or a lone letter in capitals is kept apart."""
    joined = "".join(group)
    return joined.isupper() and (len(joined) <= 4 or any(len(run) == 1 for run in group))


def _split(chars: list[str], cuts: list[int], vocab: Vocabulary) -> str:
    """`chars` as one token, or cut at some of `cuts` into pieces that are all known words."""
    token = "".join(chars)
    if not cuts or not vocab.words or vocab.known(token):
        return token
    ends = [*cuts, len(chars)]
    best: dict[int, list[str]] = {0: []}  # start -> fewest known pieces covering token[:start]
    for start in [0, *cuts]:
        if best.get(start) is None:
            continue
        for end in ends:
            piece = token[start:end]
            if end > start and vocab.known(piece):
                candidate = [*best[start], piece]
                if best.get(end) is None or len(candidate) < len(best[end]):
                    best[end] = candidate
    found = best.get(len(chars))
    return " ".join(found) if found else token


def vocabulary(tokenizer_json: Path) -> Vocabulary:
    """The words and pieces of a WordPiece tokenizer's vocabulary (about 20k whole English words)."""
    import json

    vocab = json.loads(tokenizer_json.read_text(encoding="utf-8"))["model"]["vocab"]
    return Vocabulary(words=frozenset(w for w in vocab if w.isalpha() and w.isascii() and not w.startswith("##")),
                      starts=frozenset(w for w in vocab if not w.startswith("##")),
                      inner=frozenset(w[2:] for w in vocab if w.startswith("##")))
