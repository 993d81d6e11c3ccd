"""A real SPARQL 1.1 endpoint for tests: the `oxigraph` CLI (PyPI) loads a Turtle file into a store in
a temporary folder and serves it read-only on 127.0.0.1, on a free port; stopped by the fixture."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def _oxigraph() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    if not Path(found).exists():
        pytest.skip("the oxigraph CLI is not installed: the SPARQL endpoint tests need it (make test installs it)")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(turtle: Path, folder: Path) -> Iterator[str]:
    """The query URL of a read-only endpoint over `turtle`, while it runs."""
    cli = _oxigraph()
    folder.mkdir(parents=True, exist_ok=True)
    # relative IRIs resolve against the file's own URI, as Trove's embedded store loads it
    done = subprocess.run([cli, "load", "--location", str(folder), "--file", str(turtle),
                           "--base", turtle.resolve().as_uri()], capture_output=True, text=True, timeout=300)
    if done.returncode:
        pytest.skip(f"oxigraph could not load the test data here: {done.stderr[-300:]}")
    port = _free_port()
    server = subprocess.Popen([cli, "serve-read-only", "--location", str(folder), "--bind", f"127.0.0.1:{port}",
                               "--union-default-graph", "--timeout-s", "5"],  # the server's own limit too
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}?query=ASK%7B%7D", timeout=2).read()
            break
        except OSError:
            time.sleep(0.1)
    else:
        server.kill()
        pytest.skip("the oxigraph server did not start within 30 s here")
    yield url
    server.terminate()
    server.wait(10)
