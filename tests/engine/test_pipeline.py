"""ask() end to end on the example folder with real stores and the smoke LLM: the contract of the
result, citations that resolve to locators, and the nothing-relevant path."""

from __future__ import annotations

import json

from engine.generation.answer import NOT_FOUND
from engine.generation.answerer import NOTHING_INDEXED, NOTHING_RELEVANT
from engine.models.loaded import Models
from engine.pipeline import Trove
from tests.conftest import EXAMPLES


def test_search_finds_the_cited_page_without_an_llm(trove: Trove):
    trove.index([EXAMPLES])
    hits = trove.search("excess for a theft claim on my bike", k=5)
    top = hits[0].item
    assert top.source.endswith("bike-insurance-policy.pdf") and top.locator["page"] == 2
    text = trove.store.file_text(top.file_id)
    assert text[top.locator["start"]:top.locator["end"]] == top.text
    assert hits[0].signals["bm25"] > 0 and hits[0].signals["dense"] > 0.3


def test_document_search_ranks_the_whole_letter(trove: Trove):
    trove.index([EXAMPLES])
    hits = trove.search("summary of my letter to the landlord about the rent increase", k=3, corpus="text/document")
    assert hits[0].item.source.endswith("letter-to-landlord-2025-02.docx")
    assert hits[0].item.locator["start"] == 0


def test_ask_result_follows_the_json_contract(trove: Trove):
    trove.index([EXAMPLES])
    streamed: list[str] = []
    heard: list = []
    result = trove.ask("What is the booking reference for my hotel in Lisbon?", on_token=streamed.append,
                       on_routes=lambda routes: heard.append((routes, list(streamed))))
    data = json.loads(json.dumps(result.to_dict()))
    assert len(heard) == 1 and heard[0][1] == []  # the routes were heard before any of the answer
    assert [r.as_dict() for r in heard[0][0]] == data["routes"][: len(heard[0][0])]
    assert set(data) >= {"answer", "citations", "routes", "queries", "timings_ms"}
    assert data["routes"] and data["routes"][0]["label"] in ("paragraph", "document")
    assert 0 < data["routes"][0]["confidence"] <= 1
    assert data["queries"] == []
    assert {"route", "retrieve", "generate", "total"} <= set(data["timings_ms"])
    assert data["timings_ms"]["total"] >= data["timings_ms"]["generate"]
    if data["answer"] != NOT_FOUND:
        assert "".join(streamed).strip()  # the model's text streamed while it was written
        assert 0 < data["timings_ms"]["first_token"] <= data["timings_ms"]["total"]
        calls = trove.models.llm.calls.take()  # each model call logged, with the stage it ran in
        assert calls and calls[-1].stage == "generate" and calls[-1].generated_tokens > 0
    for c in data["citations"]:
        assert f"[{c['n']}]" in data["answer"]
        assert set(c) >= {"n", "kind", "source", "locator", "text"}
        assert c["kind"] in ("paragraph", "document") and {"start", "end"} <= set(c["locator"])
    cited_numbers = sorted(int(n) for n in __import__("re").findall(r"\[(\d+)\]", data["answer"]))
    assert set(cited_numbers) == {c["n"] for c in data["citations"]}


def _without_llm(trove: Trove) -> Trove:
    """The same home, with an LLM setting no installed model fits: generating would fail loudly."""
    settings = trove.settings.with_(llm="no-such-model")
    models = Models(trove.models.manager, settings)
    models.embedder = trove.models.embedder
    return Trove(settings, models=models)


def test_question_far_from_everything_is_answered_without_the_llm(trove: Trove):
    trove.index([EXAMPLES])
    result = _without_llm(trove).ask("zxqv plmokn wqrtyu")
    assert not result.answered and result.answer in (NOTHING_RELEVANT, NOT_FOUND)
    assert result.citations == []


def test_empty_index_says_nothing_is_there(trove: Trove):
    result = _without_llm(trove).ask("What is my rent?")  # no router, no model: there is nothing to ask about
    assert not result.answered and result.answer == NOTHING_INDEXED
    assert result.routes == [{"label": "none", "confidence": 1.0, "router": "empty index"}]


def _boiler_note(tmp_path):  # noqa: ANN001, ANN202
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "boiler.md").write_text("# Boiler\n\nThe boiler was last serviced on 14 March 2025 by Dan Okafor, "
                                      "who replaced the pressure relief valve.\n")
    return folder


def test_a_misrouted_question_falls_back_to_the_passages(trove: Trove, tmp_path):  # noqa: ANN001
    trove.index([_boiler_note(tmp_path)])
    gathered = trove.gather("When was the boiler last serviced?", labels=["clip"])  # no videos here
    routes, hits = gathered.routes, gathered.hits
    assert [r.label for r in routes] == ["clip", "paragraph"] and routes[-1].router == "fallback"
    kind, top = hits[0]
    assert kind == "paragraph" and top.item.source.endswith("boiler.md")
    assert top.relevance >= trove.settings.min_relevance


