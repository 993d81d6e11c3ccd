"""`Trove.ask` in a conversation: a follow-up asked as its standalone question, the turn kept in
the home (a scripted model for the control flow; the default model for real follow-ups)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.conversations.store import ConversationStore
from engine.pipeline import Trove
from engine.settings import Settings
from tests.conftest import EXAMPLES
from tests.scripted import ScriptedLLM

HOTEL = "# Lisbon trip\n\nHotel Lisboa Plaza, booking reference LX-4821. Check-in from 15:00, check-out by 11:00.\n"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "lisbon-trip.md").write_text(HOTEL, encoding="utf-8")
    return folder


def test_a_follow_up_is_answered_as_its_standalone_question_and_kept(trove: Trove, notes: Path):
    trove.index([notes])
    conversation = trove.conversation()
    trove.models.llm = ScriptedLLM(["The booking reference is LX-4821 [1]."])
    first = trove.ask("What is the booking reference of my hotel in Lisbon?", labels=["paragraph"],
                      conversation=conversation)
    assert first.asked_as == "" and "rewrite" not in first.timings_ms
    trove.models.llm = ScriptedLLM(["When can I check in at my hotel in Lisbon?",
                                    "Check-in from 15:00, check-out by 11:00 [1]."])
    second = trove.ask("and when can I check in there?", labels=["paragraph"], conversation=conversation)
    sent = trove.models.llm.sent  # type: ignore[attr-defined]
    assert "User: What is the booking reference of my hotel in Lisbon?" in sent[0][-1]["content"]
    assert "When can I check in at my hotel in Lisbon?" in sent[1][-1]["content"]  # the answer is asked as rewritten
    assert second.question == "and when can I check in there?"
    assert second.asked_as == "When can I check in at my hotel in Lisbon?" and second.timings_ms["rewrite"] >= 0
    assert second.to_dict()["asked_as"] == second.asked_as and second.citations[0].source.endswith("lisbon-trip.md")
    kept = ConversationStore(trove.settings.conversations_path).get(conversation.id or 0)
    assert [t.question for t in kept.turns] == [first.question, second.question]
    assert kept.title == first.question and kept.turns[1].asked_as == second.asked_as
    assert trove.changed_since(kept.turns[1]) == {}
    (notes / "lisbon-trip.md").write_text(HOTEL.replace("15:00", "14:00"), encoding="utf-8")
    trove.index()
    assert list(trove.changed_since(kept.turns[1]).values()) == ["changed"]


def test_without_keeping_conversations_a_conversation_lives_in_memory(settings: Settings, embedder, notes: Path):  # noqa: ANN001
    trove = Trove(settings.with_(keep_conversations=False))
    trove.models.embedder = embedder
    trove.index([notes])
    conversation = trove.conversation()
    trove.models.llm = ScriptedLLM(["The booking reference is LX-4821 [1]."])
    trove.ask("What is the booking reference of my hotel in Lisbon?", labels=["paragraph"], conversation=conversation)
    assert conversation.id is None and len(conversation.turns) == 1 and trove.conversations.summaries() == []


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_default_model_follows_up_a_table_answer_and_carries_on_a_subject(settings: Settings, embedder):  # noqa: ANN001
    """"and in April?" after a table answer; "Until when can I still cancel without paying?", which
    names nothing, after a question about the Lisbon hotel: asked about that hotel."""
    trove = Trove(settings.with_(llm="default"))
    trove.models.embedder = embedder
    trove.index([EXAMPLES])
    conversation = trove.conversation()
    trove.ask("How much did I spend on groceries in March 2024?", conversation=conversation)
    follow = trove.ask("and in April?", conversation=conversation)
    assert "april" in follow.asked_as.lower() and "grocer" in follow.asked_as.lower(), follow.asked_as
    assert any(q.ok and "04" in q.query or "april" in q.query.lower() for q in follow.queries), follow.queries
    assert follow.citations and all(c.kind == "table" for c in follow.citations), follow.answer
    trip = trove.conversation()
    trove.ask("What is the booking reference for my hotel in Lisbon?", conversation=trip)
    carried = trove.ask("Until when can I still cancel without paying?", conversation=trip)
    assert "lisbon" in carried.asked_as.lower(), carried.asked_as
    assert "1 May" in carried.answer and carried.citations[0].source.endswith("lisbon-trip-may-2025.md"), carried.answer


def test_a_follow_up_reads_the_file_the_turn_before_cited_first(trove: Trove, notes: Path):
    (notes / "porto-trip.md").write_text("# Porto trip\n\nHotel Ribeira, booking reference PT-1190. Check-in from "
                                         "14:00 at the hotel.\n", encoding="utf-8")
    trove.index([notes])
    conversation = trove.conversation()
    trove.models.llm = ScriptedLLM(["The booking reference is LX-4821 [1]."])
    first = trove.ask("What is the booking reference of my hotel in Lisbon?", labels=["paragraph"],
                      conversation=conversation)
    assert first.citations[0].source.endswith("lisbon-trip.md")
    trove.models.llm = ScriptedLLM(["When can I check in at the hotel?",
                                    "Check-in from 15:00, check-out by 11:00 [1]."])
    second = trove.ask("and when can I check in there?", labels=["paragraph"], conversation=conversation)
    evidence = trove.models.llm.sent[1][-1]["content"]  # type: ignore[attr-defined]
    assert evidence.index("LX-4821") < evidence.index("PT-1190")  # the cited file first, the others after
    assert second.citations[0].source.endswith("lisbon-trip.md")


def test_a_follow_up_of_an_answer_from_the_files_is_not_answered_from_general_knowledge(trove: Trove, notes: Path):
    trove.index([notes])
    conversation = trove.conversation()
    trove.models.llm = ScriptedLLM(["The booking reference is LX-4821 [1]."])
    trove.ask("What is the booking reference of my hotel in Lisbon?", labels=["paragraph"], conversation=conversation)
    trove.models.llm = ScriptedLLM(["Which of the films Rob Reiner directed has Kevin Bacon in it?",
                                    "The Dark Knight."])
    follow = trove.ask("and which of those has Kevin Bacon in it?", labels=["paragraph"], conversation=conversation)
    assert not follow.answered and not follow.general and follow.citations == []
    assert len(trove.models.llm.sent) == 1  # type: ignore[attr-defined]  # the rewrite; no general answer written
    trove.models.llm = ScriptedLLM(["Not from your files: The Dark Knight."])
    alone = trove.ask("Which of the films Rob Reiner directed has Kevin Bacon in it?", labels=["paragraph"])
    assert alone.general  # asked on its own, the model may answer it, saying it is not from the files
