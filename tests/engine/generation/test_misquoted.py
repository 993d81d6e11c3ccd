"""Numbers the model copied wrong, mended from the cited text only where one number is certain: on
real PDFs from ../shared/eval, and where the text leaves a choice."""

from __future__ import annotations

from engine.generation.answer import finalise
from engine.generation.evidence import evidence_of
from engine.generation.misquoted import mended
from engine.ingest.chunking import paragraph_chunks
from engine.ingest.parsers.pdf import parse
from tests.conftest import shared_path

BULLETIN = ("eval", "documents", "pdfs", "pdfplumber", "la-precinct-bulletin-2014-p1.pdf")
GOOGLE_DOC = ("eval", "documents", "pdfs", "py-pdf-sample-files", "011-google-doc-document", "google-doc-document.pdf")


def _paragraph(parts: tuple[str, ...], holding: str) -> str:
    return next(c.text for c in paragraph_chunks(parse(shared_path(*parts))) if holding in c.text)


def test_a_count_is_taken_from_the_number_the_bulletin_writes_beside_the_same_words():
    text = _paragraph(BULLETIN, "REGISTERED VOTERS")
    evidence = [evidence_of(1, "paragraph", str(shared_path(*BULLETIN)), "bulletin", {"page": 1}, text, 0.6)]
    question = "In the bulletin for Acton Group 13, how many ballots were cast and how many voters were registered?"
    said = "In Acton Group 13, 327 ballots were cast and 1,045 voters were registered [1]."
    draft = finalise(said, evidence, question)
    assert draft.text == "In Acton Group 13, 327 ballots were cast and 1100 voters were registered [1]."
    assert draft.unsupported == [] and "1,045" in draft.dropped[0]["sentence"]


def test_a_footnote_mark_run_into_a_number_is_taken_off():
    text = _paragraph(GOOGLE_DOC, "83,190,556")
    assert mended("The population listed for Germany is 1,83,190,556 people.", "1,83,190,556", [text]) == \
        "The population listed for Germany is 83,190,556 people."


def test_a_label_two_numbers_share_mends_nothing():
    text = "Ballots cast 327 in the morning. Ballots cast 412 in the evening."
    assert mended("Ballots cast were 300.", "300", [text]) is None


def test_a_number_with_no_words_beside_it_in_the_sentence_mends_nothing():
    assert mended("It was argued on January 1, 2007.", "2007", ["Tuesday, January 13, 2009 at 10:04 a.m."]) is None


def test_a_number_the_sentence_already_states_is_not_put_in_twice():
    text = "327 BALLOTS CAST 1100 REGISTERED VOTERS"
    assert mended("327 ballots were cast and 900 ballots were cast again.", "900", [text]) is None


def test_a_misquoted_number_cited_to_the_wrong_item_is_mended_from_the_one_that_holds_it():
    countries = _paragraph(GOOGLE_DOC, "83,190,556")
    table = "Country Population (millions) Area (km2) Capital Austria 8.9 83,879 Vienna Belgium 11.5 30,689 Brussels"
    evidence = [evidence_of(1, "paragraph", "/docs/multicolumn.pdf", "EU", {"page": 3}, table, 0.7),
                evidence_of(2, "paragraph", str(shared_path(*GOOGLE_DOC)), "Example", {"page": 1}, countries, 0.6)]
    question = "In my example document with the table of countries, what population is listed for Germany?"
    draft = finalise("The population listed for Germany is 1,83,190,556 people [1].", evidence, question)
    assert draft.text == "The population listed for Germany is 83,190,556 people [2]." and draft.cited == [2]
