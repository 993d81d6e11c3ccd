"""The answer shown while it is written (engine/terminal.py)."""

from __future__ import annotations

import io

from engine.routing.base import Route
from engine.terminal import LiveAnswer


def _streamed(pieces: list[str]) -> tuple[LiveAnswer, io.StringIO]:
    out = io.StringIO()
    live = LiveAnswer(out, live=True)
    live.routes([Route("table", 0.93, "trained")])
    for piece in pieces:
        live.token(piece)
    return live, out


def test_the_routes_then_the_words_are_shown_as_they_come():
    live, out = _streamed(["You spent ", "40 euros [1]."])
    assert out.getvalue() == "  route: table 0.93 …\nYou spent 40 euros [1]."
    assert live.first_token_s is not None
    assert live.settle("You spent 40 euros [1].") is False  # shown already: only the citations follow
    assert out.getvalue().endswith("[1].\n")


def test_a_checked_answer_that_differs_replaces_the_draft():
    live, out = _streamed(["Line one.\n", "It was in May [2]."])
    assert live.settle("It was in May [1].") is True
    assert out.getvalue().endswith("It was in May [2].\r\x1b[1A\x1b[J")  # two rows up and cleared


def test_nothing_is_streamed_into_a_pipe_or_file():
    out = io.StringIO()
    live = LiveAnswer(out)  # a StringIO is no terminal
    live.routes([Route("text", 0.8, "rule")])
    live.token("Hello")
    assert out.getvalue() == "" and live.settle("Hello") is True
