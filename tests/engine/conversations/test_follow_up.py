"""What a follow-up takes from the turn before: its query, its route, its cited files; and which
cited files changed since (a real catalog)."""

from __future__ import annotations

from pathlib import Path

from engine.conversations.follow_up import changed_files, file_states, follow_up, prior_query
from engine.conversations.turns import Turn
from engine.result import AskResult, Citation, QueryRun
from engine.routing.base import Decision, Route
from local_stores.catalog import Catalog
from local_stores.sqlite_db import Database


def _table_turn() -> Turn:
    return Turn(AskResult(
        question="Which photos did I take in 2025?", answer="a.jpg and b.jpg [1].",
        citations=[Citation(1, "table", "/files/photos", {"query": "SELECT ...", "language": "sql"}, "rows")],
        queries=[QueryRun("sql", "photos", "SELECT name FROM photos WHERE year = 2024", True, rows=0),
                 QueryRun("sql", "photos", "SELECT broken", False, "syntax error"),
                 QueryRun("sql", "photos", "SELECT name FROM photos WHERE year = 2025", True, rows=2)]))


def test_the_prior_query_is_the_last_one_that_found_rows():
    prior = prior_query(_table_turn().result)
    assert prior is not None and prior.query.endswith("2025") and prior.source == "photos"
    assert prior.route == "table" and prior.question == "Which photos did I take in 2025?"
    assert prior_query(AskResult(question="q", answer="a")) is None


def test_a_question_about_the_rows_keeps_the_structured_route():
    follow = follow_up("which of those were in May?", [_table_turn()])
    assert follow is not None and follow.prior is not None
    kept = follow.routes([Route("none", 0.9, "ensemble"), Route("paragraph", 0.85, "ensemble")])
    assert [(r.label, r.router) for r in kept] == [("table", Decision.FOLLOW_UP), ("paragraph", "ensemble")]
    routed = [Route("table", 0.95, "ensemble")]
    assert follow.routes(routed) == routed  # the router chose a structured route itself
    rdf = [Route("rdf", 0.9, "ensemble")]  # another kind of structured data, the rows spoken of
    assert [r.label for r in follow.routes(rdf)] == ["table", "rdf"]
    switched = follow_up("and what about in my RDF graph of courses?", [_table_turn()])
    assert switched is not None and switched.routes(rdf) == rdf  # no word for the rows: the router's choice
    other = follow_up("show me the photo of it", [_table_turn()])
    assert other is not None and other.routes([Route("image", 0.9, "ensemble")])[0].label == "image"
    assert follow_up("How many photos did I take in May 2025?", [_table_turn()]) is None  # stands alone


def test_after_a_turn_that_found_nothing_the_query_before_it_is_refined():
    astray = Turn(AskResult(question="which of those has the most faces?", answer="Not from your files: …",
                            general=True))
    follow = follow_up("and when was it taken?", [_table_turn(), astray])
    assert follow is not None and follow.prior is not None and follow.prior.query.endswith("2025")
    assert follow.routes([Route("none", 0.9, "ensemble")])[0].label == "table"
    passage = Turn(AskResult(question="what does the note say?", answer="It says hi [1].",
                             citations=[Citation(1, "paragraph", "/files/note.md", {}, "hi")]))
    follow = follow_up("and who wrote it?", [_table_turn(), passage])  # about the passage now
    assert follow is not None and follow.prior is None


def test_cited_files_changed_or_removed_since(tmp_path: Path):
    catalog = Catalog(Database(tmp_path / "index.db"))
    root = catalog.add_root(tmp_path)
    for name in ("a.txt", "b.txt", "c.txt"):
        catalog.record_file(root, f"/files/{name}", "text", 10, 100, f"sha-{name}", "indexed", None)
    result = AskResult(question="q", answer="x [1][2][3].", citations=[
        Citation(n, "paragraph", f"/files/{name}", {}, "t") for n, name in enumerate(("a.txt", "b.txt", "c.txt"), 1)])
    turn = Turn(result, file_states(result, catalog))
    assert changed_files(turn, catalog) == {}
    catalog.record_file(root, "/files/b.txt", "text", 11, 200, "sha-new", "indexed", None)
    catalog.forget_file(catalog.file("/files/c.txt").id)  # type: ignore[union-attr]
    assert changed_files(turn, catalog) == {"/files/b.txt": "changed", "/files/c.txt": "removed"}
