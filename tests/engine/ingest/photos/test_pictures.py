"""Pictures inside documents: found by each kind's parser (big enough, once each, with their alt
text and page), then indexed as photos of their document with the real vision models, cited as the
document, its page and the picture, and shown from the copy kept in the home."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image

from engine.browsing import photo_pixels
from engine.corpora import PHOTO, REGION
from engine.generation.evidence import evidence_of
from engine.pipeline import Trove
from engine.result import citation_place
from tests.conftest import EXAMPLES, shared_path
from tests.engine.ingest.parsers import parsed
from tests.office_files import epub_with_picture, odp_deck, pptx_deck, word_with_pictures

ALT = "Chelsea the tabby looking out of the kitchen window"


@pytest.fixture
def cat(tmp_path: Path) -> Path:
    """The example cat photo as a plain JPEG (python-docx cannot read its camera's EXIF block)."""
    path = tmp_path / "cat.jpg"
    Image.open(EXAMPLES / "photos" / "home" / "chelsea-window.jpg").convert("RGB").save(path, quality=90)
    return path


def test_a_word_file_keeps_each_photo_once_with_its_alt_text_and_drops_icons(tmp_path: Path, cat: Path):
    doc = parsed(word_with_pictures(tmp_path / "letter.docx", cat, ALT, tmp_path))
    assert [(p.page, p.alt) for p in doc.pictures] == [(None, ALT)]
    assert doc.pictures[0].data == cat.read_bytes()


def test_a_deck_an_ebook_and_a_pdf_give_their_pictures_with_pages(tmp_path: Path, cat: Path):
    deck = parsed(pptx_deck(tmp_path / "plans.pptx", tmp_path))
    assert [(p.page, p.alt) for p in deck.pictures] == [(1, "the green tool shed by the gate")]
    slides = parsed(odp_deck(tmp_path / "review.odp"))
    assert [(p.page, p.alt) for p in slides.pictures] == [(1, "Sales chart bars per quarter")]
    book = parsed(epub_with_picture(tmp_path / "cats.epub", cat, ALT))
    assert [(p.page, p.alt) for p in book.pictures] == [(None, ALT)]
    pdf = parsed(shared_path("eval", "documents", "pdfs", "py-pdf-sample-files", "003-pdflatex-image",
                             "pdflatex-image.pdf"))
    assert [p.page for p in pdf.pictures] == [1]
    assert Image.open(__import__("io").BytesIO(pdf.pictures[0].data)).size == (300, 200)


@pytest.fixture
def shelf(tmp_path: Path, cat: Path) -> Path:
    folder = tmp_path / "shelf"
    folder.mkdir()
    word_with_pictures(folder / "letter.docx", cat, ALT, tmp_path)
    shutil.copy(shared_path("eval", "documents", "pdfs", "py-pdf-sample-files", "003-pdflatex-image",
                            "pdflatex-image.pdf"), folder / "chapter.pdf")
    return folder


def test_pictures_are_indexed_as_photos_of_their_document_and_cited_there(trove: Trove, shelf: Path):
    report = trove.index([shelf])
    assert report.indexed == 2 and report.failed == 0
    cat = trove.search("a photo of a cat at the window", corpus=PHOTO, k=3)[0].item
    assert cat.source == str(shelf / "letter.docx") and cat.locator["picture"] == 1 and "page" not in cat.locator
    assert f"Described in the document as: {ALT}." in cat.text and "Picture 1 of letter.docx" in cat.text
    assert citation_place(cat.source, cat.locator) == "letter.docx, picture 1, whole picture"
    kept = Path(cat.locator["picture_file"])
    assert kept.is_file() and photo_pixels(kept).shape[:2] == (cat.locator["height"], cat.locator["width"])
    page = [h.item for h in trove.search("picture in the chapter", corpus=PHOTO, k=5)
            if h.item.source.endswith("chapter.pdf")][0]
    assert page.locator["page"] == 1 and citation_place(page.source, page.locator).startswith(
        "chapter.pdf, page 1, picture 1")
    evidence = evidence_of(2, "image", page.source, page.title, page.locator, page.text, 1.0)
    assert evidence.header() == "[2] picture 1 on page 1 of chapter.pdf"
    regions = [item for item in trove.store.file_items(cat.file_id, REGION)]
    assert all(r.locator["picture_file"] == str(kept) and Path(r.locator["crop"]).is_file() for r in regions)
    paragraphs = trove.search("the photo I promised of Chelsea", k=3)
    assert paragraphs[0].item.source.endswith("letter.docx")  # the document's text is indexed as before


def test_without_the_setting_no_picture_is_read_and_a_deleted_document_takes_its_pictures(
        trove: Trove, shelf: Path, cat: Path, tmp_path: Path):
    trove.settings = trove.settings.with_(document_pictures=False)
    trove.index([shelf])
    assert PHOTO not in trove.store.corpora()
    trove.settings = trove.settings.with_(document_pictures=True)
    (shelf / "letter.docx").touch()
    trove.index()
    assert PHOTO not in trove.store.corpora()  # an unchanged file is not read again for a setting
    word_with_pictures(shelf / "second.docx", cat, "the cat again", tmp_path)  # read with the setting on
    trove.index()
    found = trove.search("cat at the window", corpus=PHOTO, k=1)[0].item
    assert found.source.endswith("second.docx")
    kept = Path(found.locator["picture_file"])
    (shelf / "second.docx").unlink()
    trove.index()
    assert trove.store.corpora().get(PHOTO, 0) == 0 and not kept.parent.exists()


def test_a_picture_attached_to_an_email_is_a_photo_cited_as_its_message(trove: Trove, tmp_path: Path, cat: Path):
    from tests.office_files import mbox, message

    folder = tmp_path / "mail"
    folder.mkdir()
    mbox(folder / "home.mbox", [
        message("Boiler", "Henk <henk@example.nl>", "Tue, 04 Mar 2025 09:12:00 +0100", "Thursday at 8:00."),
        message("Our cat", "Ana <ana@example.org>", "Sun, 02 Mar 2025 11:00:00 +0100", "Look at her.",
                attachments=(("chelsea.jpg", cat.read_bytes(), "image/jpeg"),))])
    report = trove.index([folder])
    assert report.indexed == 1 and report.failed == 0
    found = trove.search("a photo of a cat at the window", corpus=PHOTO, k=1)[0].item
    assert found.source == str(folder / "home.mbox") and found.locator["page"] == 2
    assert citation_place(found.source, found.locator).startswith("home.mbox, message 2, picture 1")
    assert "attachment chelsea.jpg" in found.text and Path(found.locator["picture_file"]).is_file()
