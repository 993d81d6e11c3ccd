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
    doc_items = [Item(DOCUMENT, source, c.text, _locator(c), title=doc.title, heading=" > ".join(c.heading), ord=i)
                 for i, c in enumerate(documents)]
    # A document's own vector embeds its opening (the encoder reads 256 tokens); the rest of a long
    # document is reached through its paragraphs at search time (see retrieval.hybrid).
    doc_vecs = embedder.embed([embedding_text(it) for it in doc_items])
    t2 = time.perf_counter()
    vectors = np.vstack([para_vecs, doc_vecs])
    return Prepared(para_items + doc_items, vectors, doc.text, {"parse": t1 - t0, "embed": t2 - t1})


def _locator(chunk: chunking.Chunk) -> dict:
    loc: dict = {"start": chunk.start, "end": chunk.end}
    if chunk.page is not None:
        loc["page"] = chunk.page
        if chunk.last_page is not None and chunk.last_page != chunk.page:
            loc["last_page"] = chunk.last_page
    return loc
