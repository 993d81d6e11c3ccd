"""Numbers a SQLite file keeps as text, read as numbers by the queries over it: GeoQuery's
database writes every elevation as text."""

from __future__ import annotations

from pathlib import Path

from engine.ingest.tables import describe_database
from engine.native.numeric_text import as_numbers, by_number_column, text_number_columns
from engine.native.querying import write_and_run
from engine.native.sources import Source, Stores
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableStore
from tests.conftest import shared_path
from tests.scripted import ScriptedLLM


def _geography() -> Source:
    path = shared_path("eval", "sql", "geoquery", "geography-db.added-in-2020.sqlite")
    return Source("geography", "database", "sqlite", str(path), describe_database(path))


def test_the_highest_point_of_the_us_is_ranked_by_its_elevation_as_a_number(tmp_path):  # noqa: ANN001
    """"Which state has the highest point, what is it called, and how high is it?" answered with
    Pennsylvania's Mount Davis, 979 (unseen set): '979' sorts after '6194' as text."""
    source = _geography()
    assert text_number_columns(source) == {"highest_elevation", "lowest_elevation"}
    stores = Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))
    written = "SELECT state_name, highest_point, highest_elevation FROM highlow ORDER BY highest_elevation DESC LIMIT 1"
    outcome = write_and_run(ScriptedLLM([written]), "Which state has the highest point, what is that point "
                            "called, and how high is it?", source, stores)
    assert outcome.ok and outcome.result is not None
    assert outcome.result.rows == [("alaska", "mount mckinley", "6194")]


def test_only_rankings_aggregates_and_comparisons_with_numbers_read_the_column_as_a_number():
    source = _geography()
    assert as_numbers("SELECT MAX(T1.highest_elevation) FROM highlow AS T1 WHERE T1.highest_elevation > 1000",
                      source) == ("SELECT MAX(CAST(T1.highest_elevation AS REAL)) FROM highlow AS T1 WHERE "
                                  "CAST(T1.highest_elevation AS REAL) > 1000")
    kept = "SELECT highest_point FROM highlow WHERE highest_elevation = '979' AND state_name = 'pennsylvania'"
    assert as_numbers(kept, source) == kept  # compared with a text: as written
    assert as_numbers("SELECT state_name FROM state ORDER BY area DESC", source) == (
        "SELECT state_name FROM state ORDER BY area DESC")  # a number column already
    tables = Source("t", "table", "duckdb", "t.csv", {"table": "t", "columns": [{"name": "n", "type": "BIGINT"}]})
    assert as_numbers("SELECT n FROM t ORDER BY n", tables) == "SELECT n FROM t ORDER BY n"


def test_a_database_file_marks_only_columns_whose_every_value_is_a_number(tmp_path: Path):
    """The flag comes from every value, not the samples: a column of codes that are mostly digits
    stays text."""
    import sqlite3

    path = tmp_path / "mixed.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (height TEXT, code TEXT, name TEXT)")
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", [("979", "101", "a"), ("6194", "102", "b"),
                                                           ("-86", "10A", "c")])
    columns = {c["name"]: c for c in describe_database(path)["tables"][0]["columns"]}
    assert columns["height"].get("numbers_as_text") and not columns["code"].get("numbers_as_text")
    assert not columns["name"].get("numbers_as_text")


def _wtq_table(folder: Path, file: str, name: str) -> tuple[Source, Stores]:
    """A WikiTableQuestions table loaded as the table store loads any CSV, and its source."""
    stores = Stores(TableStore(folder / "t.duckdb"), GraphStore(folder / "graphs"), RdfStore(folder / "rdf"))
    path = shared_path("eval", "tables", "wtq", "csv", file)
    info = stores.tables.load_csv(name, path, path.read_text(encoding="utf-8"))
    return Source(name, "table", "duckdb", str(path), info.descriptor()), stores


