"""bench.conversations: its sets are well formed and its rewrite score tells a rewrite that says
what the hand-written question says from one that does not."""

from __future__ import annotations

from pathlib import Path

import pytest

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
