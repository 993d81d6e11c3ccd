"""A closer look at the lines of the items that hold what a question asks with, when the model said
the evidence does not answer it."""

from __future__ import annotations

from pathlib import Path

from engine.generation.answer import NOT_FOUND, generate
from engine.generation.evidence import Evidence, evidence_of
from engine.generation.focus import focused
from tests.scripted import ScriptedLLM

NOTES = Path(__file__).resolve().parents[3] / "examples" / "notes" / "lisbon-trip-may-2025.md"


def _hotel() -> Evidence:
    """The hotel section of the Lisbon note, as the paragraph the index holds."""
    text = NOTES.read_text(encoding="utf-8")
    start = text.index("## Hotel")
    section = text[start:text.index("## Rough plan")].replace("**", "").replace("## ", "").strip()
    return evidence_of(1, "paragraph", str(NOTES), "Lisbon trip, May 2025", {"start": start, "end": start + 400},
                       section, 0.52, "Lisbon trip, 8–13 May 2025 > Hotel")


def _plan() -> Evidence:
    text = "Tue 13 May — slow morning, Time Out Market for lunch, leave for the airport no later than 15:30."
    return evidence_of(2, "paragraph", str(NOTES), "Lisbon trip, May 2025", {"start": 2000, "end": 2100}, text, 0.5,
                       "Lisbon trip, 8–13 May 2025 > Rough plan")


def test_the_lines_that_share_the_questions_words_are_kept_alone():
    [closer] = focused("Until when can I cancel my Lisbon hotel booking for free?", [_hotel(), _plan()])
    assert closer.n == 1 and "Free cancellation until 1 May 2025." in closer.text
    assert "Alameda" not in closer.text and "CDL-48213" not in closer.text
    [said_otherwise] = focused("Until when can I still cancel my hotel booking in Lisbon without paying?", [_hotel()])
    assert "Free cancellation until 1 May 2025." in said_otherwise.text
    [reservation] = focused("Until when can I still cancel my hotel reservation in Lisbon without paying?", [_hotel()])
    assert "Free cancellation until 1 May 2025." in reservation.text  # "still" and "without" ask with no content


def test_an_item_that_lacks_a_name_or_a_word_of_the_question_is_not_looked_at_again():
    assert focused("Until when can I cancel my Porto hotel booking for free?", [_hotel(), _plan()]) == []
    assert focused("When is my dentist appointment in Lisbon?", [_hotel(), _plan()]) == []
    assert focused("What is the booking reference for my hotel in Lisbon for 2024?", [_hotel()]) == []  # no 2024
    assert focused("How much is the parking fee per night in the garage of my Lisbon hotel?", [_hotel()]) == []


def test_a_not_found_answer_is_asked_again_over_the_closer_lines_and_backed_by_the_whole_item():
    evidence = [_hotel(), _plan()]
    question = "Until when can I cancel my Lisbon hotel booking for free?"
    llm = ScriptedLLM([NOT_FOUND, "Until 1 May 2025 [1]."])
    draft = generate(llm, question, evidence, closer=focused(question, evidence))
    assert draft.answered and draft.text == "Until 1 May 2025 [1]." and draft.cited == [1]
    assert "Alameda" not in llm.sent[1][-1]["content"] and "Free cancellation" in llm.sent[1][-1]["content"]
    alone = ScriptedLLM([NOT_FOUND])
    assert generate(alone, question, evidence, closer=[]).text == NOT_FOUND and len(alone.sent) == 1


def test_a_second_look_that_names_what_the_item_does_not_say_is_not_shown():
    evidence = [_hotel()]
    question = "Until when can I cancel my Lisbon hotel booking for free?"
    llm = ScriptedLLM([NOT_FOUND, "Until 3 June 2025 [1].", "Until 3 June 2025 [1]."])
    draft = generate(llm, question, evidence, closer=focused(question, evidence))
    assert "3 June" not in draft.text and not draft.answered


def test_the_real_model_reads_the_closer_lines(smoke_llm):  # noqa: ANN001
    """The small model says "not found" over the two passages (as the default one does), and finds the
    date in the closer lines."""
    evidence = [_hotel(), _plan()]
    question = "Until when can I cancel my Lisbon hotel booking for free?"
    draft = generate(smoke_llm, question, evidence, closer=focused(question, evidence))
    assert draft.answered and "1 May 2025" in draft.text and draft.cited == [1]
