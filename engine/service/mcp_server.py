"""`trove mcp`: Trove as tools and resources for MCP clients (local assistants), over stdio, with the
official MCP SDK. The tools return the JSON objects of `engine.shapes`, as `--json` prints them; the
indexed files are resources (`trove://file/{path}`); nothing outside the index is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from engine import shapes
from engine.errors import TroveError
from engine.routing.labels import LABELS
from engine.service.app import GRANULARITIES

if TYPE_CHECKING:
    from engine.gate import Gate
    from engine.pipeline import Trove

T = TypeVar("T")
FILE_URI = "trove://file/{+path}"  # path: the file's absolute path without its leading "/"
INSTRUCTIONS = ("Trove answers questions from the files on this computer (documents, tables, databases, "
                "graphs, photos, videos) with local models only, and cites where each fact comes from. Use "
                "`ask` for an answer with citations, `search` for ranked passages or photos without an answer, "
                "`status` for what is indexed. Cited files can be read as resources trove://file/PATH.")


def file_uri(path: str) -> str:
    """The resource URI of an indexed file."""
    return "trove://file/" + quote(path.lstrip("/"))


def build(trove: Trove, gate: Gate) -> MCPServer:
    """The MCP server over `trove`; each call holds `gate` (one engine call at a time) in a thread."""
    server = MCPServer("trove", instructions=INSTRUCTIONS)

    async def held(fn: Callable[[Trove], T], refuse: type[Exception] = ToolError) -> T:
        def run() -> T:
            with gate:
                return fn(trove)

        try:
            return await anyio.to_thread.run_sync(run)
        except (TroveError, ValueError, LookupError) as exc:
            raise refuse(str(exc) or type(exc).__name__) from None

    @server.tool()
    async def search(query: str, k: int = 10, granularity: str = "paragraph") -> list[dict[str, Any]]:
        """Ranked items from the indexed files, no LLM: each with its file (`source`), where in it
        (`locator`: page and characters, a box in a photo, seconds of a video) and its text.
        granularity: paragraph | document | image | region | clip | video."""
        corpus = LABELS.get(granularity) if granularity in GRANULARITIES else None
        if corpus is None:
            raise ToolError(f"granularity must be one of {', '.join(GRANULARITIES)}")
        if not query.strip():
            raise ToolError("the query is empty")
        if k < 1:
            raise ToolError("k must be at least 1")
        return shapes.hits(await held(lambda t: t.search(query, k, corpus)))

    @server.tool()
    async def ask(question: str, conversation: int | None = None) -> dict[str, Any]:
        """A cited answer from the indexed files: `answer` (with [n] markers), `citations` (each
        with its file, locator and text; a query answer also with its SQL, Cypher or SPARQL), and
        the `conversation` it was kept in; pass that id back to ask a follow-up ("and in April?")."""
        if not question.strip():
            raise ToolError("the question is empty")

        def asked(t: Trove) -> dict[str, Any]:
            kept = t.conversation(conversation) if conversation is not None else t.conversation(title=question)
            return shapes.answer(t.ask(question, conversation=kept), kept.id)

        return await held(asked)

    @server.tool()
    async def status() -> dict[str, Any]:
        """What is indexed (folders, files by kind and state, tables, graphs, RDF), what was
        skipped or failed and why, and which models are installed."""
        return await held(lambda t: t.status())

    @server.resource(FILE_URI, name="indexed file", mime_type="text/plain",
                     description="The text of a file Trove indexed, as it was indexed (a cited file)")
    async def indexed_file(path: str) -> str:
        found = await held(lambda t: t.file("/" + path), ResourceError)
        if found.text is None:
            return (f"{found.path} is a {found.kind} file: its content is in Trove's search results of "
                    "granularity image, region, clip or video, not text")
        return found.text

    return server

