"""`trove mcp`: Trove as tools and resources for MCP clients (local assistants), over stdio, with the
official MCP SDK. The tools return the JSON objects of `engine.shapes`, as `--json` prints them (as
structured output; `ask` also as readable text with its citations); the indexed files are resources
(`trove://file/{+path}`); nothing outside the index is read."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Annotated, Any, TypeVar
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.types import CallToolResult, TextContent

from engine import shapes
from engine.errors import REPORTED
from engine.result import LANGUAGES, AskResult, Citation, citation_place
from engine.routing.labels import GRANULARITIES, LABELS

if TYPE_CHECKING:
    from engine.gate import Gate
    from engine.pipeline import Trove

T = TypeVar("T")
FILE_URI = "trove://file/{+path}"  # path: the file's absolute path, percent-encoded; its leading "/" optional
MEDIA = {"photo": "image or region", "video": "clip or video"}  # kinds without text: where their content is
INSTRUCTIONS = ("Trove answers questions from the files on this computer (documents, notes, tables, databases, "
                "graphs, photos, videos) with local models only, and cites the file and the place in it that "
                "each fact comes from. Use `ask` for an answer with citations (pass its `conversation` back for "
                "a follow-up), `search` for ranked passages or photos without an answer, `status` for what is "
                "indexed. A cited or indexed file can be read as the resource trove://file/PATH.")
# the SDK refuses ".." and NUL in a path; absolute paths are what Trove names files by, and only indexed ones are read
SECURITY = ResourceSecurity(reject_absolute_paths=False)


def file_uri(path: str) -> str:
    """The resource URI of an indexed file (its absolute path, without the leading "/")."""
    return "trove://file/" + quote(path.lstrip("/"))


def _version() -> str:
    try:
        return version("trove")
    except PackageNotFoundError:
        return ""


def _where(c: Citation) -> str:
    """One citation as a line or three: its place and text (a query answer: its query and result)."""
    snippet = " ".join(c.text.split())
    place = f"[{c.n}] {citation_place(c.source, c.locator)}"
    if "query" in c.locator:
        shown = c.locator.get("result") or snippet.split(":", 1)[-1].strip()
        return (f"{place}\n    {LANGUAGES[c.locator['language']]}: {' '.join(c.locator['query'].split())}\n"
                f"    result: {shown[:300]}")
    return f"{place}: {snippet[:300]}{'…' if len(snippet) > 300 else ''}\n    {file_uri(c.source)}"


def readable(result: AskResult, conversation_id: int | None) -> str:
    """The answer as an assistant reads it: notices, the answer, its citations, the conversation."""
    lines = [f"({notice})" for notice in result.notices]
    lines += [f"(asked as: {result.asked_as})"] if result.asked_as else []
    lines += [result.answer, ""] + [_where(c) for c in result.citations]
    if result.unsupported:
        lines.append(f"(not backed by a citation: {len(result.unsupported)} sentence(s))")
    if conversation_id is not None:
        lines.append(f"(conversation {conversation_id}: pass it as `conversation` to ask a follow-up)")
    return "\n".join(lines).strip()


def build(trove: Trove, gate: Gate) -> MCPServer:
    """The MCP server over `trove`; each engine call runs in a worker thread holding `gate` (one at a time)."""
    server = MCPServer("trove", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    async def held(fn: Callable[[Trove], T], refuse: type[Exception] = ToolError) -> T:
        """`fn(trove)` in a thread, holding the gate; Trove's refusals become `refuse` with their message."""
        def run() -> T:
            with gate:
                return fn(trove)

        try:
            return await anyio.to_thread.run_sync(run)
        except REPORTED + (ValueError,) as exc:
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
    async def ask(question: str, conversation: int | None = None) -> Annotated[CallToolResult, dict[str, Any]]:
        """A cited answer from the indexed files: `answer` (with [n] markers), `citations` (each
        with its file, locator and text; a query answer also with its SQL, Cypher or SPARQL), and
        the `conversation` it was kept in; pass that id back to ask a follow-up ("and in April?")."""
        if not question.strip():
            raise ToolError("the question is empty")

        def asked(t: Trove) -> tuple[AskResult, int | None]:
            kept = t.conversation(conversation, question)
            return t.ask(question, conversation=kept), kept.id

        result, kept_id = await held(asked)
        return CallToolResult(content=[TextContent(type="text", text=readable(result, kept_id))],
                              structured_content=shapes.answer(result, kept_id))

    @server.tool()
    async def status() -> dict[str, Any]:
        """What is indexed (folders, files by kind and state, tables, graphs, RDF), what was
        skipped or failed and why, and which models are installed."""
        return await held(lambda t: t.status())

    @server.resource(FILE_URI, name="indexed file", mime_type="text/plain", security=SECURITY,
                     description="The text of a file Trove indexed, as it was indexed (a cited file); "
                                 "PATH is its absolute path, percent-encoded")
    async def indexed_file(path: str) -> str:
        found = await held(lambda t: t.file(path if path.startswith("/") else "/" + path), ResourceError)
        if found.text is not None:
            return found.text
        if found.kind in MEDIA:
            return (f"{found.path} is a {found.kind} ({found.size} bytes), not text: its content is in Trove's "
                    f"search results of granularity {MEDIA[found.kind]}, and `ask` cites it")
        raise ResourceError(f"{found.path}: a {found.kind} file has no text to read here (ask or search it)")

    return server
