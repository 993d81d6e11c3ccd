"""The development set's judge: values by value, citations by file/page/moment, unsupported numbers,
and "not found" for the unanswerable. And the set itself loads: unique ids, known kinds, real files."""

import pytest

from bench.answers import disk
from bench.answers.__main__ import load_questions, pick
from bench.answers.judging import holds, judge


def _result(answer: str, citations: list[dict], answered: bool = True) -> dict:
    return {"answer": answer, "citations": citations, "answered": answered, "general": False}


PDF = "documents/pdfs/pdfplumber/scotus-transcript-p1.pdf"
QUESTION = {"id": "q", "kind": "date", "text": "When was it argued?", "expect": ["January 13, 2009"],
            "source": PDF, "page": 1}


def test_numbers_match_by_value_and_text_case_insensitively():
    assert holds("It is 30.0 years", "30") and holds("1,234 km", "1234") and holds("4 people", "four | 4")
    assert not holds("In 1945", "4") and holds("THE MATRIX", "The Matrix")


def test_an_answer_is_correct_with_the_values_and_the_cited_page():
    cite = {"source": f"/disk/{PDF}", "locator": {"page": 1}, "text": "Tuesday, January 13, 2009"}
    assert judge(_result("It was argued on January 13, 2009 [1].", [cite]), QUESTION).correct
    wrong_page = dict(cite, locator={"page": 2})
    verdict = judge(_result("It was argued on January 13, 2009 [1].", [wrong_page]), QUESTION)
    assert not verdict.correct and verdict.values_ok and verdict.wrong_cited
    stated_twice = dict(QUESTION, page=[1, 6])  # a fact the file states on two pages
    assert judge(_result("It was argued on January 13, 2009 [1].", [dict(cite, locator={"page": 6})]),
                 stated_twice).correct
    assert not judge(_result("It was argued on January 13, 2009 [1].", [wrong_page]), stated_twice).correct


def test_a_made_up_number_is_an_unsupported_claim():
    cite = {"source": f"/disk/{PDF}", "locator": {"page": 1}, "text": "Tuesday, January 13, 2009"}
    verdict = judge(_result("It was argued on January 1, 2007 [1].", [cite]), QUESTION)
    assert verdict.unsupported_claim and verdict.wrong_cited and not verdict.correct


def test_an_unanswerable_question_wants_not_found_without_citations():
    question = {"id": "u", "kind": "unanswerable", "text": "What is the Wi-Fi password?", "source": ""}
    assert judge(_result("I could not find this in your files.", [], answered=False), question).correct
    cited = judge(_result("It is hunter2 [1].", [{"source": "/x.txt", "locator": {}, "text": "x"}]), question)
    assert not cited.correct and cited.wrong_cited


def test_a_moment_must_overlap_the_expected_seconds():
    question = {"id": "m", "kind": "moment", "text": "When?", "expect": [], "source": "videos/v.mp4",
                "seconds": [7.0, 12.0]}
    inside = {"source": "/d/videos/v.mp4", "locator": {"start_s": 6.0, "end_s": 9.0}, "text": ""}
    before = {"source": "/d/videos/v.mp4", "locator": {"start_s": 0.0, "end_s": 5.0}, "text": ""}
    assert judge(_result("From 0:06 [1].", [inside]), question).correct
    assert not judge(_result("From 0:00 [1].", [before]), question).correct


@pytest.mark.skipif(not disk.EVAL.is_dir(), reason="../shared/eval is absent: the development set reads it")
def test_the_development_set_loads_and_covers_every_kind():
    questions = load_questions()
    assert len(questions) >= 200 and sum(q["kind"] == "unanswerable" for q in questions) >= 40
    assert {q["kind"] for q in questions} >= {"fact", "date", "number", "list", "aggregate", "find", "count",
                                              "moment", "cross", "general", "unanswerable"}
    assert len(pick(questions, 2, None)) == 22
    assert {q["id"] for q in pick(questions, 0, "doc-nics,doc-warn-b")} == {
        "doc-nics-total-nov-2015", "doc-nics-illinois-permit", "doc-nics-most-permits", "doc-nics-handgun-over-50k",
        "doc-warn-boeing-employees"}
    seen, unseen = pick(questions, 7, None), pick(questions, 14, None, unseen_by=7)
    assert unseen and not {q["id"] for q in seen} & {q["id"] for q in unseen}


def test_a_number_in_the_cited_files_name_is_not_an_unsupported_claim():
    cite = {"source": "/disk/images/000000358083.jpg", "locator": {"box": [1, 2, 3, 4]}, "text": "A yellow cat."}
    question = {"id": "f", "kind": "find", "text": "Find my photo of a cat on the toilet.", "source": ""}
    assert not judge(_result("Found 000000358083.jpg [1] — A yellow cat.", [cite]), question).unsupported_claim
    assert judge(_result("Found 000000358084.jpg [1] — A yellow cat.", [cite]), question).unsupported_claim
