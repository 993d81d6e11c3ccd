"""Documents -> items of the `text/paragraph` and `text/document` corpora, with vectors."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.errors import ParseError
from engine.ingest import chunking
from engine.ingest.parsers import parser_for
from local_stores.vector_store import Item

PARAGRAPH = "text/paragraph"
DOCUMENT = "text/document"


@dataclass
class Prepared:
    """Everything to write for one file, computed before the write transaction opens."""

    items: list[Item]
    vectors: np.ndarray
    file_text: str
    timings: dict[str, float] = field(default_factory=dict)


def embedding_text(item: Item) -> str:
    context = item.heading or item.title
    return f"{context}: {item.text}" if context else item.text


def prepare_document(path: Path, embedder, paragraph_words: int, document_tokens: int) -> Prepared:  # noqa: ANN001
    """Parse, cut and embed a document; raises ParseError/SkipFile with the reason."""
    parse = parser_for(path)
    if parse is None:
        raise ParseError(f"no parser for {path.suffix} files")
    t0 = time.perf_counter()
    doc = parse(path)
    paragraphs = chunking.paragraph_chunks(doc, paragraph_words)
    documents = chunking.document_chunks(doc, paragraphs, document_tokens)
    if not paragraphs:
        from engine.errors import SkipFile

        raise SkipFile("no text found")
    t1 = time.perf_counter()
    source = str(path)
    para_items = [
        Item(PARAGRAPH, source, c.text, _locator(c), title=doc.title, heading=" > ".join(c.heading), ord=i)
        for i, c in enumerate(paragraphs)
    ]
    para_vecs = embedder.embed([embedding_text(it) for it in para_items])
    doc_items, doc_vecs = [], []
    for i, c in enumerate(documents):
        inside = [j for j, p in enumerate(paragraphs) if p.start >= c.start and p.end <= c.end]
        vec = para_vecs[inside].mean(axis=0) if inside else embedder.embed_one(c.text)
        doc_vecs.append(vec / max(float(np.linalg.norm(vec)), 1e-12))
        doc_items.append(Item(DOCUMENT, source, c.text, _locator(c), title=doc.title,
                              heading=" > ".join(c.heading), ord=i))
    t2 = time.perf_counter()
    vectors = np.vstack([para_vecs, np.asarray(doc_vecs, dtype=np.float32).reshape(-1, para_vecs.shape[1])])
    return Prepared(para_items + doc_items, vectors, doc.text, {"parse": t1 - t0, "embed": t2 - t1})


def _locator(chunk: chunking.Chunk) -> dict:
    loc: dict = {"start": chunk.start, "end": chunk.end}
    if chunk.page is not None:
        loc["page"] = chunk.page
        if chunk.last_page is not None and chunk.last_page != chunk.page:
            loc["last_page"] = chunk.last_page
    return loc
