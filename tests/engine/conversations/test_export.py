"""A conversation exported as Markdown with its citations' places and queries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.conversations.export import markdown, write_markdown
from engine.conversations.turns import Conversation, Turn
from engine.errors import TroveError
from engine.result import AskResult, Citation


def _conversation() -> Conversation:
    table = AskResult(question="How much did I spend on groceries in March 2024?", answer="182.40 EUR [1].",
                      citations=[Citation(1, "table", "/files/expenses.csv",
                                          {"query": "SELECT sum(amount_eur)\nFROM expenses", "language": "sql",
                                           "rows": [3, 7]}, "sum: 182.40")])
    photo = AskResult(question="show me the photo of it", answer="The tram is yellow [1].",
                      asked_as="Show me the photo of the tram in Lisbon.",
                      citations=[Citation(1, "region", "/files/tram.jpg",
                                          {"box": [10, 20, 110, 220], "width": 640, "height": 480}, "a yellow tram")])
    clip = AskResult(question="when do we ride up?", answer="At 0:12 [1].",
                     citations=[Citation(1, "clip", "/files/lisbon.mp4", {"start_s": 12.0, "end_s": 19.5},
                                         "riding up to the castle")])
    return Conversation([Turn(table), Turn(photo), Turn(clip)], 7, "Groceries", created=1.7e9)


def test_markdown_holds_every_turn_and_where_each_citation_points():
    text = markdown(_conversation(), changed=lambda turn: {"/files/tram.jpg": "changed"}
                    if turn.result.citations[0].kind == "region" else {})
    assert text.startswith("# Groceries\n") and "conversation 7, started" in text
    assert "## 1. How much did I spend on groceries in March 2024?" in text
    assert "expenses.csv, rows 3, 7" in text and "  SELECT sum(amount_eur)\n  FROM expenses" in text
    assert "*Asked as: Show me the photo of the tram in Lisbon.*" in text
    assert "tram.jpg, box (10, 20, 110, 220) of 640x480" in text and "> a yellow tram" in text
    assert "lisbon.mp4, 0:12–0:20" in text
    assert text.count("tram.jpg changed") == 1


def test_export_writes_a_file_or_into_a_folder(tmp_path: Path):
    assert write_markdown(_conversation(), tmp_path).name == "conversation-7.md"
    target = write_markdown(_conversation(), tmp_path / "groceries.md")
    assert target.read_text(encoding="utf-8") == markdown(_conversation())


def test_export_to_a_folder_that_cannot_be_written_names_it(tmp_path: Path):
    with pytest.raises(TroveError, match="no-such-folder.*cannot write the conversation"):
        write_markdown(_conversation(), tmp_path / "no-such-folder" / "c.md")
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        with pytest.raises(TroveError, match="Permission denied"):
            write_markdown(_conversation(), locked / "c.md")
