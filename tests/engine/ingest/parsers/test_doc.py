"""Word 97–2003 .doc files, made at test time in the real format (a Compound File with a FIB and a
piece table, tests/office_files.word97_doc): text from 8-bit and UTF-16 pieces, table rows, fields
as shown; encrypted, Word 95 and foreign files refused with the reason (empty and mislabelled ones:
test_bad_files); indexed and found."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParseError
from engine.ingest.parsers import doc, kind_of
from engine.pipeline import Trove
from tests.engine.ingest.parsers import parsed
from tests.office_files import word97_doc

LETTER = [("Boiler service\r", True),
          ("Henk Verhoeven serviced the boiler on 12 March 2025 in Łódź.\r", False),  # not cp1252: UTF-16
          ("Part\x07Price\x07\x07Pressure valve\x0764.50\x07\x07", True),  # a table: two rows of two cells
          ("See \x13 HYPERLINK \"https://henk.example\" \x14henk.example\x15 for the invoice.\r", True)]


def test_a_word_97_document_reads_as_paragraphs_with_rows_and_fields_as_shown(tmp_path: Path):
    path = word97_doc(tmp_path / "boiler.doc", LETTER)
    found = parsed(path)
    assert kind_of(path) == "doc" and found.title == "boiler"  # no summary information: the file's name
    assert [b.text for b in found.blocks] == [
        "Boiler service", "Henk Verhoeven serviced the boiler on 12 March 2025 in Łódź.",
        "Part | Price", "Pressure valve | 64.50", "See henk.example for the invoice."]


def test_the_table_stream_named_by_the_fib_is_read(tmp_path: Path):
    path = word97_doc(tmp_path / "old.doc", [("Kept in 0Table.\r", True)], flags=0)
    assert [b.text for b in parsed(path).blocks] == ["Kept in 0Table."]


def test_files_that_are_no_readable_word_97_document_say_why(tmp_path: Path):
    with pytest.raises(ParseError, match="encrypted"):
        doc.parse(word97_doc(tmp_path / "locked.doc", [("secret\r", True)], flags=0x0300))
    with pytest.raises(ParseError, match="Word 6 or Word 95"):
        doc.parse(word97_doc(tmp_path / "old.doc", [("old\r", True)], n_fib=0x0065))
    from tests.compound_file import write

    with pytest.raises(ParseError, match="not a Word document"):  # a workbook named .doc
        doc.parse(write(tmp_path / "sheet.doc", {"Workbook": b"\x09\x08" + bytes(64)}))


def test_a_doc_is_indexed_and_its_passage_found(trove: Trove, tmp_path: Path):
    folder = tmp_path / "letters"
    folder.mkdir()
    word97_doc(folder / "boiler.doc", LETTER)
    report = trove.index([folder])
    assert report.indexed == 1 and report.failed == 0
    hit = trove.search("who serviced the boiler", k=1)[0].item
    assert hit.source == str(folder / "boiler.doc") and "Henk Verhoeven" in hit.text


REPORT = [("Boiler\r", True), ("Henk serviced the boiler on 12 March.\r", True), ("Parts\r", False),
          ("A pressure valve for 64.50.\r", True), ("Garden\r", True), ("The hedge was cut in May.\r", True)]


@pytest.mark.parametrize("named_styles", [False, True], ids=["built-in", "named"])
def test_paragraphs_in_heading_styles_are_the_documents_headings(tmp_path: Path, named_styles: bool):
    path = word97_doc(tmp_path / "house.doc", REPORT, headings={0: 1, 2: 2, 4: 1}, named_styles=named_styles)
    found = parsed(path)
    assert [(b.text, b.heading) for b in found.blocks] == [
        ("Henk serviced the boiler on 12 March.", ("Boiler",)),
        ("A pressure valve for 64.50.", ("Boiler", "Parts")),  # its mark stored as UTF-16: found all the same
        ("The hedge was cut in May.", ("Garden",))]


def test_a_field_spanning_paragraphs_shows_its_result_in_each(tmp_path: Path):
    toc = [("\x13 TOC \\o \"1-3\" \x14Boiler\t\x13 PAGEREF _Toc1 \\h \x141\x15\rGarden\t2\x15\r", True),
           ("Boiler\r", True), ("Serviced in March.\r", True)]
    found = parsed(word97_doc(tmp_path / "toc.doc", toc, headings={2: 1}))
    assert [(b.text, b.heading) for b in found.blocks] == [
        ("Boiler 1", ()), ("Garden 2", ()), ("Serviced in March.", ("Boiler",))]
