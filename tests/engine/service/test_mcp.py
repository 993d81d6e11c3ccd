"""`trove mcp` driven by the MCP SDK's own client over stdio: its tools (search, ask, status) give the
CLI's JSON objects, bad arguments are tool errors naming the problem, and the indexed files (only
those) are resources. One server process serves the module; the engine's refusals and the gate are
also checked in-process, over a stand-in Trove."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import anyio
import jsonschema
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult

from engine import Busy, Gate, Trove
from engine.browsing import IndexedFile
from engine.errors import TroveError
from engine.service import openapi
from engine.service.mcp_server import build, file_uri
from engine.settings import load_settings
from tests.conftest import MODELS_DIR, ROOT

NOTES = {"boiler.md": "# Boiler\n\nThe boiler was serviced on 12 March 2024 by Nordic Heat. The technician was "
                      "Ola Berg.\n",
         "garden.md": "# Garden\n\nThe apple trees were pruned in February; the plum tree needs a new stake.\n"}


def valid(value: object, schema: str) -> Any:
    """`value`, once checked against the HTTP API's OpenAPI schema `schema` (the same JSON shapes)."""
    spec = openapi.spec()
    jsonschema.validate(value, {**spec["components"]["schemas"][schema], "components": spec["components"]})
    return value


def data(result: CallToolResult) -> Any:
    """A tool result's structured data (a list comes wrapped as {"result": [...]}), failing on a tool error."""
    assert not result.is_error, result.content
    found = result.structured_content
    return found["result"] if isinstance(found, dict) and set(found) == {"result"} else found


def error(result: CallToolResult) -> str:
    """A tool error's message, failing when the call was not an error."""
    assert result.is_error, result.structured_content
    return " ".join(getattr(block, "text", "") for block in result.content)


@dataclass
class Remote:
    """A `trove mcp` process and the SDK client connected to it, called from sync tests via a portal."""

    portal: BlockingPortal
    client: Client
    home: Path
    folder: Path

    def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        return self.portal.call(self.client.call_tool, tool, arguments)

    def read(self, path: str) -> str:
        result = self.portal.call(self.client.read_resource, file_uri(path))
        return "".join(getattr(c, "text", "") for c in result.contents)

    def refused(self, path: str) -> str:
        """The error reading `path` as a resource gives (failing when it is read)."""
        with pytest.raises(Exception) as caught:  # noqa: PT011 - the SDK raises the server's error as MCPError
            self.read(path)
        return str(caught.value)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> tuple[Path, Path]:
    """A home with two notes indexed (with the session's embedder), closed again: (home, folder)."""
    base = tmp_path_factory.mktemp("mcp")
    folder, home = base / "files", base / "home"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    trove = Trove(load_settings(home, models_dir=MODELS_DIR, llm="smoke", threads=2))
    trove.models.embedder = embedder
    try:
        assert trove.index([folder]).indexed == len(NOTES)
    finally:
        trove.close()
    return home, folder


@pytest.fixture(scope="module")
def remote(indexed: tuple[Path, Path]) -> Iterator[Remote]:
    """`trove mcp --home HOME --llm smoke` over stdio, with the SDK's client, for the whole module."""
    home, folder = indexed
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROVE_")}
    params = StdioServerParameters(command=sys.executable, cwd=ROOT,
                                   args=["-m", "engine.cli", "mcp", "--home", str(home), "--llm", "smoke"],
                                   env={**env, "TROVE_MODELS_DIR": str(MODELS_DIR)})
    with start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(Client(params, read_timeout_seconds=300)) as client:
        yield Remote(portal, client, home, folder)


def test_the_server_says_what_it_is_and_lists_its_tools(remote: Remote):
    tools = {tool.name: tool for tool in remote.portal.call(remote.client.list_tools).tools}
    assert {"search", "ask", "status"} <= set(tools)
    assert tools["ask"].output_schema is not None and "question" in tools["ask"].input_schema["properties"]
    assert remote.client.server_info is not None and remote.client.server_info.name == "trove"
    assert "cite" in (remote.client.instructions or "")
    templates = remote.portal.call(remote.client.list_resource_templates).resource_templates
    assert [t.uri_template for t in templates] == ["trove://file/{+path}"]


def test_search_finds_the_note_with_its_file(remote: Remote):
    hits = [valid(hit, "Hit") for hit in data(remote.call("search", {"query": "boiler service", "k": 2}))]
    assert hits and hits[0]["source"] == str(remote.folder / "boiler.md")
    assert "Nordic Heat" in hits[0]["text"] and len(hits) <= 2


