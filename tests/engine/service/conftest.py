"""A real `trove serve` for the service tests: a home indexed from a few files written here, the
server started as a process on a free loopback port with the smoke LLM, and a small HTTP client."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import MODELS_DIR

NOTE = "The boiler was serviced on 12 March 2024 by Nordic Heat. The technician was Ola Berg.\n"
PEOPLE = "name,age,city\nAnna,31,Oslo\nBo,45,Bergen\nCleo,27,Oslo\n"


def write_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "boiler.md").write_text(NOTE, encoding="utf-8")
    (folder / "people.csv").write_text(PEOPLE, encoding="utf-8")
    return folder


def trove_cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "TROVE_MODELS_DIR": str(MODELS_DIR), **(env or {})})


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> object:
        return json.loads(self.body)


@dataclass
class Served:
    """A running server: its URL parts, home, folder and the file its log goes to."""

    host: str
    port: int
    home: Path
    folder: Path
    log: Path
    process: subprocess.Popen

    def request(self, method: str, path: str, body: object = None, headers: dict | None = None,
                raw: bytes | None = None) -> Reply:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=300)
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        connection.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
        reply = connection.getresponse()
        out = Reply(reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read())
        connection.close()
        return out


def start_server(home: Path, folder: Path, log: Path, *args: str, env: dict | None = None) -> Served:
    """`trove serve` on a free port of 127.0.0.1, once it listens (its home's server file says where)."""
    out = log.open("w")
    process = subprocess.Popen([sys.executable, "-m", "engine.cli", "serve", "--home", str(home), "--port", "0",
                                "--llm", "smoke", *args], stdout=out, stderr=subprocess.STDOUT,
                               env={**os.environ, "TROVE_MODELS_DIR": str(MODELS_DIR), **(env or {})})
    deadline = time.monotonic() + 240
    server_file = home / "server.json"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"trove serve exited {process.returncode}: {log.read_text()}")
        if server_file.is_file():
            data = json.loads(server_file.read_text())
            host, port = data["url"].removeprefix("http://").rsplit(":", 1)
            served = Served(host, int(port), home, folder, log, process)
            try:
                served.request("GET", "/openapi.json")
            except OSError:
                pass
            else:
                return served
        time.sleep(0.2)
    process.kill()
    raise AssertionError(f"trove serve did not start in time: {log.read_text()}")


def stop_server(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(30)
    except subprocess.TimeoutExpired:
        served.process.kill()


@pytest.fixture(scope="module")
def indexed_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A home with two files indexed (a note, a CSV table), by the CLI."""
    base = tmp_path_factory.mktemp("served")
    folder, home = write_folder(base / "files"), base / "home"
    done = trove_cli("index", str(folder), "--home", str(home))
    assert done.returncode == 0, done.stderr
    return home, folder


@pytest.fixture(scope="module")
def served(indexed_home: tuple[Path, Path]) -> Iterator[Served]:
    home, folder = indexed_home
    running = start_server(home, folder, home.parent / "serve.log")
    yield running
    stop_server(running)
