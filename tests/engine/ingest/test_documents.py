"""Decks, RTF and mail through the real indexer: found by search with slide and message locators,
cited by slide or by message and sender; broken files of each kind recorded with their reason while
the rest is indexed."""

from __future__ import annotations

from pathlib import Path

from engine.generation.evidence import evidence_of
from engine.pipeline import Trove
from engine.result import citation_place
from tests.office_files import RTF_LETTER, encrypted_office, household_mail, odp_deck, pptx_deck


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "kinds"
    folder.mkdir()
    pptx_deck(folder / "allotment.pptx", tmp_path)
    odp_deck(folder / "review.odp")
    (folder / "letter.rtf").write_bytes(RTF_LETTER.encode("ascii"))
    household_mail(folder / "home.mbox")
    encrypted_office(folder / "locked.pptx")
    (folder / "cut.odp").write_bytes(b"PK\x03\x04 cut short")
    (folder / "empty.mbox").write_bytes(b"")
    (folder / "renamed.rtf").write_text("plain words, not rich text")
    return folder


def test_decks_letters_and_mail_are_indexed_and_broken_ones_say_why(trove: Trove, tmp_path: Path):
    report = trove.index([_folder(tmp_path)])
    states = {Path(p["path"]).name: (p["state"], p["reason"]) for p in trove.status()["problems"]}
    assert states["locked.pptx"][0] == "failed" and "password-protected" in states["locked.pptx"][1]
    assert states["cut.odp"][0] == "failed" and "corrupt .odp" in states["cut.odp"][1]
    assert states["empty.mbox"][0] == "skipped"
    assert states["renamed.rtf"][0] == "failed" and "not an RTF document" in states["renamed.rtf"][1]
    assert report.indexed == 4 and not {"allotment.pptx", "review.odp", "letter.rtf", "home.mbox"} & set(states)


def test_a_slide_and_a_message_are_found_and_cited_by_their_number(trove: Trove, tmp_path: Path):
    trove.index([_folder(tmp_path)])
    slide = trove.search("who brings the seed potatoes", k=3)[0].item
    assert slide.source.endswith("allotment.pptx") and slide.heading == "Spring sowing"
    assert citation_place(slide.source, slide.locator).startswith("allotment.pptx, slide 1,")
    mail = trove.search("roof repair quote replacing tiles price", k=3)[0].item
    assert mail.source.endswith("home.mbox") and mail.heading == "Your quote > Attachment: quote.txt"
    assert mail.locator["page"] == 3 and mail.locator["subject"] == "Your quote"
    evidence = evidence_of(1, "paragraph", mail.source, mail.title, mail.locator, mail.text, 1.0, mail.heading)
    header = evidence.header()  # what the model reads above the passage
    assert header.startswith("[1] home.mbox, message 3, from Dakwerk Jansen <info@dakwerk.example>, "
                              "2025-03-10 14:05, 'Your quote'")  # no title "home": it is only the file's name