def test_status_says_the_notes_are_indexed(remote: Remote):
    status = valid(data(remote.call("status", {})), "Status")
    assert status["files"]["indexed"] == len(NOTES) and status["roots"] == [str(remote.folder)]


def test_bad_arguments_are_tool_errors_naming_the_problem(remote: Remote):
    assert "the question is empty" in error(remote.call("ask", {"question": "   "}))
    assert "the query is empty" in error(remote.call("search", {"query": ""}))
    assert "granularity must be one of" in error(remote.call("search", {"query": "boiler", "granularity": "atoms"}))
    assert "k must be at least 1" in error(remote.call("search", {"query": "boiler", "k": 0}))
    assert "no conversation 987654" in error(remote.call("ask", {"question": "Who?", "conversation": 987654}))


def test_indexed_files_are_resources_and_nothing_else_is(remote: Remote):
    note = remote.folder / "boiler.md"
    text = remote.read(str(note))  # the text as indexed (markdown's marks left out)
    assert "Boiler" in text and "The boiler was serviced on 12 March 2024 by Nordic Heat." in text
    for outside in ("/etc/passwd", f"{remote.folder}/../files/boiler.md", str(remote.home / "index.db")):
        assert "not an indexed file" in remote.refused(outside), outside


@pytest.mark.slow
def test_ask_answers_with_citations_and_follows_up_in_its_conversation(remote: Remote):
    result = remote.call("ask", {"question": "When was the boiler serviced?"})
    answer = valid(data(result), "Answer")
    assert answer["question"] == "When was the boiler serviced?" and answer["answer"].strip()
    assert isinstance(answer["conversation"], int)
    assert answer["citations"] or not answer["answered"]  # an answer from the files cites them; else "not found"
    text = result.content[0].text  # type: ignore[union-attr]
    assert answer["answer"] in text and f"conversation {answer['conversation']}" in text
    for c in answer["citations"]:
        assert c["source"] in {str(remote.folder / name) for name in NOTES}
        assert f"[{c['n']}] {Path(c['source']).name}" in text and file_uri(c["source"]) in text
    follow = data(remote.call("ask", {"question": "Who did it?", "conversation": answer["conversation"]}))
    assert follow["conversation"] == answer["conversation"] and follow["question"] == "Who did it?"


# -- in-process, over a stand-in Trove: the refusals, the photo resource and the gate ----------------
class StandIn:
    """What the server calls on a Trove, answering from a table; it checks the gate is held, off the loop."""

    def __init__(self, gate: Gate) -> None:
        self.gate, self.calls = gate, 0

    def _held(self) -> None:
        assert threading.current_thread() is not threading.main_thread()
        with pytest.raises(Busy):
            self.gate.acquire(timeout_s=0)  # someone (this call) holds the gate
        self.calls += 1

    def file(self, path: str) -> IndexedFile:
        self._held()
        kinds = {"/photos/cat.jpg": "photo", "/films/trip.mp4": "video", "/data/shop.sqlite": "database"}
        if path not in kinds:
            raise TroveError(f"{path}: not an indexed file (only files Trove indexed can be read)")
        return IndexedFile(path, kinds[path], 1234, None)

    def status(self) -> dict:
        self._held()
        raise ValueError("the home is being moved")


def test_engine_refusals_and_files_without_text_in_process():
    gate = Gate()
    stand_in = StandIn(gate)
    server = build(cast(Trove, stand_in), gate)

    async def script() -> dict[str, Any]:
        async with Client(server) as client:
            out: dict[str, Any] = {"status": await client.call_tool("status", {})}
            for path in ("/photos/cat.jpg", "/films/trip.mp4", "/data/shop.sqlite", "/etc/shadow"):
                try:
                    read = await client.read_resource(file_uri(path))
                    out[path] = read.contents[0].text  # type: ignore[union-attr]
                except Exception as exc:  # noqa: BLE001 - the refusal's message is what is checked
                    out[path] = f"refused: {exc}"
            return out

    got = anyio.run(script)
    assert "the home is being moved" in error(got["status"]) and "Traceback" not in error(got["status"])
    assert "photo" in got["/photos/cat.jpg"] and "granularity image" in got["/photos/cat.jpg"]
    assert "video" in got["/films/trip.mp4"] and "clip or video" in got["/films/trip.mp4"]
    assert got["/data/shop.sqlite"].startswith("refused:") and "no text" in got["/data/shop.sqlite"]
    assert got["/etc/shadow"].startswith("refused:") and "not an indexed file" in got["/etc/shadow"]
    assert stand_in.calls == 5
