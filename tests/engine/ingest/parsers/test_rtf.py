"""Rich Text Format: text decoded with the document's code page, its title from the info group."""

from __future__ import annotations

from pathlib import Path

from tests.engine.ingest.parsers import parsed
from tests.office_files import RTF_LETTER


def test_an_rtf_letter_reads_as_paragraphs_with_its_accents_and_title(tmp_path: Path):
    path = tmp_path / "letter.rtf"
    path.write_bytes(RTF_LETTER.encode("ascii"))
    doc = parsed(path)
    assert doc.title == "Letter to the café"
    assert [b.text for b in doc.blocks] == ["Dear Mr Jansen,", "The café on the corner will open at 7:30 from 1 May.",
                                            "Kind regards,", "Ana"]
    assert "fonttbl" not in doc.text and "Times" not in doc.text


def test_a_document_in_another_code_page_keeps_its_letters(tmp_path: Path):
    path = tmp_path / "brief.rtf"
    path.write_bytes(rb"{\rtf1\ansi\ansicpg1250 Dobr\'fd den, \'9aest hodin.\par}")
    assert [b.text for b in parsed(path).blocks] == ["Dobrý den, šest hodin."]
