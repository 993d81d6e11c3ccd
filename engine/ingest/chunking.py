"""Cutting a parsed document into items at two granularities.

The headings right before a block start the first chunk cut from it, so whatever the parser took for
a heading (a PDF's date line, a title) is still in the text the model reads.

paragraph: at most ~`max_words` words, cut at paragraph then sentence boundaries; short
           neighbouring blocks under the same heading (list items) are merged.
document:  the whole file, or consecutive paragraphs up to ~`max_tokens` for long files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.ingest.parsed import Block, ParsedDoc

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9À-Ý])")
_ABBREV = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|vs|etc|e\.g|i\.e|No|Fig|approx|Inc|Ltd|Co)\.$")
TOKENS_PER_WORD = 1.35


@dataclass(frozen=True)
class Chunk:
    text: str
    heading: tuple[str, ...]
    start: int
    end: int
    page: int | None
    last_page: int | None = None


def words(text: str) -> int:
    return len(text.split())


def sentence_spans(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """(start, end) spans of sentences in `text`, shifted by `offset`."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if _ABBREV.search(text[start:m.start() + 1].rstrip()):
            continue
        spans.append((offset + start, offset + m.start() + len(m.group(0).rstrip())))
        start = m.end()
    if start < len(text):
        spans.append((offset + start, offset + len(text)))
    return [(s, e) for s, e in spans if e > s]


def _split_long(block: Block, doc_text: str, max_words: int) -> list[Chunk]:
    """Sentences packed into chunks of <= max_words; an over-long sentence is cut at words."""
    pieces: list[tuple[int, int]] = []
    for s, e in sentence_spans(block.text, block.start):
        if words(doc_text[s:e]) <= max_words:
            pieces.append((s, e))
            continue
        for m in re.finditer(rf"(?:\S+\s*){{1,{max_words}}}", doc_text[s:e]):
            pieces.append((s + m.start(), s + m.start() + len(m.group(0).rstrip())))
    if pieces and block.lead is not None:
        pieces[0] = (block.lead, pieces[0][1])
    chunks: list[Chunk] = []
    span: tuple[int, int] | None = None  # (start, end) of the chunk being packed
    count = 0
    for s, e in pieces:
        n = words(doc_text[s:e])
        if span is not None and count + n > max_words:
            chunks.append(Chunk(doc_text[span[0]:span[1]], block.heading, span[0], span[1], block.page,
                                block.last_page))
            span, count = None, 0
        span, count = (s if span is None else span[0], e), count + n
    if span is not None:
        chunks.append(Chunk(doc_text[span[0]:span[1]], block.heading, span[0], span[1], block.page, block.last_page))
    return chunks


def paragraph_chunks(doc: ParsedDoc, max_words: int = 100) -> list[Chunk]:
    out: list[Chunk] = []
    pending: list[Block] = []

    def flush() -> None:
        if pending:
            s, e = _start(pending[0]), pending[-1].end
            last = max((b.last_page or b.page or 0) for b in pending) or None
            out.append(Chunk(doc.text[s:e], pending[0].heading, s, e, pending[0].page, last))
            pending.clear()

    for block in doc.blocks:
        n = words(block.text)
        if n > max_words:
            flush()
            out.extend(_split_long(block, doc.text, max_words))
            continue
        if pending and (pending[0].heading != block.heading or pending[0].page != block.page or block.lead is not None
                        or sum(words(b.text) for b in pending) + n > max_words):
            flush()
        pending.append(block)
        # a block that is already a decent paragraph stands alone; short ones (list items) gather
        if n >= max_words // 2:
            flush()
    flush()
    return out


def _start(block: Block) -> int:
    return block.lead if block.lead is not None else block.start


def document_chunks(doc: ParsedDoc, paragraphs: list[Chunk], max_tokens: int = 4000) -> list[Chunk]:
    """The whole file as one item, or consecutive paragraphs up to `max_tokens` each."""
    if not paragraphs:
        return []
    total = words(doc.text) * TOKENS_PER_WORD
    if total <= max_tokens:
        return [Chunk(doc.text, (), 0, len(doc.text), paragraphs[0].page, paragraphs[-1].page)]
    out: list[Chunk] = []
    group: list[Chunk] = []
    budget = 0.0
    for para in paragraphs:
        cost = words(para.text) * TOKENS_PER_WORD
        # prefer to cut where a top-level section changes, once the group is half full
        new_section = group and para.heading[:1] != group[-1].heading[:1] and budget > max_tokens / 2
        if group and (budget + cost > max_tokens or new_section):
            out.append(_merge(doc, group))
            group, budget = [], 0.0
        group.append(para)
        budget += cost
    if group:
        out.append(_merge(doc, group))
    return out


def _merge(doc: ParsedDoc, group: list[Chunk]) -> Chunk:
    s, e = group[0].start, group[-1].end
    return Chunk(doc.text[s:e], group[0].heading[:1], s, e, group[0].page, group[-1].page)
