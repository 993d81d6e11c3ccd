"""PowerPoint 97–2003 .ppt decks, made at test time in the real format (tests/office_files.ppt_deck:
records in a PowerPoint Document stream, a persist directory per edit): slides in order under
their titles with their notes, the newest edit's slides, PowerPoint 97's text in the slide list;
encrypted and foreign files refused with the reason; indexed and cited by slide."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParseError
from engine.ingest.parsers import kind_of, ppt
from engine.pipeline import Trove
from engine.result import citation_place
from tests.engine.ingest.parsers import parsed
from tests.office_files import ppt_deck

SLIDES = [("Spring sowing", ["Broad beans in March", "Peas after the frost"], "Ask Joost about the seed order."),
          ("Allotment rota", ["Łucja waters on Tuesdays"], ""),  # not cp1252: a TextCharsAtom
          ("Budget", ["Seeds: 40 euro", "Tools: 65 euro"], "")]


def test_a_deck_reads_as_slides_under_their_titles_with_notes(tmp_path: Path):
    path = ppt_deck(tmp_path / "allotment.ppt", SLIDES)
    deck = parsed(path)
    assert kind_of(path) == "ppt" and deck.page_kind == "slide" and deck.title == "Spring sowing"
    assert [(b.page, b.heading, b.text) for b in deck.blocks] == [
        (1, ("Spring sowing",), "Broad beans in March"), (1, ("Spring sowing",), "Peas after the frost"),
        (1, ("Spring sowing",), "Speaker notes: Ask Joost about the seed order."),
        (2, ("Allotment rota",), "Łucja waters on Tuesdays"),
        (3, ("Budget",), "Seeds: 40 euro"), (3, ("Budget",), "Tools: 65 euro")]


def test_the_newest_edit_wins_and_powerpoint_97s_slide_list_text_is_read(tmp_path: Path):
    edited = parsed(ppt_deck(tmp_path / "edited.ppt", SLIDES, edited=(2, "Budget 2025")))
    assert [b.heading[0] for b in edited.blocks if b.page == 3] == ["Budget 2025", "Budget 2025"]
    old = parsed(ppt_deck(tmp_path / "old.ppt", SLIDES, in_slide_list=True))
    assert [(b.page, b.text) for b in old.blocks if not b.text.startswith("Speaker")] == [
        (1, "Broad beans in March"), (1, "Peas after the frost"), (2, "Łucja waters on Tuesdays"),
        (3, "Seeds: 40 euro"), (3, "Tools: 65 euro")]


def test_files_that_are_no_readable_deck_say_why(tmp_path: Path):
    from tests.compound_file import write

    with pytest.raises(ParseError, match="encrypted"):
        ppt.parse(write(tmp_path / "locked.ppt", {"EncryptedSummary": b"x" * 64, "Current User": b"x" * 64,
                                                  "PowerPoint Document": b"x" * 64}))
    with pytest.raises(ParseError, match="not a PowerPoint deck"):
        ppt.parse(write(tmp_path / "letter.ppt", {"WordDocument": b"x" * 64}))
    with pytest.raises(ParseError, match="corrupt .ppt"):  # its edit points past the end of the stream
        ppt.parse(write(tmp_path / "cut.ppt", {"PowerPoint Document": b"\x00" * 16, "Current User": b"\x00" * 40}))


def test_a_ppt_is_indexed_and_cited_by_slide(trove: Trove, tmp_path: Path):
    folder = tmp_path / "decks"
    folder.mkdir()
    ppt_deck(folder / "allotment.ppt", SLIDES)
    assert trove.index([folder]).indexed == 1
    hit = trove.search("how much did the tools cost", k=1)[0].item
    assert hit.source == str(folder / "allotment.ppt") and citation_place(hit.source, hit.locator).startswith(
        "allotment.ppt, slide 3")
