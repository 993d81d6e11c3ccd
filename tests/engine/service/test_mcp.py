"""`trove mcp` driven by the MCP SDK's own client over stdio: its tools (search, ask, status) give the
CLI's JSON objects, bad arguments are tool errors with a message, and the indexed files (only
those) are resources."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from engine.service.mcp_server import file_uri
from tests.conftest import MODELS_DIR
from tests.engine.service.test_app import valid

pytestmark = pytest.mark.slow


def _session(home: Path, script: Any) -> Any:
    """Run `script(client)` against `trove mcp` started on `home` with the smoke LLM."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.cli", "mcp", "--home", str(home),
                                                                 "--llm", "smoke"],
                                   env={**os.environ, "TROVE_MODELS_DIR": str(MODELS_DIR)})

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=300) as client:
            return await script(client)

    return anyio.run(run)


def _data(result: Any) -> Any:
    """A tool result's structured data (the JSON object), failing on a tool error."""
    assert not result.is_error, result.content
    data = result.structured_content
    return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data


def test_tools_answer_with_the_cli_shapes(indexed_home: tuple[Path, Path]):
    home, folder = indexed_home

    async def script(client: Client) -> dict:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        hits = _data(await client.call_tool("search", {"query": "boiler service", "k": 2}))
        status = _data(await client.call_tool("status", {}))
        answer = _data(await client.call_tool("ask", {"question": "When was the boiler serviced?"}))
        follow = _data(await client.call_tool("ask", {"question": "Who did it?",
                                                      "conversation": answer["conversation"]}))
        return {"tools": tools, "hits": hits, "status": status, "answer": answer, "follow": follow}

    got = _session(home, script)
    assert {"search", "ask", "status"} <= got["tools"]
    assert [valid(h, "Hit")["source"] for h in got["hits"]][0] == str(folder / "boiler.md")
    assert valid(got["status"], "Status")["files"]["indexed"] == 2
    assert valid(got["answer"], "Answer")["question"] == "When was the boiler serviced?" and got["answer"]["answer"]
    assert got["follow"]["conversation"] == got["answer"]["conversation"] is not None


def test_bad_arguments_are_tool_errors_and_only_indexed_files_are_resources(indexed_home: tuple[Path, Path]):
    home, folder = indexed_home
    note = str(folder / "boiler.md")

    async def script(client: Client) -> dict:
        empty = await client.call_tool("ask", {"question": "  "})
        unknown = await client.call_tool("ask", {"question": "Who?", "conversation": 987654})
        granularity = await client.call_tool("search", {"query": "boiler", "granularity": "atoms"})
        text = await client.read_resource(file_uri(note))
        outside = []
        for path in ("/etc/passwd", f"{folder}/../files/boiler.md", str(home / "server.json")):
            try:
                await client.read_resource(file_uri(path))
            except Exception as exc:  # the SDK raises the server's error
                outside.append(str(exc))
        return {"errors": [empty, unknown, granularity], "text": text, "outside": outside}

    got = _session(home, script)
    messages = [" ".join(c.text for c in r.content) for r in got["errors"]]
    assert all(r.is_error for r in got["errors"])
    assert "the question is empty" in messages[0] and "no conversation 987654" in messages[1]
    assert "granularity must be one of" in messages[2]
    assert got["text"].contents[0].text == (folder / "boiler.md").read_text().strip()
    assert len(got["outside"]) == 3
    assert all("not an indexed file" in refused for refused in got["outside"]), got["outside"]
