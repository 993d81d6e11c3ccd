"""A value a table writes several ways is compared with every spelling: on a real WikiTableQuestions
table whose Franklin County is once "Franklin County."."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.native import values, variants
from engine.native.sources import Source, Stores
from local_stores.sqlite_db import Database
from local_stores.table_store import TableStore
from local_stores.value_index import ValueIndex
from tests.conftest import shared_path


def _indexed(file: str, name: str, folder: Path) -> tuple[Source, TableStore, ValueIndex]:
    """A WikiTableQuestions table loaded, with its values in a value index of its own."""
    path = shared_path("eval", "tables", "wtq", "csv", file)
    store = TableStore(folder / "t.duckdb")
    info = store.load_csv(name, path, path.read_text(encoding="utf-8"))
    source = Source(name, "table", "duckdb", str(path), info.descriptor())
    index = ValueIndex(Database(folder / "values.sqlite"))
    values.refresh(index, [source], Stores(store, None, None))
    return source, store, index


@pytest.fixture
def ghost_towns(tmp_path: Path) -> tuple[Source, TableStore, ValueIndex]:
    return _indexed("csv__204-csv__69.csv", "towns", tmp_path)


def test_a_county_written_with_a_full_stop_once_is_counted_with_the_others(ghost_towns):  # noqa: ANN001
    source, store, index = ghost_towns
    asked = "SELECT COUNT(*) FROM towns WHERE county = 'Franklin County'"
    widened = variants.widened(asked, source, index)
    assert widened == "SELECT COUNT(*) FROM towns WHERE county IN ('Franklin County', 'Franklin County.')"
    assert store.execute(store.explain(asked), 5, 10).rows == [(5,)]
    assert store.execute(store.explain(widened), 5, 10).rows == [(6,)]  # the six of the table


def test_a_value_with_one_spelling_and_other_comparisons_are_left_as_written(ghost_towns):  # noqa: ANN001
    source, _, index = ghost_towns
    for statement in ("SELECT COUNT(*) FROM towns WHERE county = 'Doniphan County'",
                      "SELECT COUNT(*) FROM towns WHERE county <> 'Franklin County'",
                      "SELECT town_name FROM towns WHERE town_name = 'Franklin'"):
        assert variants.widened(statement, source, index) == statement
    assert variants.widened("SELECT 1 WHERE county = 'Franklin County'", source, None) == \
        "SELECT 1 WHERE county = 'Franklin County'"


def test_folding_drops_case_spacing_and_the_punctuation_around_a_value():
    assert variants.folded("  Franklin   County. ") == variants.folded("franklin county") == "franklin county"
    assert variants.folded("St. Louis") == "st. louis"


def test_a_name_the_table_writes_with_a_qualifier_in_brackets_is_compared_with_it(tmp_path: Path):
    """WTQ's 1984 diving results write "Kelly McCormick (USA)"; the query compared `diver = 'Kelly
    McCormick'` and found nothing (unseen set). A column holding the name without brackets keeps it."""
    source, store, index = _indexed("csv__203-csv__373.csv", "diving", tmp_path)
    asked = "SELECT final_points FROM diving WHERE diver = 'Kelly McCormick'"
    widened = variants.widened(asked, source, index)
    assert widened == "SELECT final_points FROM diving WHERE diver IN ('Kelly McCormick', 'Kelly McCormick (USA)')"
    assert store.execute(store.explain(widened), 5, 10).rows == [(527.46,)]
    assert variants.widened(asked.replace("=", "ILIKE"), source, index) == widened  # as the model wrote it
    assert variants.widened(asked.replace("= 'Kelly", "LIKE 'Kelly%"), source, index) == \
        asked.replace("= 'Kelly", "LIKE 'Kelly%")  # a pattern: as written
    assert values.source_evidence("How many final points did Kelly McCormick score?", index) == {"diving": 2.0}
    index.replace("diving", "s2", [("Kelly McCormick", "diving.diver"), ("Kelly McCormick (USA)", "diving.diver")])
    assert variants.widened(asked, source, index) == asked


def test_a_name_the_question_misspells_is_compared_as_its_column_spells_it(tmp_path: Path):
    """"… points earned by kelly mcormick?" (WTQ's own question): no diver is spelt so, and the
    query found nothing; one is spelt nearly so, "Kelly McCormick (USA)"."""
    source, store, index = _indexed("csv__203-csv__373.csv", "diving", tmp_path)
    asked = "SELECT final_points FROM diving WHERE diver = 'kelly mcormick'"
    respelt = variants.respelt(asked, source, index)
    assert respelt == "SELECT final_points FROM diving WHERE diver = 'Kelly McCormick (USA)'"
    assert store.execute(store.explain(respelt), 5, 10).rows == [(527.46,)]
    pattern = "SELECT SUM(final_points) FROM diving WHERE diver ILIKE '%kelly mcormick%'"
    assert variants.respelt(pattern, source, index) == pattern.replace("kelly mcormick", "Kelly McCormick")


def test_a_spelling_far_from_every_value_or_held_elsewhere_is_left_as_written(tmp_path: Path):
    source, _, index = _indexed("csv__203-csv__373.csv", "diving", tmp_path)
    for statement in ("SELECT final_points FROM diving WHERE diver = 'Greg Louganis'",  # not in this final
                      "SELECT final_points FROM diving WHERE diver = 'Kelly McCormick (USA)'",  # held as written
                      "SELECT final_points FROM diving WHERE diver = 'Kely'",  # too short to tell
                      "SELECT final_points FROM diving WHERE rank = 'kelly mcormick'"):  # no such held column
        assert variants.respelt(statement, source, index) == statement
    place, value = index.in_field("diving", "diver", 100)[0]
    assert place == "diving.diver" and value
    assert variants.respelt("SELECT 1 WHERE diver = 'kelly mcormick'", source, None) == \
        "SELECT 1 WHERE diver = 'kelly mcormick'"


def test_two_values_spelt_nearly_alike_leave_the_text_as_written(tmp_path: Path):
    source, _, index = _indexed("csv__203-csv__373.csv", "diving", tmp_path)
    index.replace("diving", "s2", [("Anna Fargher", "diving.diver"), ("Ann Fargher (IRL)", "diving.diver")])
    assert variants.respelt("SELECT 1 FROM diving WHERE diver = 'ann farghe'", source, index) == \
        "SELECT 1 FROM diving WHERE diver = 'ann farghe'"
