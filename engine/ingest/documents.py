"""Documents -> items of the `text/paragraph` and `text/document` corpora, with vectors."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from engine.corpora import DOCUMENT, PARAGRAPH
from engine.errors import ParseError, SkipFile
from engine.ingest import archives, chunking, scans
from engine.ingest.isolation import MEMORY_MB, TIMEOUT_S, run_isolated
from engine.ingest.parsed import AttachedTable, Line, ParsedDoc, Picture
from engine.ingest.parsers import parser_for, unpacks
from engine.locators import PassageLocator
from local_stores.corpus_store import Item, ItemKey, item_key

if TYPE_CHECKING:
    from engine.runtimes.embedders import TextEmbedderLike
    from engine.runtimes.vision.ppocr import Ocr



@dataclass
class Prepared:
    """Everything to write for one file, computed before its write transaction opens."""

    items: list[Item]
    texts: list[str]  # what the embedder reads, one per item
    file_text: str
    vectors: np.ndarray | None = None
    timings: dict[str, float] = field(default_factory=dict)
    fixed: list[tuple[Item, np.ndarray]] = field(default_factory=list)  # items with their own vectors (image)
    media: tuple[str, dict] | None = None  # (photo | video, its row of the media tables)
    image_refs: list[tuple[str, str]] = field(default_factory=list)  # (photo path, alt text) a note embeds
    warnings: list[str] = field(default_factory=list)  # indexed, but not all of it (a partly broken video)
    ocr_pages: int = 0  # scanned pages read with OCR
    pictures: list[Picture] = field(default_factory=list)  # inside the document, to be analysed as photos
    page_kind: str = "page"  # what the document's pages are (engine.ingest.parsed.ParsedDoc.page_kind)
    attached_tables: list[AttachedTable] = field(default_factory=list)  # a mail's tables, loaded by the indexer


def embedding_text(item: Item) -> str:
    """The item's text after its section (or title), unless the text already opens with it."""
    context = item.heading or item.title
    if not context or item.text.startswith(context.rsplit(" > ", 1)[-1]):
        return item.text
    return f"{context}: {item.text}"


ISOLATE_FROM_MB = 16  # zip documents unpacking to more are parsed in a worker (10 MB of Word XML: 12 s, 120 MB)


def cut_document(path: Path, paragraph_words: int, document_tokens: int, *,
                 max_unpacked_mb: float = archives.MAX_UNPACKED_MB, timeout_s: float = TIMEOUT_S,
                 memory_mb: int = MEMORY_MB, ocr: Callable[[], Ocr | None] | None = None,
                 ocr_off: str = "OCR of scanned pages is off") -> Prepared:
    """Parse and cut a document into paragraph and document items (not yet embedded); a zip-based
    document (docx, odt, epub) unpacking to more than `max_unpacked_mb` is refused, one unpacking
    to more than ISOLATE_FROM_MB is parsed in a worker held to `timeout_s` and `memory_mb`. A
    scanned page is read with the OCR `ocr` gives (`ocr_off` says why there is none).

    Raises ParseError/SkipFile with the reason."""
    parse = parser_for(path, max_unpacked_mb)
    if parse is None:
        raise ParseError(f"no parser for {path.suffix} files")
    t0 = time.perf_counter()
    scanned = scans.read(path, _parse(parse, path, timeout_s, memory_mb), ocr, why_off=ocr_off,
                         timeout_s=timeout_s, memory_mb=memory_mb)
    doc = scanned.doc
    paragraphs = chunking.paragraph_chunks(doc, paragraph_words)
    if not paragraphs:
        raise SkipFile("no text found")
    documents = chunking.document_chunks(doc, paragraphs, document_tokens)
    source = str(path)
    items = [Item(PARAGRAPH, source, c.text, _locator(c, doc), title=doc.title, heading=" > ".join(c.heading), ord=i)
             for i, c in enumerate(paragraphs)]
    # A document's own vector embeds its opening (the encoder reads 256 tokens); the rest of a long
    # document is reached through its paragraphs at search time (see retrieval.hybrid).
    items += [Item(DOCUMENT, source, c.text, _locator(c, doc), title=doc.title, heading=" > ".join(c.heading), ord=i)
              for i, c in enumerate(documents)]
    timings = {"parse": time.perf_counter() - t0 - scanned.seconds, "ocr": scanned.seconds}
    return Prepared(items, [embedding_text(it) for it in items], doc.text, timings=timings,
                    ocr_pages=scanned.pages_read, pictures=doc.pictures, page_kind=doc.page_kind,
                    attached_tables=doc.attached_tables)


def _parse(parse: Callable[[Path], ParsedDoc], path: Path, timeout_s: float, memory_mb: int) -> ParsedDoc:
    """`parse(path)`, in a worker for a zip document large enough to take long or eat memory."""
    if unpacks(path) and archives.unpacked_bytes(path) > ISOLATE_FROM_MB * 2**20:
        return run_isolated(parse, path, timeout_s=timeout_s, memory_mb=memory_mb,
                            what=f"the {path.suffix.lower()} reader")
    return parse(path)


def embed_all(batch: list[Prepared], embedder: TextEmbedderLike,
              known: list[dict[ItemKey, np.ndarray]] | None = None) -> tuple[float, int]:
    """Embed the items of several files in one call (texts of similar length batch well together);
    an item found in its file's `known` vectors (the file's last indexing) keeps its vector. Returns
    the seconds it took and how many items kept their vectors."""
    t0 = time.perf_counter()
    known = known or [{} for _ in batch]
    reused = [[old.get(item_key(item)) for item in prepared.items] for prepared, old in zip(batch, known, strict=True)]
    texts = [text for prepared, kept in zip(batch, reused, strict=True)
             for text, vector in zip(prepared.texts, kept, strict=True) if vector is None]
    fresh = iter(embedder.embed(texts))
    for prepared, kept in zip(batch, reused, strict=True):
        vectors = [vector if vector is not None else next(fresh) for vector in kept]
        prepared.vectors = np.stack(vectors) if vectors else np.zeros((0, embedder.dim), dtype=np.float32)
    return time.perf_counter() - t0, sum(v is not None for kept in reused for v in kept)


def _locator(chunk: chunking.Chunk, doc: ParsedDoc) -> PassageLocator:
    """Where the chunk is: its characters, its page (slide, message) and that page's fields."""
    loc = PassageLocator(start=chunk.start, end=chunk.end)
    if chunk.page is not None:
        loc["page"] = chunk.page
        if chunk.last_page is not None and chunk.last_page != chunk.page:
            loc["last_page"] = chunk.last_page
        if doc.page_kind != "page":
            loc["page_kind"] = doc.page_kind
        if chunk.page in doc.page_lines and chunk.last_page in (None, chunk.page):
            loc["lines"] = _lines_in(chunk.text, doc.page_lines[chunk.page])
    return cast(PassageLocator, loc | doc.page_fields.get(chunk.page, {}))  # the page's own fields


def _lines_in(text: str, lines: list[Line]) -> list[list[float]]:
    """The boxes of a scanned page's lines that the chunk's text holds (its lines were joined into
    paragraphs, a hyphen at a line's end taken out)."""
    held = " ".join(text.split())
    boxes = []
    for words, box in lines:
        said = " ".join(words.split()).rstrip("-")
        if len(said) >= 3 and said in held:
            boxes.append(list(box))
    return boxes
