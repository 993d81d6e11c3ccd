"""Scanned PDFs: pages without a text layer are rendered in the reader worker and read with the
photos' PP-OCR. The scans are made from real PDFs of ../shared/eval (each page rendered and saved
again as an image-only PDF), so the text they should give back is the original's text layer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

from bench.scans import recall  # in any order: a transcript's line numbers lead its text layer
from engine.browsing import page_picture
from engine.errors import SkipFile
from engine.ingest import scans
from engine.ingest.documents import cut_document
from engine.ingest.parsers import pdf
from engine.models import ModelManager
from engine.pipeline import Trove
from engine.result import citation_place
from engine.runtimes.vision import ocr
from engine.runtimes.vision.regions import TEXT, Region
from tests.conftest import MODELS_DIR, shared_path


@pytest.fixture(scope="module")
def reader():  # noqa: ANN201
    return ocr(ModelManager(MODELS_DIR), threads=2)


def scan_of(original: Path, out: Path, pages: list[int] | None = None) -> Path:
    """`original` with every page (or `pages`) replaced by its picture: an image-only PDF."""
    images = [Image.fromarray(bgr[:, :, ::-1]) for bgr in scans.render(original, pages or [1], 150)]
    images[0].save(out, "PDF", resolution=150, save_all=True, append_images=images[1:])
    return out


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


@pytest.mark.slow
def test_a_scanned_page_is_read_back_close_to_its_text_layer(reader, tmp_path: Path):  # noqa: ANN001
    original = shared_path("eval", "documents", "pdfs", "pdfplumber", "scotus-transcript-p1.pdf")
    scan = scan_of(original, tmp_path / "scan.pdf")
    assert pdf.parse(scan).meta["image_pages"] == [1] and not pdf.parse(scan).blocks
    prepared = cut_document(scan, 120, 256, ocr=lambda: reader)
    assert prepared.ocr_pages == 1 and prepared.timings["ocr"] > 0
    assert all(item.locator.get("page") == 1 for item in prepared.items)
    assert recall(pdf.parse(original).text, prepared.file_text) > 0.9, prepared.file_text[:500]
    assert "january 13 2009" in _words(prepared.file_text)


def test_without_ocr_an_image_only_pdf_is_skipped_saying_why(tmp_path: Path):
    original = shared_path("eval", "documents", "pdfs", "pdfplumber", "scotus-transcript-p1.pdf")
    scan = scan_of(original, tmp_path / "scan.pdf")
    with pytest.raises(SkipFile, match=r"the pages are images \(a scan\?\), and OCR of scanned pages is off"):
        cut_document(scan, 120, 256, ocr=None)
    with pytest.raises(SkipFile, match="no OCR here"):
        cut_document(scan, 120, 256, ocr=lambda: None, ocr_off="no OCR here")


def test_ocr_lines_become_rows_and_paragraphs_in_reading_order():
    def line(text: str, x: float, y: float) -> Region:
        return Region(TEXT, "text", (x, y, x + 10 * len(text), y + 20), 0.9, text=text)
    lines = [line("second line", 10, 32), line("Title", 10, 0), line("right", 300, 1), line("New paragraph", 10, 90)]
    assert scans.page_text(lines) == "Title right\nsecond line\n\nNew paragraph"


@pytest.mark.slow
def test_a_folder_with_a_scan_is_indexed_searchable_and_counted(trove, tmp_path: Path):  # noqa: ANN001
    original = shared_path("eval", "documents", "pdfs", "pdfplumber", "scotus-transcript-p1.pdf")
    folder = tmp_path / "letters"
    folder.mkdir()
    scan_of(original, folder / "scan.pdf")
    report = trove.index([folder])
    assert (report.indexed, report.failed, report.ocr_pages) == (1, 0, 1) and report.timings_s["ocr"] > 0
    hits = trove.search("Knowles Mirzayance argued Tuesday January 13, 2009", k=3)
    assert hits and hits[0].item.source.endswith("scan.pdf") and hits[0].item.locator.get("page") == 1
    assert citation_place(hits[0].item.source, hits[0].item.locator).startswith("scan.pdf, page 1 (read with OCR),")
    assert trove.status()["ocr_pages"] == {"pages": 1, "files": 1}
    lines = hits[0].item.locator["lines"]  # the OCR'd lines the passage holds, as shares of the page
    assert lines and all(0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1 for x1, y1, x2, y2 in lines)
    picture = page_picture(folder / "scan.pdf", 1)  # what the app boxes them on
    assert picture.ndim == 3 and picture.shape[2] == 3 and 900 < picture.shape[0] < 1400


def test_with_pdf_ocr_off_a_scan_is_skipped_naming_the_setting(settings, embedder, tmp_path: Path):  # noqa: ANN001
    original = shared_path("eval", "documents", "pdfs", "pdfplumber", "scotus-transcript-p1.pdf")
    folder = tmp_path / "letters"
    folder.mkdir()
    scan_of(original, folder / "scan.pdf")
    trove = Trove(settings.with_(pdf_ocr=False))
    trove.models.embedder = embedder
    try:
        report = trove.index([folder])
    finally:
        trove.close()
    assert report.skipped == 1 and "setting pdf_ocr = false" in report.problems[0][2]
