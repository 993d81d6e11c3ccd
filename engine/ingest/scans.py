"""Scanned PDF pages: the pages a PDF's text layer leaves empty are rendered (pypdfium2, in the
reader worker: a PDF is untrusted input to a C library) and read with the PP-OCR that reads photos;
their lines become the pages' text, in page order with the pages that have a text layer. Mixed
PDFs OCR only the pages that need it."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import ParseError, SkipFile
from engine.ingest.isolation import MEMORY_MB, TIMEOUT_S, run_isolated
from engine.ingest.parsed import ParsedDoc
from engine.ingest.parsers import pdf

if TYPE_CHECKING:
    from engine.runtimes.vision.ppocr import Ocr
    from engine.runtimes.vision.regions import Region

DPI = 150  # a printed page's body text is about 20-25 px high: what PP-OCR's recogniser reads well
MAX_PAGES = 200  # OCR'd per file (a 2-core laptop reads a dense page in 5-30 s: bench.scans)
READ_BY = "OCR"  # in the locators of the pages read with it: citations say so, and trove status counts them
PARAGRAPH_GAP = 0.9  # a gap between lines taller than this many line heights starts a paragraph


@dataclass
class ScannedDoc:
    doc: ParsedDoc
    pages_read: int  # pages OCR'd
    seconds: float


def read(path: Path, doc: ParsedDoc, ocr: Callable[[], Ocr | None] | None, *,
         why_off: str = "OCR of scanned pages is off", timeout_s: float = TIMEOUT_S,
         memory_mb: int = MEMORY_MB) -> ScannedDoc:
    """The document with its image pages' OCR text (the first MAX_PAGES of them); `ocr` gives the
    reader, loaded only when a page needs it. Without one, a PDF that has text elsewhere keeps that
    text; one made only of images is skipped, saying why (`why_off`)."""
    pages = doc.meta.get("image_pages", [])
    if not pages:
        return ScannedDoc(doc, 0, 0.0)
    reader = ocr() if ocr is not None else None
    if reader is None:
        if doc.blocks:
            return ScannedDoc(doc, 0, 0.0)
        raise SkipFile(f"no text layer in its {len(pages)} page(s): the pages are images (a scan?), and {why_off}")
    t0 = time.perf_counter()
    wanted = pages[:MAX_PAGES]
    images = run_isolated(render, path, wanted, DPI, timeout_s=timeout_s * len(wanted), memory_mb=memory_mb,
                          what="the PDF page renderer")
    lines = {number: reader.read(image) for number, image in zip(wanted, images, strict=True)}
    texts = {number: page_text(found) for number, found in lines.items()}
    read_doc = pdf.parse(path, {n: t for n, t in texts.items() if t}, pictures=False, tables=False)
    read_doc.pictures, read_doc.attached_tables = doc.pictures, doc.attached_tables
    if not read_doc.blocks:
        raise SkipFile(f"no text in its {len(pages)} page(s): they are images, and OCR found no text on them")
    read_doc.page_fields.update({number: {"read_by": READ_BY} for number, text in texts.items() if text})
    read_doc.page_lines = {number: [(r.text, _share(r.box, image.shape)) for r in lines[number]]
                           for number, image in zip(wanted, images, strict=True) if texts[number]}
    return ScannedDoc(read_doc, len(wanted), time.perf_counter() - t0)


def render(path: Path, pages: list[int], dpi: int) -> list[np.ndarray]:
    """The pages (1-based) as BGR images at `dpi`. Runs in the reader worker."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise ParseError(f"cannot render the PDF's pages: {exc}") from exc
    try:
        out = []
        for number in pages:
            bitmap = document[number - 1].render(scale=dpi / 72, grayscale=False)
            rgb = np.asarray(bitmap.to_pil().convert("RGB"))
            out.append(np.ascontiguousarray(rgb[:, :, ::-1]))
        return out
    finally:
        document.close()


def page_text(lines: list[Region]) -> str:
    """OCR lines as a page's text, top to bottom and left to right: lines on one row joined, a
    blank line where the gap above a line is taller than PARAGRAPH_GAP line heights."""
    rows: list[list[Region]] = []
    for line in sorted(lines, key=lambda r: (r.box[1] + r.box[3]) / 2):
        middle = (line.box[1] + line.box[3]) / 2
        if rows and abs(middle - _middle(rows[-1])) < 0.5 * _height(rows[-1]):
            rows[-1].append(line)
        else:
            rows.append([line])
    out: list[str] = []
    for i, row in enumerate(rows):
        if i and row[0].box[1] - max(r.box[3] for r in rows[i - 1]) > PARAGRAPH_GAP * _height(rows[i - 1]):
            out.append("")
        out.append(" ".join(r.text for r in sorted(row, key=lambda r: r.box[0])))
    return unicodedata.normalize("NFKC", "\n".join(out))  # the recogniser writes some commas full-width


def _share(box: tuple[float, ...], shape: tuple[int, ...]) -> tuple[float, float, float, float]:
    """A box in pixels as shares of the picture's width and height (any rendering of the page fits)."""
    height, width = shape[:2]
    x1, y1, x2, y2 = box
    return round(x1 / width, 4), round(y1 / height, 4), round(x2 / width, 4), round(y2 / height, 4)


def _middle(row: list[Region]) -> float:
    return sum((r.box[1] + r.box[3]) / 2 for r in row) / len(row)


def _height(row: list[Region]) -> float:
    return max(1.0, sum(r.box[3] - r.box[1] for r in row) / len(row))
