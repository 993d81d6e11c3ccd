"""Names a model misspells (`treatments_types`, `p.nam`) written as the one close name the source
has, on SQLite, DuckDB and Kùzu's own error messages; two close names, or none, leave the query to
the repair."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.ingest.graphs.load import load
from engine.ingest.tables import describe_database
from engine.native import mending, sources
from engine.native.querying import write_and_run
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableStore
from tests.conftest import EXAMPLES, shared_path
from tests.scripted import ScriptedLLM


@pytest.fixture
def stores(tmp_path: Path) -> sources.Stores:
    return sources.Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"),
                          RdfStore(tmp_path / "rdf"))


def database(name: str, *parts: str) -> sources.Source:
    """A SQLite database of ../shared/eval as a source."""
    path = shared_path("eval", "sql", *parts)
    return sources.Source(name, "database", "sqlite", str(path), describe_database(path))


@pytest.mark.parametrize(("error", "unknown"), [
    ("no such table: treatments_types", ("part", "treatments_types")),
    ("no such column: T2.costs_of_treatment", ("field", "costs_of_treatment")),
    ('Binder Error: Referenced column "nam" not found in FROM clause! Candidate bindings: "name"', ("field", "nam")),
    ('Binder Error: Table "d" does not have a column named "nam" Candidate bindings: : "name"', ("field", "nam")),
    ('Catalog Error: Table with name dog does not exist! Did you mean "dogs"?', ("part", "dog")),
    ("Binder exception: Table Persn does not exist.", ("part", "Persn")),
    ("Binder exception: Cannot find property nam for p.", ("field", "nam")),
    ("syntax error near SELECT", None),
])
def test_the_unknown_name_is_read_from_each_engines_message(error: str, unknown: tuple[str, str] | None):
    assert mending.unknown_name(error) == unknown


def test_only_one_clearly_closest_name_stands_for_a_misspelt_one():
    assert mending.closest("treatments_types", ["treatments", "treatment_types", "dogs"]) == "treatment_types"
    assert mending.closest("nam", ["name", "age"]) == "name"
    assert mending.closest("colour", ["color_a", "color_b"]) is None  # two as close: no guess
    assert mending.closest("weight", ["name", "age"]) is None  # nothing close


def test_a_name_is_renamed_as_code_never_inside_a_text_value():
    query = "SELECT nam, \"nam\" FROM dogs WHERE note = 'nam' AND t.nam > 1"
    assert mending.renamed(query, "nam", "name", "sql") == \
        "SELECT name, \"name\" FROM dogs WHERE note = 'nam' AND t.name > 1"
    assert mending.renamed("MATCH (p) WHERE p.nam = \"nam\" RETURN p.nam", "nam", "name", "cypher") == \
        "MATCH (p) WHERE p.name = \"nam\" RETURN p.name"


def test_a_misspelt_table_runs_on_sqlite_without_a_repair(stores: sources.Stores):
    """"How much has been spent on treating Lyric and Evangeline?" (Spider's dog_kennels) written with
    `treatments_types`: the model's repair wrote the same query again, so nothing was answered."""
    source = database("dog_kennels", "spider", "database", "dog_kennels", "dog_kennels.sqlite")
    written = ("SELECT SUM(T2.cost_of_treatment) FROM dogs AS T1 JOIN treatments AS T2 ON T1.dog_id = T2.dog_id "
               "JOIN treatments_types AS T3 ON T2.treatment_type_code = T3.treatment_type_code "
               "WHERE T1.name = 'Lyric' OR T1.name = 'Evangeline'")
    llm = ScriptedLLM([written])
    outcome = write_and_run(llm, "How much has been spent on treating Lyric and Evangeline?", source, stores)
    assert outcome.ok and "JOIN treatment_types AS T3" in outcome.query and len(llm.sent) == 1
    assert outcome.result is not None and outcome.result.rows[0][0] is not None


def test_a_misspelt_column_and_label_run_on_duckdb_and_kuzu(stores: sources.Stores, tmp_path: Path):
    info = stores.tables.load_csv("dogs", tmp_path / "dogs.csv", "name,age\nRex,3\nFido,5\n")
    table = sources.Source("dogs", "table", "duckdb", str(tmp_path / "dogs.csv"), info.descriptor())
    llm = ScriptedLLM(["SELECT d.nam FROM dogs d ORDER BY d.age DESC LIMIT 1"])
    outcome = write_and_run(llm, "Which is my oldest dog?", table, stores)
    assert outcome.ok and outcome.result is not None and outcome.result.rows[0][0] == "Fido" and len(llm.sent) == 1
    path = EXAMPLES / "family" / "family-tree.cypher"
    graph = sources.Source("family", "graph", "kuzu", str(path), load(stores.graphs, "family", path))
    llm = ScriptedLLM(["MATCH (p:Persn) WHERE p.name = 'Astrid Lindqvist' RETURN p.bron"])
    outcome = write_and_run(llm, "When was Astrid Lindqvist born?", graph, stores)
    assert outcome.ok and outcome.result is not None and outcome.result.rows == [(1941,)] and len(llm.sent) == 1


def test_a_table_named_by_its_topic_in_a_source_of_one_table_is_that_table(stores: sources.Stores):
    """"Who served immediately before Samuel Hall?" over the lieutenant governors of Indiana was written
    `FROM governor` (rest set): the file's one table is `csv_203_csv_194`, and the repair gave the same
    query back. A database of several tables keeps the engine's message for the repair."""
    path = shared_path("eval", "tables", "wtq", "csv", "csv__203-csv__194.csv")
    info = stores.tables.load_csv("csv_203_csv_194", path, path.read_text(encoding="utf-8"))
    table = sources.Source("csv_203_csv_194", "table", "duckdb", str(path), info.descriptor())
    written = "SELECT name FROM governor WHERE name = 'Samuel Hall'"
    error = "Catalog Error: Table with name governor does not exist!"
    assert mending.mended(written, error, table) == "SELECT name FROM csv_203_csv_194 WHERE name = 'Samuel Hall'"
    kennels = database("dog_kennels", "spider", "database", "dog_kennels", "dog_kennels.sqlite")
    assert mending.mended("SELECT name FROM pets", "no such table: pets", kennels) is None


def test_a_name_the_source_has_elsewhere_is_no_spelling_to_mend(tmp_path: Path):
    source = database("dog_kennels", "spider", "database", "dog_kennels", "dog_kennels.sqlite")
    assert mending.mended("SELECT T1.breed_name FROM dogs AS T1", "no such column: T1.breed_name", source) is None
    assert mending.mended("SELECT T1.nam FROM dogs AS T1", "no such column: T1.nam", source) == \
        "SELECT T1.name FROM dogs AS T1"
    spaced = sources.Source("h", "database", "sqlite", "h.db", {"tables": [
        {"table": "h", "columns": [{"name": "Operating rooms"}, {"name": "beds"}]}]})
    assert mending.closest("Operating_rooms", ["Operating rooms", "beds"]) == "Operating rooms"
    assert mending.mended("SELECT Operating_rooms FROM h", "no such column: Operating_rooms", spaced) is None


def test_the_repair_hears_the_error_of_the_query_as_mended(stores: sources.Stores):
    """`treatments_types` mended to `treatment_types` reaches the next slip, `T3.price` (no table has
    it): the repair is shown the mended query with that error, not the table it no longer misspells.
    A column only read under the wrong alias (`T3.cost_of_treatment`, the cost is in treatments) is
    mended too, with no repair."""
    source = database("dog_kennels", "spider", "database", "dog_kennels", "dog_kennels.sqlite")
    written = ("SELECT SUM(T3.price) FROM dogs AS T1 JOIN treatments AS T2 ON T1.dog_id = T2.dog_id "
               "JOIN treatments_types AS T3 ON T2.treatment_type_code = T3.treatment_type_code "
               "WHERE T1.name = 'Lyric'")
    repaired = written.replace("treatments_types", "treatment_types").replace("T3.price", "T2.cost_of_treatment")
    llm = ScriptedLLM([written, repaired])
    outcome = write_and_run(llm, "How much has been spent on treating Lyric?", source, stores)
    first = outcome.attempts[0]
    assert "treatment_types AS T3" in first.query and "T3.price" in (first.error or "")
    shown, heard = llm.sent[1][-2]["content"], llm.sent[1][-1]["content"]
    assert "treatment_types AS T3" in shown and "treatments_types" not in heard and "T3.price" in heard
    assert outcome.ok and outcome.result is not None and len(llm.sent) == 2
    aliased = ScriptedLLM([written.replace("T3.price", "T3.cost_of_treatment")])
    mended = write_and_run(aliased, "How much has been spent on treating Lyric?", source, stores)
    assert mended.ok and "SUM(T2.cost_of_treatment)" in mended.query and len(aliased.sent) == 1


def test_a_column_read_under_the_alias_of_a_table_that_lacks_it_is_read_under_the_one_that_has_it(
        stores: sources.Stores, tmp_path: Path):
    """"Who bought the most tickets in a single visit, and how old is that visitor?" (Spider's
    museum_visit) written `T2.age` where `visit AS T2` has no age and `visitor AS T1` has: the repair
    wrote the same query again (unseen set). On SQLite and on DuckDB's message alike."""
    source = database("museum_visit", "spider", "database", "museum_visit", "museum_visit.sqlite")
    written = ("SELECT T1.name, T2.age FROM visitor AS T1 JOIN visit AS T2 ON T1.id = T2.visitor_id "
               "ORDER BY T2.num_of_ticket DESC LIMIT 1")
    llm = ScriptedLLM([written])
    outcome = write_and_run(llm, "Who bought the most tickets in a single visit, and how old is that visitor?",
                            source, stores)
    assert outcome.ok and "T1.age" in outcome.query and len(llm.sent) == 1
    assert outcome.result is not None and outcome.result.rows[0][1] == 27
    duck = mending.requalified(written, 'Binder Error: Table "T2" does not have a column named "age"', source)
    assert duck is not None and "T1.age" in duck
    both = "SELECT a.name, b.age FROM visitor a JOIN visitor b ON a.id = b.id"  # two aliases hold age: no guess
    assert mending.requalified(both, "no such column: b.agee", source) is None
    assert mending.requalified("SELECT x.age FROM visit AS x", "no such column: x.age", source) is None


def test_a_column_named_without_its_tables_name_is_read_as_the_one_named_with_it(stores: sources.Stores):
    """"What is the largest state bordering Arkansas?" (GeoQuery) written `T2.name` where `state AS T2`
    has `state_name` (and `country_name`): the repair wrote the same query again (unseen set)."""
    source = database("geography", "geoquery", "geography-db.added-in-2020.sqlite")
    written = ("SELECT T2.name FROM border_info AS T1 JOIN state AS T2 ON T1.border = T2.name "
               "WHERE T1.state_name = 'arkansas' ORDER BY T2.area DESC LIMIT 1")
    llm = ScriptedLLM([written])
    outcome = write_and_run(llm, "In my US geography database, what is the largest state bordering Arkansas?",
                            source, stores)
    assert outcome.ok and outcome.result is not None and len(llm.sent) == 1
    assert "T1.border = T2.state_name" in outcome.query and outcome.result.rows[0][0] == "texas"
    assert mending.table_prefixed("SELECT T1.name FROM border_info AS T1", "no such column: T1.name", source) is None
    assert mending.table_prefixed("SELECT s.name FROM state s WHERE s.name = 'T2.name'",
                                  "no such column: s.name", source) == \
        "SELECT s.state_name FROM state s WHERE s.state_name = 'T2.name'"


def test_rows_tied_for_first_place_are_all_returned(stores: sources.Stores):
    """"Which states border the most other states, and how many?" (GeoQuery): Missouri and Tennessee
    border 8 each; `ORDER BY … DESC LIMIT 1` named one of them as if it alone did (unseen set)."""
    source = database("geography", "geoquery", "geography-db.added-in-2020.sqlite")
    written = ("SELECT state_name, COUNT(DISTINCT border) AS borders FROM border_info GROUP BY state_name "
               "ORDER BY borders DESC LIMIT 1")
    outcome = write_and_run(ScriptedLLM([written]), "Which states border the most other states?", source, stores)
    assert outcome.ok and outcome.result is not None and outcome.query.endswith("LIMIT 2")
    assert sorted(outcome.result.rows) == [("missouri", 8), ("tennessee", 8)]
    alone = written.replace("DESC LIMIT 1", "ASC LIMIT 1").replace("COUNT(DISTINCT border)", "SUM(LENGTH(border))")
    single = write_and_run(ScriptedLLM([alone]), "Which state borders the fewest states?", source, stores)
    assert single.ok and single.result is not None and len(single.result.rows) == 1 and single.query == alone
