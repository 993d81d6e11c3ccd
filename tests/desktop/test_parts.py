"""The app's parts that need no index: query rewrites for the viewers, graph building, the engine
gate, the watcher's paths, progress text, the `trove app` command."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from desktop.sources_view import progress_text
from desktop.viewers import VIEWERS, viewer_for
from desktop.viewers.graph import graph_from_rows, layout, paths_query, values_graph
from desktop.viewers.rdf import construct_query, turtle_rows, where_group
from desktop.watcher import paths_to_watch
from desktop.workers import Gate, IndexProgress


def test_every_citation_kind_has_a_viewer():
    kinds = {"paragraph", "document", "table", "graph", "rdf", "image", "region", "clip", "video"}
    assert kinds <= set(VIEWERS)
    assert viewer_for("region").__name__ == "PhotoViewer" and viewer_for("clip").__name__ == "VideoViewer"


def test_cypher_patterns_become_named_paths():
    q = "MATCH (a:Person {name: 'Astrid, the RETURN'})-[:PARENT_OF]->(c)-[:PARENT_OF]->(g) WHERE g.born > 1990 " \
        "RETURN g.name ORDER BY g.name LIMIT 5"
    assert paths_query(q) == ("MATCH trove_p0 = (a:Person {name: 'Astrid, the RETURN'})-[:PARENT_OF]->(c)"
                              "-[:PARENT_OF]->(g) WHERE g.born > 1990 RETURN trove_p0 LIMIT 40")
    assert paths_query("MATCH p = (a)-[:R]->(b), (c:Tag) RETURN count(*)") == (
        "MATCH p = (a)-[:R]->(b), (c:Tag) RETURN p, c LIMIT 40")
    assert paths_query("MATCH (a)-[:R]->(b) WITH a, count(b) AS n RETURN a.name, n") is None
    assert paths_query("RETURN 1") is None


def test_paths_and_nodes_from_graph_rows():
    n = [{"_id": {"offset": i, "table": 0}, "_label": "Person", "name": name} for i, name in enumerate("ABC")]
    rel = [{"_src": n[i]["_id"], "_dst": n[i + 1]["_id"], "_label": "PARENT_OF"} for i in range(2)]
    graph = graph_from_rows([({"_nodes": n, "_rels": rel},), ({"_nodes": n[:2], "_rels": rel[:1]},)])
    assert graph.node_names() == ["A", "B", "C"] and len(graph.edges) == 2 and graph.edge_types() == ["PARENT_OF"]
    pos = layout(graph)
    assert pos[("id", 0, 0)].x() < pos[("id", 0, 1)].x() < pos[("id", 0, 2)].x()  # left to right along the path
    plain = values_graph(["g.name"], [["Maya"], ["Lars"]])
    assert plain.node_names() == ["Lars", "Maya"] and not plain.edges


def test_sparql_where_becomes_a_construct_of_its_patterns():
    q = ('PREFIX schema: <http://schema.org/>\nSELECT ?t WHERE { ?b schema:name ?t ; schema:author ?p . '
         '?p schema:name "Ursula {K.} Le Guin" . OPTIONAL { ?b schema:datePublished ?d } }')
    start, end = where_group(q)
    assert q[start] == "{" and q[end - 1] == "}" and q[end:] == ""
    construct = construct_query(q)
    assert construct.startswith("PREFIX schema: <http://schema.org/>\nCONSTRUCT {")
    assert "?b <http://schema.org/author> ?p" in construct and "<http://schema.org/datePublished>" in construct
    assert construct.endswith("} } LIMIT 200")
    rows, used = turtle_rows([("http://example.org/lib/lathe", "http://schema.org/name", "The Lathe of Heaven")],
                             {"schema": "http://schema.org/"})
    assert rows == [["ns1:lathe", "schema:name", '"The Lathe of Heaven"']]
    assert used == {"ns1": "http://example.org/lib/", "schema": "http://schema.org/"}


def test_gate_lets_waiting_calls_in_between_steps():
    gate, order = Gate(), []
    gate.acquire()
    waiter = threading.Thread(target=lambda: (gate.acquire(), order.append("ask"), gate.release()))
    waiter.start()
    time.sleep(0.1)
    order.append("step 1")
    gate.let_others_in()  # the long call's checkpoint: the waiting call runs now
    order.append("step 2")
    gate.release()
    waiter.join(5)
    assert order == ["step 1", "ask", "step 2"]


def test_progress_text_has_stage_rate_and_time_left():
    stage, rate = progress_text(IndexProgress(10, 40, "/x/notes/a.md", "index", 5.0))
    assert stage == "Indexing: a.md"
    assert rate == "10/40 files · 2.0 files/s, about 0:15 left · 0:05 so far"


def test_watcher_follows_folders_first_and_skips_hidden_and_the_home(tmp_path: Path):
    (tmp_path / "notes" / "old").mkdir(parents=True)
    (tmp_path / "notes" / "a.md").write_text("a")
    (tmp_path / "notes" / ".git").mkdir()
    (tmp_path / "notes" / ".git" / "HEAD").write_text("x")
    (tmp_path / "notes" / "home").mkdir()
    (tmp_path / "notes" / "home" / "trove.db").write_text("x")
    plan = paths_to_watch([str(tmp_path / "notes")], exclude=tmp_path / "notes" / "home")
    assert plan.paths == [str(tmp_path / "notes"), str(tmp_path / "notes" / "old"), str(tmp_path / "notes" / "a.md")]
    assert (plan.folders, plan.unwatched) == (2, 0)
    small = paths_to_watch([str(tmp_path / "notes")], limit=1)
    assert small.paths == [str(tmp_path / "notes")] and small.unwatched == 4  # old, home, a.md, trove.db
    assert "4 more folders and files are checked every 5 minutes" in small.describe()


def test_past_the_budget_the_newest_files_are_watched_and_the_rest_scanned(tmp_path: Path):
    for i in range(6):
        (tmp_path / f"{i}.md").write_text("x")
        os.utime(tmp_path / f"{i}.md", (1_700_000_000 + i, 1_700_000_000 + i))
    plan = paths_to_watch([str(tmp_path)], limit=3)
    assert plan.paths == [str(tmp_path), str(tmp_path / "5.md"), str(tmp_path / "4.md")] and plan.unwatched == 4


def test_the_watch_budget_is_half_the_systems_inotify_watches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from desktop import watcher

    (tmp_path / "max_user_watches").write_text("8192\n")
    monkeypatch.setattr(watcher, "INOTIFY_LIMIT", tmp_path / "max_user_watches")
    monkeypatch.setattr(watcher.sys, "platform", "linux")
    assert watcher.watch_budget() == (4096, "half of the system's 8,192 inotify watches")


def test_trove_app_explains_how_to_install_pyside6_when_it_is_missing(monkeypatch: pytest.MonkeyPatch):
    from engine.cli import cli

    for name in [m for m in sys.modules if m == "desktop.app" or m.startswith("PySide6")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "PySide6", None)
    result = CliRunner().invoke(cli, ["app"])
    assert result.exit_code != 0
    assert "pip install PySide6-Essentials==6.11.3" in result.output


def test_trove_app_is_a_command():
    from engine.cli import cli

    result = CliRunner().invoke(cli, ["app", "--help"])
    assert result.exit_code == 0 and "desktop app" in result.output
