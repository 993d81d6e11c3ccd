"""bench.conversations: its sets are well formed, its rewrite score tells a rewrite that says
what the hand-written question says from one that does not, and its scope part counts a citation
outside the scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.answers.disk import EVAL
from bench.conversations import scoped
from bench.conversations.sets import Turn, load, rewrite_ok
from tests.conftest import SHARED


def _turn(text: str, standalone: str, follow: str = "pronoun") -> Turn:
    return Turn(text, standalone, "fact", ["x"], "a.csv", follow)


def test_a_rewrite_must_bring_in_what_the_standalone_question_adds():
    turn = _turn("who directed it?", "Who directed The Matrix?")
    assert rewrite_ok(turn, "Who directed The Matrix movie?")
    assert not rewrite_ok(turn, "who directed it?") and not rewrite_ok(turn, "Who directed Speed Racer?")
    ellipsis = _turn("and in April?", "How much did I spend on groceries in April 2024?", "ellipsis")
    assert rewrite_ok(ellipsis, "How much did I spend on groceries in April 2024?")
    assert not rewrite_ok(ellipsis, "How much did I spend in April?")


def test_a_question_that_needed_no_rewrite_must_be_left_alone():
    alone = _turn("What is the deposit in my rental contract?", "What is the deposit in my rental contract?", "alone")
    assert rewrite_ok(alone, "What is the deposit in my rental contract?")
    assert not rewrite_ok(alone, "What is the deposit in my rental contract for the Lisbon hotel?")


def test_the_sets_are_well_formed():
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the sets name files in the shared evaluation data")
    talks = load()
    assert len(talks) >= 60 and len({t.id for t in talks}) == len(talks)
    follow_ups = [turn for t in talks for turn in t.turns[1:]]
    assert {turn.follow for turn in follow_ups} == {"ellipsis", "pronoun", "those", "refine", "switch", "alone"}
    assert {t.home for t in talks} == {"eval", "examples"}


def test_a_malformed_set_is_refused_naming_the_conversation(tmp_path: Path):
    (tmp_path / "bad.toml").write_text('[[conversation]]\nid = "c1"\nhome = "eval"\n'
                                       '[[conversation.turn]]\ntext = "q"\nkind = "fact"\nexpect = ["x"]\n')
    with pytest.raises(SystemExit, match="bad.toml: conversation c1: 1 turns"):
        load(tmp_path)


def test_the_scoped_set_asks_each_question_in_its_folders_and_unscoped():
    folders, asks = scoped.load()
    assert all((EVAL / origin).exists() for origin in folders.values()) or not SHARED.is_dir()
    by_id: dict[str, list] = {}
    for ask in asks:
        by_id.setdefault(ask.id, []).append(ask)
    assert len(by_id) >= 15 and all(sum(a.folder is None for a in of) == 1 for of in by_id.values())
    assert {a.folder for a in asks} == {"2023", "2024", None}
    both = [of for of in by_id.values() if {"2023", "2024"} <= {a.folder for a in of}]
    assert len(both) >= 8  # the same words asked in each folder
    assert all(a.source.startswith(a.folder + "/") for a in asks if a.folder and a.source)


def test_a_citation_outside_the_scope_folder_is_counted(tmp_path: Path):
    result = {"citations": [{"source": str(tmp_path / "2023" / "medals.csv")},
                            {"source": str(tmp_path / "2024" / "medals.csv")}]}
    assert scoped.outside(result, tmp_path, "2023") == [str(tmp_path / "2024" / "medals.csv")]
    assert scoped.outside(result, tmp_path, "") == []  # the whole disk: nothing is outside


def test_a_malformed_scoped_question_is_refused_naming_it(tmp_path: Path):
    bad = tmp_path / "scoped.toml"
    bad.write_text('[folders]\n[[question]]\nid = "q1"\ntext = "How many?"\nkind = "count"\n'
                   'in.2023 = { expect = ["3"] }\n')
    with pytest.raises(SystemExit, match="question q1 in 2023: no source"):
        scoped.load(bad)


def test_the_rewrites_part_scores_each_policy_after_the_turns_as_they_should_have_gone():
    """A switch follow-up is not rewritten under "refers back"; each prompt is sent once and its reply
    shared by the policies; the turn before reads as its hand-written question and values."""
    from bench.conversations import rewrites
    from bench.conversations.sets import Talk
    from tests.scripted import ScriptedLLM

    first = Turn("What is the booking reference for my hotel in Lisbon?",
                 "What is the booking reference for my hotel in Lisbon?", "fact", ["CDL-48213"],
                 "notes/lisbon-trip-may-2025.md")
    switch = Turn("Until when can I still cancel without paying?",
                  "Until when can I cancel my Lisbon hotel booking?", "date", ["1 May"],
                  "notes/lisbon-trip-may-2025.md", "switch")
    pronoun = Turn("how much is it per night?", "How much does my hotel in Lisbon cost per night?", "number",
                   ["118"], "notes/lisbon-trip-may-2025.md", "pronoun")
    talk = Talk("conv-x", "examples", "examples", [first, switch, pronoun])
    llm = ScriptedLLM(["Until when can I still cancel my hotel booking in Lisbon without paying?",
                       "How much does my hotel in Lisbon cost per night?"])
    rows = rewrites.run(llm, [talk])
    assert len(llm.sent) == 2  # one call per prompt, shared by the policies (a good rewrite needs no referent)
    sent = llm.sent[0][-1]["content"]
    assert "Answer: CDL-48213." in sent and "(cited: lisbon-trip-may-2025.md)" in sent
    by_policy = rows[0]["policies"]
    assert by_policy["refers back"] == {"asked_as": switch.text, "ok": False, "rewritten": False, "seconds": 0.0}
    assert by_policy["carries on"]["ok"] and by_policy["carries on"]["seconds"] > 0
    assert all(policy["ok"] for policy in rows[1]["policies"].values())
    summary = rewrites.summarise(rows)
    assert summary["refers back"]["by_follow"]["switch"] == 0.0 and summary["carries on"]["by_follow"]["switch"] == 1.0
    assert any("Until when can I still cancel my hotel booking" in line for line in rewrites.render(summary, rows))


def test_a_run_over_some_sets_asks_what_the_whole_run_asks_of_them():
    from bench.conversations.__main__ import of_sets, pick

    whole = pick(load(), 4, None)
    some = of_sets(whole, "tables,graphs")
    assert some == [t for t in whole if t.set in ("tables", "graphs")] and {t.set for t in some} == {"tables", "graphs"}
    assert of_sets(whole, None) == whole
    assert {t.id for t in pick(load(), 0, "conv-doc-nics,conv-doc-warn")} == {"conv-doc-nics-kentucky",
                                                                              "conv-doc-warn-december"}


class _CountingTrove:
    """Answers every question "not found", counting what it is asked (the run's control flow only)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def ask(self, text: str, conversation=None):  # noqa: ANN001, ANN201
        self.asked.append(text)
        answer = {"answer": "I could not find this in your files.", "citations": [], "answered": False,
                  "general": False, "unsupported": [], "routes": [], "queries": [], "timings_ms": {}}
        return type("Result", (), {"to_dict": lambda _self: answer})()


def test_a_resumed_run_asks_only_the_conversations_not_yet_logged(tmp_path: Path):
    from bench.conversations.__main__ import run

    talks = [t for t in load() if t.home == "examples"][:3]
    log = tmp_path / "conversations.jsonl"
    first = _CountingTrove()
    rows = run({"examples": first}, talks[:2], log)
    per_talk = [sum(3 if turn.follow else 1 for turn in t.turns) for t in talks]
    assert len(rows) == len(first.asked) == per_talk[0] + per_talk[1]
    with log.open("a", encoding="utf-8") as out:  # a run cut while it wrote the third conversation
        out.write('{"id": "' + talks[2].id + '", "cond')
    again = _CountingTrove()
    rows = run({"examples": again}, talks, log, resume=True)
    assert len(again.asked) == per_talk[2] and again.asked[0] == talks[2].turns[0].text
    assert [r["id"] for r in rows] == [t.id for t in talks for _ in range(per_talk[talks.index(t)])]
    assert run({"examples": _CountingTrove()}, talks, log, resume=True) == rows  # nothing left to ask