def test_a_question_that_names_its_table_is_not_answered_from_the_passages_of_other_files(trove: Trove,
                                                                                          tmp_path):  # noqa: ANN001
    """"In my US geography database, what is the largest state bordering Arkansas?": the query failed,
    the fallback found a table of background checks in a PDF, and the answer said "Alaska" with a
    citation (unseen set). Where the question names the table it asks, no other file's passage answers."""
    from tests.scripted import ScriptedLLM

    folder = _boiler_note(tmp_path)
    (folder / "maintenance.csv").write_text("date,job,contractor\n2025-01-03,gutter cleaning,Kim Roofing\n"
                                            "2025-02-11,window repair,Glass & Co\n")
    trove.index([folder])
    trove.models.llm = ScriptedLLM(["SELECT date FROM maintenance WHERE job = 'boiler service'"] * 12)
    named = trove.gather("In my maintenance table, when was the boiler last serviced?", labels=["table"])
    assert named.runs and [r.label for r in named.routes] == ["table"]
    plain = trove.gather("When was the boiler last serviced?", labels=["table"])
    assert plain.runs and [r.label for r in plain.routes] == ["table", "paragraph"]


def test_a_question_for_the_model_alone_is_answered_and_says_so(trove: Trove, tmp_path):  # noqa: ANN001
    from engine.generation.answer import GENERAL_NOTE

    trove.index([_boiler_note(tmp_path)])
    result = trove.ask("What is the capital of Portugal?", labels=["none"])
    assert result.general and not result.answered and result.citations == []
    assert result.answer.startswith(GENERAL_NOTE) and len(result.answer) > len(GENERAL_NOTE)
    assert [r["label"] for r in result.routes] == ["none"]  # the boiler note was searched, and is not relevant
    assert result.to_dict()["general"] is True


def test_a_cross_modal_answer_states_the_query_result_then_what_the_passage_says(trove: Trove):
    from engine.generation.answer import Draft
    from engine.generation.evidence import evidence_of
    from engine.routing import Route

    total = evidence_of(1, "table", "/f/trips.csv", "trips.csv", {"sql": "SELECT sum(cost) FROM trips",
                                                                "values": [420]}, "total cost is 420.", 1.0)
    note = evidence_of(2, "paragraph", "/f/rome.md", "Rome", {"start": 0, "end": 60},
                    "The room at Hotel Roma had a small balcony over the Piazza Navona.", 0.8)
    stated = Draft("The hotel in Rome cost 420 [1].", [1], True, [])
    question = "How much was the hotel in Rome and what was the room like?"
    alone = trove.answerer.and_the_rest(question, [Route("table", 0.95)], [total, note], total, stated, None)
    assert alone is stated  # one kind of source: the result is the answer
    both = trove.answerer.and_the_rest(question, [Route("table", 0.9), Route("paragraph", 0.85)], [total, note], total,
                               stated, None)
    assert both.text.startswith(stated.text) and both.cited == [1, 2] and "[2]" in both.text


def test_a_question_routed_to_the_model_that_the_files_near_it_do_not_answer_gets_the_models_answer(trove: Trove):
    import numpy as np

    from engine.generation.answer import GENERAL_NOTE, NOT_FOUND
    from engine.retrieval.gathering import Gathered
    from engine.retrieval.hybrid import Hit
    from engine.routing import Route
    from local_stores.corpus_store import Item
    from tests.scripted import ScriptedLLM

    kettle = Item("paragraph", "/notes/kettle.md", "The kettle boils water for tea at seven.", {"start": 0, "end": 40},
                  "kettle", id=1)
    gathered = Gathered([Route("none", 0.9), Route("paragraph", 0.5, router="fallback")],
                        [("paragraph", Hit(kettle, 1.0, {"dense": 0.6}))], [], np.zeros(384, dtype=np.float32))
    trove.answerer.models.llm = ScriptedLLM([NOT_FOUND, "Water boils at 100 degrees Celsius at sea level."])
    result = trove.answerer.answer("What is the boiling point of water at sea level?", gathered, [])
    assert result.general and not result.answered and result.citations == []
    assert result.answer == GENERAL_NOTE + "Water boils at 100 degrees Celsius at sea level."
    mine = Gathered([Route("none", 0.9)], [("paragraph", Hit(kettle, 1.0, {"dense": 0.6}))], [],
                    np.zeros(384, dtype=np.float32))
    trove.answerer.models.llm = ScriptedLLM([NOT_FOUND])
    personal = trove.answerer.answer("When did I last descale my kettle?", mine, [])
    assert not personal.general and personal.answer == NOT_FOUND  # about the user's own things: never the model's
