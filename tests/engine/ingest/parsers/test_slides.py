"""Slide decks (.pptx, .odp): a section per slide under its title, slide numbers as the pages."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from engine.errors import ParseError
from engine.ingest.archives import OLE_MAGIC
from engine.ingest.parsers import kind_of
from tests.engine.ingest.parsers import parsed
from tests.office_files import encrypted_office, legacy_xls, odf_zip, odp_deck, pptx_deck


def test_a_pptx_deck_reads_titles_bullets_tables_alt_text_and_notes_by_slide(tmp_path: Path):
    doc = parsed(pptx_deck(tmp_path / "plans.pptx", tmp_path))
    assert kind_of(tmp_path / "plans.pptx") == "pptx"
    assert doc.title == "Allotment plans 2026" and doc.page_kind == "slide"
    blocks = [(b.page, b.heading, b.text) for b in doc.blocks]
    assert blocks == [
        (1, ("Spring sowing",), "Broad beans in March"),
        (1, ("Spring sowing",), "Early potatoes after Easter"),
        (1, ("Spring sowing",), "Picture: the green tool shed by the gate"),
        (1, ("Spring sowing",), "Speaker notes: Ask Joost for the seed potatoes."),
        (2, ("Plot costs",), "Item | Cost"),
        (2, ("Plot costs",), "Rent | EUR 38 a year"),
        (2, ("Plot costs",), "Water | EUR 12 a year"),
        (2, ("Plot costs",), "Compost | EUR 5 a year"),
    ]
    (table,) = doc.attached_tables  # the table is a table of its own too, cited by its slide
    assert (table.name, table.page, table.printed) == ("table 1 on slide 2.csv", 2, True)
    assert table.data.decode().splitlines() == ["Item,Cost", "Rent,EUR 38 a year", "Water,EUR 12 a year",
                                                "Compost,EUR 5 a year"]


def test_an_odp_deck_reads_frames_top_to_bottom_with_tables_pictures_and_notes(tmp_path: Path):
    doc = parsed(odp_deck(tmp_path / "review.odp"))
    assert doc.title == "Quarterly review" and doc.page_kind == "slide"
    assert [(b.page, b.heading, b.text) for b in doc.blocks] == [
        (1, ("Quarterly review",), "Sales rose 12 percent in the third quarter"),
        (1, ("Quarterly review",), "Picture: Sales chart bars per quarter"),
        (1, ("Quarterly review",), "Second point, lower down"),
        (1, ("Quarterly review",), "Speaker notes: Mention the new shop in Delft."),
        (2, ("Slide 2",), "Region | Sales"),
        (2, ("Slide 2",), "North | 410"),
    ]


def test_password_protected_and_legacy_decks_say_so(tmp_path: Path):
    with pytest.raises(ParseError, match="password-protected .pptx file"):
        parsed(encrypted_office(tmp_path / "secret.pptx"))
    legacy = legacy_xls(tmp_path / "old.pptx")  # a Compound File too, but no encrypted package in it
    assert legacy.read_bytes().startswith(OLE_MAGIC)
    with pytest.raises(ParseError, match=r"a binary Office file \(.doc, .ppt, .xls\) named .pptx"):
        parsed(legacy)
    entry = ('<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x">'
             '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="x"/>'
             '</manifest:encryption-data>')
    libreoffice = odf_zip(tmp_path / "secret.odp", "application/vnd.oasis.opendocument.presentation",
                          "\x8b\x02 encrypted bytes", manifest_extra=entry)
    with pytest.raises(ParseError, match="password-protected"):
        parsed(libreoffice)
    with zipfile.ZipFile(libreoffice) as zf:  # the test's own package is a real zip with a manifest
        assert b"encryption-data" in zf.read("META-INF/manifest.xml")
