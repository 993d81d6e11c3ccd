"""A conversation as Markdown: each turn's question (and the standalone question it was answered
as), its answer, and its citations with their places (file, page, rows and query, box, seconds)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from engine.conversations.turns import Conversation, Turn
from engine.errors import TroveError
from engine.result import LANGUAGES, Citation, citation_place

SNIPPET_CHARS = 240


def markdown(conversation: Conversation, changed: Callable[[Turn], dict[str, str]] | None = None) -> str:
    """The whole conversation; `changed` tells, per turn, the cited files removed or changed since."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.created)) if conversation.created else ""
    lines = [f"# {conversation.title or 'Conversation'}", ""]
    if when:
        number = f" {conversation.id}" if conversation.id is not None else ""
        lines += [f"*Trove conversation{number}, started {when}*", ""]
    for n, turn in enumerate(conversation.turns, start=1):
        lines += turn_markdown(n, turn, changed(turn) if changed else {})
    return "\n".join(lines).rstrip() + "\n"


def turn_markdown(n: int, turn: Turn, changed: dict[str, str]) -> list[str]:
    result = turn.result
    lines = [f"## {n}. {result.question}", ""]
    if result.asked_as and result.asked_as != result.question:
        lines += [f"*Asked as: {result.asked_as}*", ""]
    lines += [result.answer, ""]
    if result.general:
        lines += ["*From the model's general knowledge, not from your files.*", ""]
    if result.citations:
        lines += ["Sources:", ""] + [line for c in result.citations for line in citation_markdown(c)] + [""]
    if changed:
        lines += [f"*Since this answer: {Path(path).name} {state}.*" for path, state in sorted(changed.items())] + [""]
    return lines


def citation_markdown(citation: Citation) -> list[str]:
    """One citation: its number and place, then the query (for a table, graph or RDF answer) or the
    cited text."""
    locator = citation.locator
    head = f"- [{citation.n}] `{citation.source}` — {citation_place(citation.source, locator)}"
    if "query" in locator:
        language = LANGUAGES.get(locator.get("language", ""), "query")
        return [head, f"  {language}:", "", "  ```", *[f"  {line}" for line in locator["query"].splitlines()],
                "  ```", ""]
    snippet = " ".join(citation.text.split())
    snippet = snippet if len(snippet) <= SNIPPET_CHARS else snippet[:SNIPPET_CHARS - 1] + "…"
    return [head, f"  > {snippet}"] if snippet else [head]


def write_markdown(conversation: Conversation, path: Path,
                   changed: Callable[[Turn], dict[str, str]] | None = None) -> Path:
    """Write the Markdown to `path` (a folder: `conversation-ID.md` in it); a TroveError naming the
    path and the reason when it cannot be written."""
    path = path.expanduser()
    if path.is_dir():
        path = path / f"conversation-{conversation.id or 'new'}.md"
    try:
        path.write_text(markdown(conversation, changed), encoding="utf-8")
    except OSError as exc:
        raise TroveError(f"{path}: cannot write the conversation: {exc.strerror or exc}") from exc
    return path
