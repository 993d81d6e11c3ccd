"""The rows a SQL answer was read from, and the page a printed table's rows are on."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.locators import attachment_words
from engine.native.hits import locator
from engine.native.querying import write_and_run
from engine.native.rows_read import pages_of, rows_statement
from engine.native.sources import Source, Stores
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.results import QueryResult
from local_stores.table_store import Attachment, TableStore
from tests.scripted import ScriptedLLM

_WARN = ("company,city,no_of\n"
         "Maxim Integrated,San Jose,150\n"
         "Qualcomm,San Diego,253\n"
         "\"Molycorp Minerals, LLC\",Mountain Pass,474\n"
         "Intel,Santa Clara,37\n")


@pytest.fixture
def stores(tmp_path: Path) -> Stores:
    return Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))


def _printed(stores: Stores, tmp_path: Path) -> Source:
    """The WARN rows as a table printed on pages 1 (rows 1-2) and 2 (rows 3-4) of a PDF."""
    info = stores.tables.load_csv("warn", tmp_path / "warn.csv", _WARN)
    info.attachment = Attachment("table 1 on pages 1-2", "WARN Report", 1, True, ((1, 1), (2, 3)))
    return Source("warn", "table", "duckdb", str(tmp_path / "report.pdf"), info.descriptor())


def _source(columns: list[str]) -> Source:
    return Source("warn", "table", "duckdb", "/x/warn.csv",
                  {"table": "warn", "columns": [{"name": name, "type": "VARCHAR"} for name in columns]})


def test_the_rows_of_a_value_read_from_one_table_are_read_again_with_its_own_where():
    source, result = _source(["_row", "company", "no_of"]), QueryResult(["no_of"], [(474,)])
    assert (rows_statement("SELECT no_of FROM warn WHERE company LIKE '%Molycorp%' ORDER BY no_of DESC LIMIT 1;",
                           result, source)
            == "SELECT _row FROM warn WHERE company LIKE '%Molycorp%' ORDER BY no_of DESC LIMIT 1")
    # an aggregate's rows are all those its WHERE keeps, whatever its LIMIT
    assert (rows_statement("SELECT SUM(no_of) FROM warn WHERE city = 'San Jose' LIMIT 1", result, source)
            == "SELECT _row FROM warn WHERE city = 'San Jose'")
    # the top row of a ranking over the whole table
    assert (rows_statement("SELECT company FROM warn ORDER BY no_of DESC LIMIT 1", result, source)
            == "SELECT _row FROM warn ORDER BY no_of DESC LIMIT 1")


@pytest.mark.parametrize("statement", [
    "SELECT SUM(no_of) FROM warn",  # every row: none to point at
    "SELECT company FROM warn ORDER BY no_of",
    "SELECT MAX(no_of) FROM warn ORDER BY 1 LIMIT 1",
    "SELECT w.no_of FROM warn w, cities c ORDER BY 1 LIMIT 2",
    "SELECT city, SUM(no_of) FROM warn WHERE no_of > 10 GROUP BY city",
    "SELECT w.no_of FROM warn w JOIN cities c ON c.name = w.city WHERE c.state = 'CA'",
    "SELECT w.no_of FROM warn w, cities c WHERE c.name = w.city",
    "SELECT no_of FROM warn WHERE city IN (SELECT name FROM cities)",
    "SELECT DISTINCT city FROM warn WHERE no_of > 10 LIMIT 2",
])
def test_rows_are_not_read_again_for_groups_joins_nesting_or_a_whole_table(statement: str):
    assert rows_statement(statement, QueryResult(["x"], [(1,)]), _source(["_row", "city", "no_of"])) is None


def test_rows_are_not_read_again_where_the_result_or_the_table_has_no_row_numbers():
    statement = "SELECT no_of FROM warn WHERE city = 'Poway'"
    assert rows_statement(statement, QueryResult(["_row", "no_of"], [(3, 2)]), _source(["_row", "no_of"])) is None
    assert rows_statement(statement, QueryResult(["no_of"], [(2,)]), _source(["city", "no_of"])) is None


def test_a_row_is_on_the_page_that_starts_at_or_before_it():
    assert pages_of([1, 2, 3, 40], [[1, 1], [2, 3], [5, 30]]) == [1, 1, 2, 5]
    assert pages_of([4], []) == []


def test_a_value_read_from_a_table_printed_on_several_pages_is_cited_on_its_rows_page(stores: Stores,
                                                                                     tmp_path: Path):
    source = _printed(stores, tmp_path)
    outcome = write_and_run(ScriptedLLM(["SELECT no_of FROM warn WHERE company LIKE '%Molycorp%'"]),
                            "How many employees did the Molycorp notice affect?", source, stores)
    assert outcome.ok and outcome.result.rows == [(474,)] and outcome.rows_read == [3]
    cited = locator(outcome)
    assert (cited["rows"], cited["page"], "last_page" in cited) == ([3], 2, False)
    assert attachment_words(cited) == "table 1 on pages 1-2, 'WARN Report', page 2"


def test_a_sum_over_rows_on_two_pages_cites_both_and_a_whole_table_its_pages(stores: Stores, tmp_path: Path):
    source = _printed(stores, tmp_path)
    summed = write_and_run(ScriptedLLM(["SELECT SUM(no_of) FROM warn WHERE city LIKE 'San%'"]),
                           "How many employees did the notices in San cities affect?", source, stores)
    assert summed.result.rows == [(440,)]  # San Jose, San Diego and Santa Clara
    cited = locator(summed)
    assert (cited["rows"], cited["page"], cited["last_page"]) == ([1, 2, 4], 1, 2)
    whole = write_and_run(ScriptedLLM(["SELECT SUM(no_of) FROM warn"]), "How many employees in all?", source, stores)
    cited = locator(whole)
    assert "rows" not in cited and (cited["page"], cited["last_page"]) == (1, 2)
    assert attachment_words(cited) == "table 1 on pages 1-2, 'WARN Report'"
