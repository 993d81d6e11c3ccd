"""E-mail: one .eml or a whole mailbox, each message under its subject with its fields in the
locators, readable attachments as sections of their message."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.errors import ParseError
from engine.ingest.parsers import kind_of
from tests.engine.ingest.parsers import parsed
from tests.office_files import household_mail, message, outlook_msg, pptx_deck


def test_a_mailbox_is_one_section_per_message_with_its_fields(tmp_path: Path):
    doc = parsed(household_mail(tmp_path / "home.mbox"))
    assert doc.title == "home" and doc.page_kind == "message" and doc.meta["messages"] == 3
    assert doc.page_fields[1] == {"from": "Henk Verhoeven <henk@example.nl>", "to": "me@example.org",
                                  "subject": "Boiler service", "date": "2025-03-04T09:12:00+01:00"}
    by_page: dict[int, list[str]] = {}
    for block in doc.blocks:
        by_page.setdefault(block.page, []).append(block.text)
    assert by_page[1][0] == ("From: Henk Verhoeven <henk@example.nl>; To: me@example.org; "
                             "Date: Tue, 04 Mar 2025 09:12:00 +0100")
    assert "I can come on Thursday 13 March at 8:00 to service the boiler." in by_page[1]
    assert "Rehearsal is in the Pieterskerk this week." in by_page[2]  # the HTML body


def test_a_readable_attachment_is_a_section_of_its_message_and_the_others_are_named(tmp_path: Path):
    doc = parsed(household_mail(tmp_path / "home.mbox"))
    quote = [b for b in doc.blocks if b.page == 3 and b.heading[:2] == ("Your quote", "Attachment: quote.txt")]
    assert [b.text for b in quote] == ["Roof repair quote", "Replacing 14 tiles: EUR 640 incl. VAT."]
    named = [b for b in doc.blocks if b.text == "Other attachments: roof.jpg (a .jpg file, not read)"]
    assert [b.heading for b in named] == [("Your quote",)]  # under the message, not inside an attachment


def test_an_attached_deck_is_read_and_a_broken_attachment_does_not_lose_the_message(tmp_path: Path):
    deck = pptx_deck(tmp_path / "plans.pptx", tmp_path).read_bytes()
    msg = message("Plans", "Joost <joost@example.nl>", "Sat, 01 Mar 2025 10:00:00 +0100", "Slides attached.",
                  attachments=(("plans.pptx", deck, "application/octet-stream"),
                               ("broken.docx", b"PK\x03\x04 cut", "application/octet-stream")))
    path = tmp_path / "plans.eml"
    path.write_bytes(bytes(msg))
    doc = parsed(path)
    assert kind_of(path) == "email" and doc.title == "Plans" and doc.page_fields[None]["subject"] == "Plans"
    texts = {b.text: b.heading for b in doc.blocks}
    assert texts["Broad beans in March"] == ("Plans", "Attachment: plans.pptx", "Spring sowing")
    assert any(t.startswith("Other attachments: broken.docx (unreadable: corrupt .docx") for t in texts)


def test_a_long_recipient_list_is_cut_in_the_locators_not_in_the_text(tmp_path: Path):
    msg = message("Street party", "Ana <ana@example.org>", "Sat, 01 Mar 2025 10:00:00 +0100", "Bring chairs.")
    crowd = ", ".join(f"neighbour{n}@example.org" for n in range(40))
    msg.replace_header("To", crowd)
    path = tmp_path / "party.eml"
    path.write_bytes(bytes(msg))
    doc = parsed(path)
    to = doc.page_fields[None]["to"]
    assert len(to) == 200 and to.endswith("…") and to.startswith("neighbour0@example.org")
    assert "neighbour39@example.org" in doc.text  # the header line keeps them all


def test_apple_mail_exports_are_read_by_their_folder_name(tmp_path: Path):
    folder = tmp_path / "Receipts.mbox"
    folder.mkdir()
    path = household_mail(folder / "mbox")
    assert kind_of(path) == "mailbox" and kind_of(tmp_path / "mbox") is None
    assert parsed(path).title == "Receipts"


def test_an_outlook_message_reads_like_an_eml_with_its_attachments(tmp_path: Path):
    path = outlook_msg(tmp_path / "handover.msg", "Key handover", ("Ilse de Wit", "ilse@makelaar.example"),
                       "Maya Lindqvist", dt.datetime(2025, 4, 2, 8, 30, tzinfo=dt.UTC),
                       "The keys are at the office from Friday.\r\n\r\nBring your ID.",
                       attachments=(("checklist.txt", b"Handover checklist\n\nMeter readings: 04512 kWh.\n"),
                                    ("floorplan.png", b"\x89PNG not really")),
                       attached_mail="Original offer.msg")
    assert kind_of(path) == "outlook"
    doc = parsed(path)
    assert doc.title == "Key handover" and doc.page_fields[None] == {
        "from": "Ilse de Wit <ilse@makelaar.example>", "to": "Maya Lindqvist", "subject": "Key handover",
        "date": "2025-04-02T08:30:00+00:00"}
    texts = [(b.heading, b.text) for b in doc.blocks]
    assert texts[0] == (("Key handover",), "From: Ilse de Wit <ilse@makelaar.example>; To: Maya Lindqvist; "
                                           "Date: Wed, 02 Apr 2025 08:30:00 +0000")
    assert (("Key handover",), "Bring your ID.") in texts
    assert (("Key handover", "Attachment: checklist.txt"), "Meter readings: 04512 kWh.") in texts
    assert (("Key handover",), "Other attachments: floorplan.png (a .png file, not read); "
                               "Original offer.msg (a .msg file, not read)") in texts


def test_a_compound_file_that_is_no_message_is_refused(tmp_path: Path):
    from tests.office_files import legacy_xls

    with pytest.raises(ParseError, match="not an Outlook message"):
        parsed(legacy_xls(tmp_path / "sheet.msg"))
    renamed = tmp_path / "note.msg"
    renamed.write_text("From: someone\n\nsaved as text")
    with pytest.raises(ParseError, match="not an Outlook message: it is not a Compound File"):
        parsed(renamed)


def _photo(path: Path) -> bytes:
    """The example cat photo as a plain JPEG."""
    from PIL import Image

    from tests.conftest import EXAMPLES

    Image.open(EXAMPLES / "photos" / "home" / "chelsea-window.jpg").convert("RGB").save(path, quality=90)
    return path.read_bytes()


def test_attached_pictures_and_those_inside_attached_documents_become_the_mails_pictures(tmp_path: Path):
    from tests.office_files import mbox

    cat = _photo(tmp_path / "cat.jpg")
    deck = pptx_deck(tmp_path / "plans.pptx", tmp_path).read_bytes()  # a deck with one picture on slide 1
    box = mbox(tmp_path / "home.mbox", [
        message("Hello", "Ana <ana@example.org>", "Sat, 01 Mar 2025 10:00:00 +0100", "No pictures here."),
        message("Our cat", "Ana <ana@example.org>", "Sun, 02 Mar 2025 11:00:00 +0100", "Look at her.",
                attachments=(("chelsea.jpg", cat, "image/jpeg"), ("again.jpg", cat, "image/jpeg"),
                             ("plans.pptx", deck, "application/octet-stream")))])
    doc = parsed(box)
    assert [(p.page, p.alt) for p in doc.pictures] == [(2, "attachment chelsea.jpg"),
                                                      (2, "the green tool shed by the gate")]
    assert doc.pictures[0].data == cat  # the same picture attached twice is looked at once
    named = [b.text for b in doc.blocks if b.text.startswith("Other attachments:")]
    assert named == ["Other attachments: chelsea.jpg (a picture, looked at as a photo); again.jpg (a picture, "
                     "looked at as a photo)"]
    one = tmp_path / "cat.eml"
    one.write_bytes(bytes(message("Our cat", "Ana <ana@example.org>", "Sun, 02 Mar 2025 11:00:00 +0100", "Look.",
                                  attachments=(("chelsea.jpg", cat, "image/jpeg"),))))
    assert [(p.page, p.alt) for p in parsed(one).pictures] == [(None, "attachment chelsea.jpg")]


def test_the_pictures_kept_of_one_document_are_held_to_a_byte_budget(tmp_path: Path):
    from engine.ingest.pictures import Pictures

    cat = _photo(tmp_path / "cat.jpg")
    budget = Pictures(limit=10, max_mb=2.5 * len(cat) / 2**20)
    kept = [budget.add(cat + bytes([n]), page=n) for n in range(4)]  # four different files of the same size
    assert kept == [True, True, False, False] and len(budget.kept) == 2


def test_attached_spreadsheets_are_kept_to_be_loaded_as_tables_and_named_in_their_message(tmp_path: Path):
    from tests.office_files import mbox

    csv = b"shop,amount\nHEMA,7.95\nJumbo,3.10\n"
    messages = [message("March costs", "Ana <ana@example.org>", "Sat, 01 Mar 2025 10:00:00 +0100", "Attached.",
                        attachments=(("costs.csv", csv, "text/csv"),)),
                message("April costs", "Ana <ana@example.org>", "Tue, 01 Apr 2025 10:00:00 +0200", "Again.",
                        attachments=(("costs.csv", csv + b"AH,12.00\n", "text/csv"),))]
    doc = parsed(mbox(tmp_path / "costs.mbox", messages))
    assert [(t.name, t.page, t.message) for t in doc.attached_tables] == [
        ("costs.csv", 1, "March costs"), ("costs.csv", 2, "April costs")]
    assert doc.attached_tables[1].data.endswith(b"AH,12.00\n")
    named = [(b.page, b.text) for b in doc.blocks if b.text.startswith("Other attachments")]
    assert named == [(1, "Other attachments: costs.csv (a table, loaded to be queried)"),
                     (2, "Other attachments: costs.csv (a table, loaded to be queried)")]