def test_a_ranking_by_a_duration_in_words_ranks_by_the_same_duration_in_days(tmp_path: Path):
    """"Which president held the title of oldest living president for the longest time?" answered
    "James Madison" (unseen set): the query took the MAX of "Duration (Years, Days)", text where
    "9 years, 97 days" is above "31 years, 289 days"; "Duration (Days)" holds each as a number."""
    source, stores = _wtq_table(tmp_path, "csv__203-csv__260.csv", "presidents")
    written = ("SELECT president FROM presidents WHERE duration_years_days = "
               "(SELECT MAX(duration_years_days) FROM presidents)")
    assert by_number_column(written, source) == (
        "SELECT president FROM presidents WHERE duration_days = (SELECT MAX(duration_days) FROM presidents)")
    outcome = write_and_run(ScriptedLLM([written]), "Which president held the title of oldest living president "
                            "for the longest time?", source, stores)
    assert outcome.ok and outcome.result is not None and outcome.result.rows == [("Herbert Hoover",)]
    ordered = "SELECT p.president, p.duration_years_days FROM presidents p ORDER BY p.duration_years_days DESC"
    assert by_number_column(ordered, source) == (
        "SELECT p.president, p.duration_years_days FROM presidents p ORDER BY p.duration_days DESC")
    shown = "SELECT duration_years_days FROM presidents WHERE president = 'Herbert Hoover'"
    assert by_number_column(shown, source) == shown  # read, not ranked: as written


def test_written_dates_ranked_or_subtracted_read_their_date_columns(tmp_path: Path):
    """"Which ambassador served the Russian Empire for the most amount of time?" (the sampled WTQ set)
    was `date_until - date_from` over text ("October 1761", "5 October 1801"): DuckDB refused it."""
    source, stores = _wtq_table(tmp_path, "csv__203-csv__840.csv", "envoys")
    written = ("SELECT name, date_until - date_from AS years FROM envoys WHERE title = 'Ambassador' "
               "AND russian_state = 'Russian Empire' ORDER BY years DESC LIMIT 1")
    assert by_number_column(written, source) == written.replace(
        "date_until - date_from", "ROUND((date_until_as_date - date_from_as_date) / 365.25, 1)")
    outcome = write_and_run(ScriptedLLM([written]), "Which ambassador served the Russian Empire for the most "
                            "amount of time?", source, stores)
    assert outcome.ok and outcome.result is not None
    assert outcome.result.rows == [("Dmitry Mikhailovich Golitsyn", 30.5)]
    first = "SELECT e.name FROM envoys e ORDER BY e.date_from LIMIT 1"
    assert by_number_column(first, source) == "SELECT e.name FROM envoys e ORDER BY e.date_from_as_date LIMIT 1"
    days = "SELECT date_until - date_from FROM envoys"
    assert by_number_column(days, source) == "SELECT date_until_as_date - date_from_as_date FROM envoys"
    shown = "SELECT date_from FROM envoys WHERE name = 'Dmitry Mikhailovich Golitsyn'"
    assert by_number_column(shown, source) == shown  # read, not ranked: as written


def test_a_written_date_ranked_by_its_alias_ranks_by_its_date_column(tmp_path: Path):
    """`SELECT name, date_until AS years … ORDER BY years DESC` (the sampled WTQ set, after the
    subtraction was mended) ranked "April 1792" as text."""
    source, _ = _wtq_table(tmp_path, "csv__203-csv__840.csv", "envoys")
    aliased = "SELECT name, date_until AS years FROM envoys ORDER BY years DESC LIMIT 1"
    assert by_number_column(aliased, source) == aliased.replace("ORDER BY years", "ORDER BY date_until_as_date")
    subtracted = "SELECT name, date_until - date_from AS years FROM envoys ORDER BY years DESC"
    assert by_number_column(subtracted, source) == subtracted.replace(
        "date_until - date_from", "ROUND((date_until_as_date - date_from_as_date) / 365.25, 1)")
