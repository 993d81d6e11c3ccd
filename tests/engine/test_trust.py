"""The failure classes of issue 13, on real files from ../shared/eval: a date the PDF parser took for
a heading reaches the evidence; "find my photo of a cat" is answered by the photo; a count in a photo
is the detector's, with its boxes; a made-up date is not shown as a fact."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.generation.answer import NOT_BACKED, finalise, gate
from engine.generation.evidence import evidence_of
from engine.ingest.chunking import paragraph_chunks
from engine.ingest.parsers.pdf import parse
from tests.conftest import shared_path

SCOTUS = ("eval", "documents", "pdfs", "pdfplumber", "scotus-transcript-p1.pdf")


def test_the_argued_date_of_the_scotus_transcript_is_in_a_paragraph_item():
    chunks = paragraph_chunks(parse(shared_path(*SCOTUS)))
    assert any("Tuesday, January 13, 2009" in c.text and "oral argument" in c.text for c in chunks)


def test_a_made_up_date_cited_to_the_transcript_is_not_shown_as_a_fact():
    text = next(c.text for c in paragraph_chunks(parse(shared_path(*SCOTUS))) if "January 13, 2009" in c.text)
    evidence = [evidence_of(1, "paragraph", str(shared_path(*SCOTUS)), "10811.exe", {"page": 1}, text, 0.6)]
    question = "On what date was the Knowles v. Mirzayance case argued before the Supreme Court?"
    made_up = finalise("The Knowles v. Mirzayance case was argued on January 1, 2007 [1].", evidence, question)
    assert made_up.unsupported
    again = finalise("It was argued in 2007 [1].", evidence, question)
    draft = gate(made_up, lambda: again)
    assert draft.text == NOT_BACKED and not draft.answered and "2007" in draft.dropped[0]["why"]


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    folder = tmp_path / "Pictures"
    folder.mkdir()
    for name in ("chelsea.png", "coffee.png", "astronaut.png", "rocket.jpg"):
        shutil.copy(shared_path("eval", "images", "skimage", name), folder / name)
    for name in ("bus.jpg", "zidane.jpg"):
        shutil.copy(shared_path("eval", "images", "ultralytics", name), folder / name)
    return folder


@pytest.mark.slow
def test_find_my_photo_of_a_cat_is_answered_by_the_photo_and_a_count_by_the_detector(trove, photos):  # noqa: ANN001
    trove.index([photos])
    found = trove.ask("Find my photo of a cat.")
    assert found.answered and found.answer.startswith("Found chelsea.png [1]")
    assert found.citations[0].source.endswith("chelsea.png")
    counted = trove.ask("How many people are standing next to the bus in my photo?")
    assert counted.answer.startswith("The object detector found ") and " people in bus.jpg [1]" in counted.answer
    assert {Path(c.source).name for c in counted.citations} == {"bus.jpg"}
    assert all("box" in c.locator for c in counted.citations)


def test_a_question_not_about_the_users_things_is_general_knowledge_when_no_file_fits():
    from engine.generation.answerer import _general

    assert _general("What is the boiling point of water at sea level in Celsius?")
    assert _general("Who painted the Mona Lisa?")
    assert not _general("What did my dentist say at my last appointment?")
    assert not _general("zxqv plmokn wqrtyu")  # not a question: nothing is answered from the model


def test_a_time_the_transcript_gives_for_the_start_is_not_shown_as_the_end():
    """"At what time did the oral argument end?" answered "1:01 p.m. [1]": the transcript's first page
    gives 1:01 p.m. as when the matter came on for argument, and says nothing of its end."""
    chunks = paragraph_chunks(parse(shared_path(*SCOTUS)))
    texts = [next(c.text for c in chunks if "1:01 p.m." in c.text), next(c.text for c in chunks if "KNOWLES" in c.text)]
    evidence = [evidence_of(n, "paragraph", str(shared_path(*SCOTUS)), "10811.exe", {"page": 1}, text, 0.6)
                for n, text in enumerate(dict.fromkeys(texts), start=1)]
    question = "At what time did the oral argument in Knowles v. Mirzayance end?"
    ended = finalise("The oral argument in Knowles v. Mirzayance ended at 1:01 p.m [1].", evidence, question)
    assert ended.unsupported and "came on" in ended.reasons[ended.unsupported[0]]
    assert gate(ended, lambda: ended).text == NOT_BACKED
    began = "At what time did the oral argument in Knowles v. Mirzayance begin?"
    assert not finalise("The oral argument began at 1:01 p.m [1].", evidence, began).unsupported


def test_a_reply_that_gives_the_cited_text_word_for_word_is_not_an_answer():
    """"How many vote-by-mail ballots were cast …?" (the bulletin does not say) answered "[1] 327 BALLOTS
    CAST CONG 25 SEN 21 …": the text, not an answer; a sentence that answers from it stands."""
    bulletin = shared_path("eval", "documents", "pdfs", "pdfplumber", "la-precinct-bulletin-2014-p1.pdf")
    text = next(c.text for c in paragraph_chunks(parse(bulletin)) if "BALLOTS CAST" in c.text)
    evidence = [evidence_of(1, "paragraph", str(bulletin), "bulletin", {"page": 1}, text, 0.6)]
    question = "How many vote-by-mail ballots were cast in precinct Acton Group 13 in the November 2014 election?"
    start = text.index("327 BALLOTS CAST")
    dumped = finalise("[1] " + " ".join(text[start:].split()[:20]), evidence, question)
    assert dumped.reasons[dumped.unsupported[0]] == "it copies the cited text instead of answering"
    assert gate(dumped, lambda: dumped).text == NOT_BACKED
    asked = "In the precinct bulletin for Acton Group 13, how many ballots were cast?"
    assert not finalise("327 ballots were cast in Acton Group 13 [1].", evidence, asked).unsupported


@pytest.mark.slow
def test_a_find_request_lists_the_photo_of_the_thing_it_asks_for_before_photos_of_what_surrounds_it(trove, tmp_path):  # noqa: ANN001
    """"Find my photo of a cat sitting on the toilet tank next to its reflection in the mirror." said no
    photo shows it, naming two photos of toilets: the words about the toilet outranked the cat."""
    folder = tmp_path / "Pictures"
    folder.mkdir()
    for name in ("000000358083.jpg", "000000089232.jpg", "000000432430.jpg"):
        shutil.copy(shared_path("eval", "images", "coco_mini", "train2017", name), folder / name)
    trove.index([folder])
    found = trove.ask("Find my photo of a cat sitting on the toilet tank next to its reflection in the mirror.")
    assert found.answered and found.answer.startswith("Found 000000358083.jpg [1]")
