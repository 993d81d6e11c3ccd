"""A question about one row of a table in a PDF gets the row that names what it asks about, on the
real NICS report from ../shared/eval: its notes match the question's other words far better."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.corpora import PARAGRAPH
from engine.retrieval.named import with_named
from tests.conftest import shared_path

QUESTION = "How many permit checks did Illinois have in the November 2015 NICS background check report?"


@pytest.fixture
def report(tmp_path: Path) -> Path:
    folder = tmp_path / "Reports"
    folder.mkdir()
    shutil.copy(shared_path("eval", "documents", "pdfs", "pdfplumber", "nics-background-checks-2015-11.pdf"), folder)
    return folder


def test_the_row_naming_the_state_joins_after_its_files_first_hit(trove, report):  # noqa: ANN001
    trove.index([report])
    hits = trove.gatherer.retriever().search(QUESTION, PARAGRAPH, 2)
    assert not any("Illinois" in h.item.text for h in hits)  # the notes and the totals rank first
    named = with_named(trove.store, QUESTION, PARAGRAPH, hits)
    assert len(named) == 3 and "Illinois 87,190" in named[1].item.text
    assert named[1].item.file_id == hits[0].item.file_id
    assert named[1].relevance == hits[0].relevance  # relevant as its file is, whatever its own cosine


def test_nothing_joins_when_a_hit_names_it_or_no_file_does(trove, report):  # noqa: ANN001
    trove.index([report])
    hits = trove.gatherer.retriever().search(QUESTION, PARAGRAPH, 6)
    with_row = with_named(trove.store, QUESTION, PARAGRAPH, hits)
    assert with_named(trove.store, QUESTION, PARAGRAPH, with_row) == with_row
    elsewhere = "How many permit checks did Saskatchewan have in the November 2015 report?"
    assert with_named(trove.store, elsewhere, PARAGRAPH, hits) == hits
