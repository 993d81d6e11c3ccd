"""One measure in several columns: WTQ's 1984 diving results keep preliminary and final points, and
a diver who never reached the final has no final points."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.native import measures, values
from engine.native.querying import write_and_run
from engine.native.sources import Source, Stores
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.sqlite_db import Database
from local_stores.table_store import TableStore
from local_stores.value_index import ValueIndex
from tests.conftest import shared_path
from tests.scripted import ScriptedLLM


@pytest.fixture
def diving(tmp_path: Path) -> tuple[Source, Stores, ValueIndex]:
    stores = Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))
    path = shared_path("eval", "tables", "wtq", "csv", "csv__203-csv__373.csv")
    info = stores.tables.load_csv("diving", path, path.read_text(encoding="utf-8"))
    source = Source("diving", "table", "duckdb", str(path), info.descriptor())
    held = ValueIndex(Database(tmp_path / "values.sqlite"))
    values.refresh(held, [source], stores)
    return source, stores, held


def test_the_other_column_of_a_measure_is_read_where_the_one_read_is_empty(diving):  # noqa: ANN001
    """"How many points did Ann Fargher have?" (WTQ's own question) read her final points: none."""
    source, stores, held = diving
    written = "SELECT final_points FROM diving WHERE diver ILIKE '%ann fargher%'"
    assert measures.others(written, "How many points did Ann Fargher have?", source) == [
        "SELECT preliminary_points FROM diving WHERE diver ILIKE '%ann fargher%'"]
    outcome = write_and_run(ScriptedLLM([written]), "How many points did Ann Fargher have?", source, stores,
                            held=held)
    assert outcome.ok and outcome.result is not None and outcome.result.rows == [(421.65,)]
    assert "preliminary_points" in outcome.query


def test_a_column_the_question_names_is_kept_empty_or_not(diving):  # noqa: ANN001
    source, stores, held = diving
    final = "SELECT final_points FROM diving WHERE diver ILIKE '%ann fargher%'"
    assert measures.others(final, "How many final points did Ann Fargher have?", source) == []
    assert measures.others("SELECT diver FROM diving WHERE rank = 1", "Who won?", source) == []  # no measure read
    outcome = write_and_run(ScriptedLLM([final, final]), "How many final points did Ann Fargher have?", source,
                            stores, held=held)
    assert outcome.result is None or outcome.result.rows in ([], [(None,)])
    filled = "SELECT final_points FROM diving WHERE diver ILIKE '%kelly mccormick%'"
    assert write_and_run(ScriptedLLM([filled]), "How many points did Kelly McCormick have?", source, stores,
                         held=held).query == filled  # she has final points: as written


def test_a_measure_kept_in_many_columns_has_no_one_other(tmp_path: Path):
    """A year's sales by month: `jan_sales` empty for a shop is not its `feb_sales`."""
    store = TableStore(tmp_path / "t.duckdb")
    text = "shop,jan_sales,feb_sales,mar_sales\nNorth,,12,14\nSouth,9,8,7\n"
    info = store.load_csv("sales", tmp_path / "sales.csv", text)
    source = Source("sales", "table", "duckdb", str(tmp_path / "sales.csv"), info.descriptor())
    assert measures.others("SELECT jan_sales FROM sales WHERE shop = 'North'", "What did North sell?", source) == []


def test_a_column_whose_name_is_no_plain_name_is_never_written_in(tmp_path: Path):
    """A file's header becomes a name the mend would write into SQL unquoted: only plain names are."""
    store = TableStore(tmp_path / "t.duckdb")
    store.load_csv("scores", tmp_path / "s.csv", "diver,final_points\nAnn,\nBo,3.5\n")
    with store._writer(True) as con:  # a database file may name a column anything
        con.execute('ALTER TABLE scores ADD COLUMN "points; DROP" DOUBLE')
    source = Source("scores", "table", "duckdb", str(tmp_path / "s.csv"), store.describe("scores").descriptor())
    assert measures.others("SELECT final_points FROM scores", "How many points did Ann have?", source) == []
