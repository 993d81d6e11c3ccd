"""Evidence: what the model sees, numbered, packed into the context budget."""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.generation.untrusted import inline
from engine.locators import mail_words, page_words, picture_words, source_name
from engine.retrieval.hybrid import Hit

TOKENS_PER_WORD = 1.35
CHARS_PER_TOKEN = 5.0  # English runs about 4.4 characters a token: words count first there


@dataclass
class Evidence:
    n: int
    kind: str
    source: str
    title: str
    locator: dict
    text: str  # the text shown to the model (may be an excerpt of a long document)
    score: float
    section: str = ""  # the heading path the text sits under ("Part 2 > Terms"), shown with it


    def header(self) -> str:
        """`[n] title (file, page …)`: the item's number, then its file-given names neutralised onto
        one line, so a title or a file name cannot fake another item or close the evidence."""
        return f"[{self.n}] " + inline(self._where(), 1000)

    def _where(self) -> str:
        if "sql" in self.locator:
            return f"{self.title}, query: {self.locator['sql']}"
        where = source_name(self.source, self.locator)
        if picture := picture_words(self.locator):  # inside a document: "picture 2 on page 4 of report.pdf"
            page = page_words(self.locator)
            where = f"{picture}{f' on {page}' if page else ''} of {where}"
        else:
            where = f"photo {where}" if self.kind in ("image", "region") else where
        if self.kind == "image":
            return where
        if self.kind == "region":
            return f"seen in {where}"
        if "start_s" in self.locator:
            return f"video {where}, {self.locator['start_s']:.1f}-{self.locator['end_s']:.1f} s"
        where += "".join(f", {words}" for words in (page_words(self.locator), mail_words(self.locator)) if words)
        section = f", section: {self.section}" if self.section and self.section != self.title else ""
        return f"{self.title} ({where}){section}"


def _tokens(text: str) -> int:
    """Estimated tokens: by words, or by characters where words are long (codes, base64, tables of
    digits), which the word count misses."""
    return int(max(len(text.split()) * TOKENS_PER_WORD, len(text) / CHARS_PER_TOKEN)) + 1


def _excerpt(text: str, budget_tokens: int) -> str:
    words = text.split()
    keep = int(budget_tokens / TOKENS_PER_WORD)
    out = text if len(words) <= keep else " ".join(words[:keep]) + " …"
    limit = int(budget_tokens * CHARS_PER_TOKEN)
    return out if len(out) <= limit else out[:limit] + " …"


def pack(hits: list[tuple[str, Hit]], max_items: int, budget_tokens: int,
         excerpts: dict[int, str] | None = None) -> list[Evidence]:
    """Number the best hits until the token budget is spent; drop paragraphs already inside a chosen
    document segment, and a hit that repeats one chosen (the same place in the same file, found by two
    routes). `hits` are (kind, hit) pairs, best first; `excerpts` replaces long texts."""
    chosen: list[Evidence] = []
    spans: list[tuple[str, int, int]] = []
    places: set[tuple[str, str]] = set()
    used = 0
    for kind, hit in hits:
        if len(chosen) >= max_items or used >= budget_tokens:
            break
        item = hit.item
        span = _span(item.locator)
        if span is not None and any(src == item.source and s <= span[0] and span[1] <= e for src, s, e in spans):
            continue
        place = (item.source, json.dumps(item.locator, sort_keys=True, default=str))
        if place in places:
            continue
        places.add(place)
        text = (excerpts or {}).get(item.id, item.text)
        remaining = budget_tokens - used
        if _tokens(text) > remaining:
            if remaining < 60:
                break
            text = _excerpt(text, remaining)
        chosen.append(Evidence(len(chosen) + 1, kind, item.source, item.title, item.locator, text, hit.score,
                               item.heading))
        if span is not None:
            spans.append((item.source, *span))
        used += _tokens(text)
    return chosen


def _span(locator: dict) -> tuple[int, int] | None:
    """(start, end) of a paragraph or a document segment in its file (their locators have both); else None."""
    start, end = locator.get("start"), locator.get("end")
    return None if start is None or end is None else (start, end)
