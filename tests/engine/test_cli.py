"""The `trove` command as a user runs it (subprocess, real home folder, real models)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, MODELS_DIR, ROOT


def run(*args: str, home: Path, ok: bool = True, models_dir: Path = MODELS_DIR) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROVE_")}
    env.update(TROVE_HOME=str(home), TROVE_MODELS_DIR=str(models_dir), TROVE_THREADS="2")
    proc = subprocess.run([sys.executable, "-m", "engine.cli", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    run("index", str(EXAMPLES), home=home)
    return home


def test_index_prints_counts_and_status_json_lists_them(home: Path):
    again = run("index", home=home).stdout
    assert "0 indexed" in again and "unchanged" in again
    info = json.loads(run("status", "--json", home=home).stdout)
    assert info["files"]["indexed"] >= 9 and info["files"]["failed"] == 0
    assert info["corpora"]["text/paragraph"] > info["corpora"]["text/document"] > 0
    assert info["roots"] == [str(EXAMPLES.resolve())]


def test_search_json_has_ranked_items_with_locators(home: Path):
    rows = json.loads(run("search", "feeding ratio for the sourdough starter", "--k", "3", "--json",
                          home=home).stdout)
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert rows[0]["source"].endswith("sourdough-starter-weekend-baker.html")
    assert {"start", "end"} <= set(rows[0]["locator"]) and rows[0]["score"] >= rows[1]["score"]


def test_ask_json_with_the_smoke_model(home: Path):
    out = json.loads(run("ask", "Who lent me The Power Broker?", "--llm", "smoke", "--json", home=home).stdout)
    assert set(out) >= {"answer", "citations", "routes", "queries", "timings_ms"}
    assert out["answer"] and out["timings_ms"]["total"] > 0


def test_missing_model_is_one_clear_line_and_exit_2(home: Path, tmp_path: Path):
    proc = run("ask", "Who lent me The Power Broker?", home=home, ok=False, models_dir=tmp_path / "no-models")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "text-embedder" in lines[0] and "trove models install" in lines[0]


def test_models_list_json_shows_roles_and_empty_roles(home: Path):
    info = json.loads(run("models", "list", "--json", home=home).stdout)
    installed = {m["name"] for m in info["models"] if m["state"] == "installed"}
    assert {"all-minilm-l6-v2-int8", "smollm2-135m-instruct-q4_1"} <= installed
    assert "vlm" in info["empty_roles"] and "image-text-embedder" in info["empty_roles"]


def test_index_of_a_missing_path_is_an_error_not_a_crash(home: Path):
    proc = run("index", "/no/such/folder", home=home, ok=False)
    assert proc.returncode == 2 and "no such file or folder" in proc.stderr


def test_sql_over_indexed_tables_and_refusal_of_writes(tmp_path: Path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "runs.csv").write_text("date,km\n2024-05-01,5.2\n2024-05-03,10.1\n")
    home = tmp_path / "home"
    run("index", str(folder), home=home)
    assert "table runs (2 rows: date, km)" in run("status", home=home).stdout
    out = json.loads(run("sql", "SELECT sum(km) AS total FROM runs", "--json", home=home).stdout)
    assert out == {"columns": ["total"], "rows": [[15.3]], "truncated": False}
    refused = run("sql", "DROP TABLE runs", home=home, ok=False)
    assert refused.returncode == 2 and "only read-only SELECT" in refused.stderr
    assert json.loads(run("sql", "SELECT count(*) FROM runs", "--json", home=home).stdout)["rows"] == [[2]]


def test_examples_graphs_and_rdf_are_listed_and_queried_in_their_own_languages(home: Path):
    status = json.loads(run("status", "--json", home=home).stdout)
    graphs = {g["format"]: g for g in status["graphs"]}
    assert graphs["cypher"]["nodes"] == {"Person": 8, "Place": 2} and graphs["vault"]["nodes"]["Note"] == 8
    [library] = status["rdf"]
    assert library["file"].endswith("my-books.ttl") and library["triples"] > 40
    family = graphs["cypher"]["name"]
    out = run("query", family, "MATCH (g:Person)-[:PARENT_OF]->(:Person)-[:PARENT_OF]->(c:Person) "
                               "WHERE g.nickname = 'mormor' RETURN c.name ORDER BY c.name", "--json", home=home)
    assert json.loads(out.stdout)["rows"] == [["Lars de Vries"], ["Maya Lindqvist"], ["Sofia Lindqvist"]]
    books = run("query", library["name"], "SELECT ?title WHERE { ?b schema:author/schema:name 'Ursula K. Le Guin' ; "
                                          "schema:name ?title } ORDER BY ?title", home=home).stdout
    assert "The Dispossessed" in books and "The Power Broker" not in books
    refused = run("query", family, "MATCH (p:Person) DETACH DELETE p", home=home, ok=False)
    assert refused.returncode == 2 and "only reading queries may run" in refused.stderr
    refused = run("query", library["name"], "DELETE WHERE { ?s ?p ?o }", home=home, ok=False)
    assert refused.returncode == 2 and "changes data" in refused.stderr
    assert "Lars de Vries" in run("query", family, "MATCH (p:Person) RETURN p.name", home=home).stdout


def test_route_prints_labels_confidences_and_the_router_without_answering(home: Path):
    out = json.loads(run("route", "How much did I spend on groceries in March 2024?", "--router", "trained",
                         "--json", home=home).stdout)
    assert out["routes"][0]["label"] == "table" and out["routes"][0]["router"] == "trained"
    photos = json.loads(run("route", "show me photos of the beach", "--router", "trained", "--json",
                            home=home).stdout)
    assert photos["routes"][0]["label"] == "image"  # the examples have photos
    default = json.loads(run("route", "How much did I spend on groceries in March 2024?", "--json",
                             home=home).stdout)  # the ensemble: the trained router is sure of this one
    assert default["routes"][0] == {**default["routes"][0], "label": "table", "router": "trained"}
    text = run("route", "What is the deposit in my rental contract?", "--router", "trained", home=home).stdout
    assert "(trained)" in text and "paragraph" in text and " ms" in text


def _one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The single line a refused command prints (exit 2, no traceback)."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    return lines[0]


@pytest.fixture
def small_home(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "boiler.md").write_text("# Boiler\n\nThe boiler was serviced by Ruud Bakker in May 2024.\n")
    home = tmp_path / "home"
    run("index", str(folder), home=home)
    return home


def test_a_home_that_is_a_file_is_one_line_error(tmp_path: Path):
    not_a_folder = tmp_path / "trove-home.txt"
    not_a_folder.write_text("not a folder")
    for args in (["status"], ["index", str(tmp_path)], ["search", "boiler"], ["models", "list"]):
        line = _one_error_line(run(*args, "--home", str(not_a_folder), home=tmp_path / "unused", ok=False))
        assert line == f"error: {not_a_folder}: not a folder (--home must be a Trove home folder)"
    assert not_a_folder.read_text() == "not a folder"


def _unprivileged() -> list[str]:
    """A command prefix under which writing a folder without write permission fails: nothing as a
    normal user; as root, `setpriv` drops the capabilities that let root write anyway."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a read-only home cannot be made")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def _run_as(prefix: list[str], *args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROVE_")}
    env.update(TROVE_HOME=str(home), TROVE_MODELS_DIR=str(MODELS_DIR), TROVE_THREADS="2")
    return subprocess.run([*prefix, sys.executable, "-m", "engine.cli", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _chmod_tree(top: Path, folders: int, files: int) -> None:
    for folder, _, names in os.walk(top):
        Path(folder).chmod(folders)
        for name in names:
            (Path(folder) / name).chmod(files)


def test_a_read_only_home_answers_and_refuses_to_index(small_home: Path):
    prefix = _unprivileged()
    _chmod_tree(small_home, 0o555, 0o444)
    try:
        if subprocess.run([*prefix, "touch", str(small_home / "probe")], capture_output=True).returncode == 0:
            pytest.skip("this machine lets the test write a folder without write permission")
        before = {p: p.stat().st_mtime_ns for p in small_home.rglob("*")}
        status = _run_as(prefix, "status", "--json", home=small_home)
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["files"]["indexed"] == 1
        found = _run_as(prefix, "search", "who serviced the boiler", "--k", "1", "--json", home=small_home)
        assert found.returncode == 0, found.stderr
        assert "Ruud Bakker" in json.loads(found.stdout)[0]["text"]
        asked = _run_as(prefix, "ask", "Who serviced the boiler?", "--llm", "smoke", "--json", home=small_home)
        assert asked.returncode == 0, asked.stderr
        assert json.loads(asked.stdout)["answer"]
        refused = _one_error_line(_run_as(prefix, "index", home=small_home))
        assert refused == (f"error: {small_home} cannot be written (read-only): cannot index; "
                           "status, search and ask still work")
        assert {p: p.stat().st_mtime_ns for p in small_home.rglob("*")} == before
    finally:
        _chmod_tree(small_home, 0o755, 0o644)


def test_empty_questions_and_queries_are_one_line_errors(tmp_path: Path):
    home = tmp_path / "home"
    for args, what in ((["ask", ""], "question"), (["ask", " \t\n "], "question"), (["route", "  "], "question"),
                       (["search", ""], "query"), (["search", "   "], "query")):
        assert _one_error_line(run(*args, home=home, ok=False)) == f"error: the {what} is empty"
    assert not home.exists()  # refused before the home was opened


@pytest.mark.parametrize("k", ["0", "-1"])
def test_search_k_must_be_at_least_one(tmp_path: Path, k: str):
    proc = run("search", "boiler", "--k", k, home=tmp_path / "home", ok=False)
    assert proc.returncode == 2 and f"Invalid value for '--k': {k} is not in the range x>=1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_index_and_status_print_a_name_that_is_not_utf8(tmp_path: Path):
    folder = tmp_path / "names"
    folder.mkdir()
    fd = os.open(os.fsencode(folder) + b"/bad\xff.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"The spare key is with Femke next door.\n")
    os.close(fd)
    (folder / "zz.txt").write_text("The boiler was serviced by Ruud Bakker.\n")
    home = tmp_path / "home"
    first = run("index", str(folder), home=home).stdout
    assert "1 indexed" in first and "1 failed" in first
    assert f"failed: {folder}/bad\\xff.txt: the file name is not valid UTF-8" in first
    assert "0 indexed, 2 unchanged" in run("index", home=home).stdout
    assert f"failed: {folder}/bad\\xff.txt: the file name is not valid UTF-8" in run("status", home=home).stdout


def test_questions_are_kept_as_conversations_followed_up_shown_exported_and_deleted(small_home: Path,
                                                                                    tmp_path: Path):
    first = json.loads(run("ask", "Who serviced the boiler?", "--llm", "smoke", "--json", home=small_home).stdout)
    assert first["conversation"] == 1 and first["asked_as"] == "Who serviced the boiler?"
    follow = json.loads(run("ask", "and when was that?", "--follow-up", "--llm", "smoke", "--json",
                            home=small_home).stdout)
    assert follow["conversation"] == 1 and follow["question"] == "and when was that?" and follow["asked_as"]
    listed = json.loads(run("conversations", "list", "--json", home=small_home).stdout)
    assert [(c["id"], c["title"], c["turns"]) for c in listed] == [(1, "Who serviced the boiler?", 2)]
    shown = json.loads(run("conversations", "show", "1", "--json", home=small_home).stdout)
    assert [t["question"] for t in shown["turns"]] == ["Who serviced the boiler?", "and when was that?"]
    assert "? and when was that?" in run("conversations", "show", "1", home=small_home).stdout
    run("conversations", "rename", "1", "Boiler", home=small_home)
    exported = run("conversations", "export", "1", "--out", str(tmp_path), home=small_home).stdout
    text = (tmp_path / "conversation-1.md").read_text(encoding="utf-8")
    assert "conversation-1.md" in exported and text.startswith("# Boiler\n") and "## 2. and when was that?" in text
    run("conversations", "delete", "1", home=small_home)
    assert json.loads(run("conversations", "list", "--json", home=small_home).stdout) == []


def test_conversation_commands_name_what_is_wrong(small_home: Path, tmp_path: Path):
    for args in (["conversations", "show", "7"], ["conversations", "delete", "7"],
                 ["ask", "and then?", "--conversation", "7", "--llm", "smoke"]):
        line = _one_error_line(run(*args, home=small_home, ok=False))
        assert line == "error: no conversation 7 (see trove conversations list)"
    line = _one_error_line(run("ask", "and then?", "--follow-up", "--llm", "smoke", home=small_home, ok=False))
    assert line == "error: there is no conversation to follow up yet: ask a question first"
    run("ask", "Who serviced the boiler?", "--llm", "smoke", "--json", home=small_home)
    missing = tmp_path / "no-such-folder" / "c.md"
    line = _one_error_line(run("conversations", "export", "1", "--out", str(missing), home=small_home, ok=False))
    assert line.startswith(f"error: {missing}: cannot write the conversation")


def test_chat_answers_each_line_in_one_conversation(small_home: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROVE_")}
    env.update(TROVE_HOME=str(small_home), TROVE_MODELS_DIR=str(MODELS_DIR), TROVE_THREADS="2")
    proc = subprocess.run([sys.executable, "-m", "engine.cli", "chat", "--llm", "smoke"], env=env, cwd=ROOT,
                          input="Who serviced the boiler?\nand when?\n/new\nWho serviced it?\n", capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("  route: ") == 3 and "(a new conversation)" in proc.stdout
    listed = json.loads(run("conversations", "list", "--json", home=small_home).stdout)
    assert sorted(c["turns"] for c in listed) == [1, 2]


def test_a_scope_keeps_search_to_a_folder_and_a_bad_one_is_one_line(small_home: Path, tmp_path: Path):
    notes = tmp_path / "notes"
    rows = json.loads(run("search", "boiler", "--in", str(notes), "--json", home=small_home).stdout)
    assert rows and all(r["source"].startswith(str(notes)) for r in rows)
    line = _one_error_line(run("ask", "Who serviced the boiler?", "--in", str(tmp_path / "elsewhere"), "--llm",
                               "smoke", home=small_home, ok=False))
    assert line == f"error: {tmp_path / 'elsewhere'}: not in a folder Trove follows (see trove status)"
    line = _one_error_line(run("ask", "Who serviced the boiler?", "--since", "2099-01-01", "--llm", "smoke",
                               home=small_home, ok=False))
    assert line == "error: nothing indexed is in the scope (since 2099-01-01)"
    scoped = json.loads(run("ask", "Who serviced the boiler?", "--kind", "paragraph", "--llm", "smoke", "--json",
                            home=small_home).stdout)
    assert scoped["scope"] == {"kinds": ["paragraph"]} and {r["label"] for r in scoped["routes"]} <= {"paragraph"}


def test_search_offers_every_granularity_the_engine_ranks():
    from engine.cli import cli
    from engine.routing.labels import GRANULARITIES

    option = next(p for p in cli.commands["search"].params if p.name == "granularity")
    assert tuple(option.type.choices) == GRANULARITIES
