"""Before and after in a table read as the order of its rows, on WikiTableQuestions' own tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.native import sources
from engine.native.querying import write_and_run
from engine.native.row_order import in_row_order
from engine.native.sources import Stores
from tests.conftest import shared_path
from tests.scripted import ScriptedLLM


@pytest.fixture
def stores(tmp_path: Path) -> Stores:
    from local_stores.graph_store import GraphStore
    from local_stores.rdf_store import RdfStore
    from local_stores.table_store import TableStore

    return Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))


def _wtq(stores: Stores, file: str, name: str) -> sources.Source:
    path = shared_path("eval", "tables", "wtq", "csv", file)
    info = stores.tables.load_csv(name, path, path.read_text(encoding="utf-8"))
    return sources.Source(name, "table", "duckdb", str(path), info.descriptor())


def test_the_song_before_another_is_the_row_above_it_not_the_one_before_it_in_the_alphabet(stores: Stores):
    """The sampled WTQ set: `WHERE title < 'Part of Your World'` listed every title earlier in the
    alphabet ("Once Upon a Dream"); the track before it is "Happy Working Song" (titles are written
    between double quotes in the file)."""
    songs = _wtq(stores, "csv__203-csv__85.csv", "songs")
    llm = ScriptedLLM(["SELECT title FROM songs WHERE title < 'Part of Your World'"])
    outcome = write_and_run(llm, 'which song plays before "part of your world"?', songs, stores)
    assert outcome.ok and [r[0] for r in outcome.result.rows] == ['"Happy Working Song"']
    llm = ScriptedLLM(["SELECT COUNT(*) FROM songs WHERE title < 'Part of Your World'"])
    outcome = write_and_run(llm, 'how many songs play before "part of your world"?', songs, stores)
    assert outcome.ok and outcome.result.rows == [(12,)]


def test_the_next_station_is_the_row_below(stores: Stores):
    stations = _wtq(stores, "csv__204-csv__289.csv", "stations")
    llm = ScriptedLLM(["SELECT stations FROM stations WHERE stations > 'Woodman' ORDER BY stations LIMIT 1"])
    outcome = write_and_run(llm, "what is the next station after woodman?", stations, stores)
    assert outcome.ok and outcome.result.rows == [("Van Nuys",)]  # its place in the file is not stated


def test_a_comparison_without_before_or_after_in_the_question_is_left_alone(stores: Stores):
    songs = _wtq(stores, "csv__203-csv__85.csv", "songs")
    query = "SELECT title FROM songs WHERE title < 'M'"
    assert in_row_order("which songs have titles earlier in the alphabet than M?", query, songs) is None
    assert in_row_order("which songs come before and after it?", query, songs) is None
    numbers = "SELECT title FROM songs WHERE _row < 5"
    assert in_row_order("which songs play before the fifth?", numbers, songs) is None
    listed = in_row_order("which songs play before 'Part of Your World'?", query, songs)
    assert listed is not None and listed.endswith("ORDER BY _row DESC")  # every one of them, nearest first



def test_a_year_or_date_kept_as_text_is_compared_as_written(stores: Stores):
    songs = _wtq(stores, "csv__203-csv__85.csv", "songs")
    dated = "SELECT title FROM songs WHERE title > '1990'"
    assert in_row_order("which songs came out after 1990?", dated, songs) is None
