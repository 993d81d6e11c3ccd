"""The JSON objects of the public API, one function each: `trove … --json`, `trove serve` and
`trove mcp` all print or send these, so a program sees the same shape whichever way it asks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.conversations.store import Summary
    from engine.conversations.turns import Conversation
    from engine.pipeline import Trove
    from engine.result import AskResult
    from engine.retrieval.hybrid import Hit
    from engine.routing.base import Route
    from local_stores.results import QueryResult


def answer(result: AskResult, conversation_id: int | None) -> dict:
    """`ask`: the answer object and the conversation it went into (None: not kept)."""
    return {**result.to_dict(), "conversation": conversation_id}


def hits(found: Sequence[Hit]) -> list[dict]:
    """`search`: ranked items with their scores, signals, file, locator and text."""
    return [{"rank": i, "score": round(h.score, 5), "signals": {k: round(v, 4) for k, v in h.signals.items()},
             "source": h.item.source, "title": h.item.title, "heading": h.item.heading,
             "locator": h.item.locator, "text": h.item.text} for i, h in enumerate(found, start=1)]


def routes(question: str, chosen: Sequence[Route], ms: float) -> dict:
    """`route`: the corpora a question would go to, with confidences, and how long deciding took."""
    return {"question": question, "routes": [r.as_dict() for r in chosen], "ms": round(ms, 1)}


def query_result(result: QueryResult) -> dict:
    """`sql` and `query`: the columns, the rows and whether they were cut at the row limit."""
    return {"columns": result.columns, "rows": result.rows, "truncated": result.truncated}


def summaries(found: Sequence[Summary]) -> list[dict]:
    """`conversations list`: every kept conversation, the latest first."""
    return [{"id": c.id, "title": c.title, "turns": c.turns, "created": c.created, "updated": c.updated}
            for c in found]


def conversation(trove: Trove, kept: Conversation) -> dict:
    """`conversations show`: every turn's answer object, and the cited files changed since."""
    return {"id": kept.id, "title": kept.title, "created": kept.created, "updated": kept.updated,
            "turns": [{**turn.result.to_dict(), "at": turn.at, "changed_since": trove.changed_since(turn)}
                      for turn in kept.turns]}
