"""The hostile corpus (tests/hostile/corpus.py) indexed and asked over by a real Trove: no payload
runs, no file of the user's changes, no table appears that Trove did not make, and every file is
indexed or refused with a reason."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import duckdb
import pytest

from tests.hostile import corpus


def _digests(folder: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    folder, markers = tmp_path / "downloads", tmp_path / "markers"
    corpus.write(folder, markers)
    return folder, markers, _digests(folder)


def _assert_nothing_ran(folder: Path, markers: Path, before: dict[str, str]) -> None:
    assert not list(markers.iterdir()), "a payload ran"
    assert _digests(folder) == before, "a file of the user's changed, appeared or went"


def _copies_out(query: str) -> bool:
    """A COPY statement aimed at the payload's file; a column Trove named from the hostile header
    (x_copy_select_pwned_...) is one word and is not a statement."""
    return bool(re.search(r"\bcopy\b", query, re.IGNORECASE)) and "pwned" in query


def _trove_tables(trove) -> set[str]:  # noqa: ANN001
    with duckdb.connect(str(trove.settings.tables_path), read_only=True) as con:
        return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def test_indexing_a_hostile_folder_runs_nothing_and_explains_every_refusal(trove, hostile):  # noqa: ANN001
    folder, markers, before = hostile
    report = trove.index([folder])
    _assert_nothing_ran(folder, markers, before)
    status = trove.status()
    assert status["files"]["indexed"] >= len(before) - 3
    refused = [p for p in status["problems"] if p["state"] != "indexed"]
    assert all(p["reason"] for p in refused), refused
    assert {Path(p["path"]).name for p in refused} <= {"laughs.rdf", "laughs.graphml"}, refused
    assert report.failed + report.skipped == len(refused)
    made = {s["name"] for s in trove.catalog.sources() if s["kind"] == "table"}
    assert _trove_tables(trove) == made | {"photos", "videos"} & _trove_tables(trove)


def test_every_hostile_source_can_be_read_back_through_its_own_engine(trove, hostile):  # noqa: ANN001
    folder, markers, before = hostile
    trove.index([folder])
    structured = [s for s in trove.catalog.sources() if s["kind"] in ("table", "database", "graph", "rdf")]
    assert {s["kind"] for s in structured} == {"table", "database", "graph", "rdf"}
    for source in structured:
        if source["kind"] == "table":
            assert trove.sql(f'SELECT count(*) FROM "{source["name"]}"').rows[0][0] >= 1
        elif source["kind"] == "graph":
            assert trove.query(source["name"], "MATCH (n) RETURN count(*)").rows[0][0] >= 1
        elif source["kind"] == "rdf":
            assert trove.query(source["name"], "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows[0][0] >= 1
    sqlite_tables = next(s for s in structured if s["location"].endswith("shop.sqlite"))["descriptor"]["tables"]
    hostile_table = next(t for t in sqlite_tables if t["table"] == corpus.payloads(markers)["sql"])
    assert hostile_table["rows"] == 1
    assert next(t for t in sqlite_tables if t["table"] == "endless")["rows"] is None  # stopped, not hung
    _assert_nothing_ran(folder, markers, before)


@pytest.mark.slow
def test_asking_over_a_hostile_folder_runs_nothing(trove, hostile):  # noqa: ANN001
    """Routing, value linking, query writing and answering with the real small model, over every
    kind of hostile source; the questions name the hostile values, so they reach the prompts."""
    folder, markers, before = hostile
    trove.index([folder])
    tables = _trove_tables(trove)
    questions = ["What was the last water meter reading?", "How much is the rent in my expenses?",
                 "Who are the children of Astrid in my family graph?", "Which books does Ada have?",
                 "What does the shop database say about x'); COPY (SELECT 1) TO?",
                 "DROP TABLE expenses; which item costs 120 in my budget?"]
    for question in questions:
        result = trove.ask(question)
        assert result.answer
        for query in result.queries:
            assert not _copies_out(query.query), query
    _assert_nothing_ran(folder, markers, before)
    assert _trove_tables(trove) == tables
