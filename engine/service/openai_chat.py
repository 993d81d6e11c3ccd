"""An OpenAI-compatible chat endpoint whose "model" is Trove: the last user message is the question,
the messages before it the conversation it follows, and the reply is Trove's checked, cited answer
(the citations in its text, and as data in `citations` and `trove`).

Streaming sends the answer only once it is checked: a draft the check would change is never shown."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator

from engine.conversations.turns import Conversation, Turn
from engine.result import AskResult, citation_place
from engine.service.requests import BadRequest, Body

MODEL = "trove"
PIECE_WORDS = 8  # words per streamed chunk of a checked answer


def asked(body: Body) -> tuple[str, Conversation]:
    """The question (the last user message) and the earlier turns it follows (in memory only)."""
    messages = body.fields.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list of {role, content}")
    said = [(m.get("role"), _content(m)) for m in messages if isinstance(m, dict)]
    if len(said) != len(messages) or said[-1][0] != "user":
        raise BadRequest("'messages' must be objects with role and content, the last one from the user")
    question = said[-1][1]
    if not question.strip():
        raise BadRequest("the question is empty")
    turns, pending = [], None
    for role, content in said[:-1]:
        if role == "user":
            pending = content
        elif role == "assistant" and pending is not None:
            turns.append(Turn(AskResult(question=pending, answer=content)))
            pending = None
    return question, Conversation(turns=turns)


def _content(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):  # parts: [{"type": "text", "text": ...}, ...]
        content = " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    if not isinstance(content, str):
        raise BadRequest("each message's 'content' must be a string or a list of text parts")
    return content


def reply_text(result: AskResult) -> str:
    """The answer, then one line per citation: where it points, and the query for a computed answer."""
    lines = [result.answer]
    if result.citations:
        lines.append("")
    for c in result.citations:
        where = citation_place(c.source, c.locator)
        query = f" ({c.locator.get('language', '').upper()}: {' '.join(c.locator['query'].split())})" \
            if "query" in c.locator else ""
        lines.append(f"[{c.n}] {where}{query}")
    return "\n".join(lines)


def completion(result: AskResult, conversation_id: int | None = None) -> dict:
    """The `chat.completion` object of a checked answer."""
    trove = {**result.to_dict(), "conversation": conversation_id}
    return {"id": _id(), "object": "chat.completion", "created": int(time.time()), "model": MODEL,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply_text(result)},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            "citations": trove["citations"], "trove": trove}


async def chunks(result: AskResult) -> AsyncIterator[str]:
    """A checked answer as `chat.completion.chunk` server-sent events, then `[DONE]`."""
    ident, created = _id(), int(time.time())

    def event(delta: dict, finish: str | None = None, **extra: object) -> str:
        chunk = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": MODEL,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"

    yield event({"role": "assistant", "content": ""})
    words = reply_text(result).split(" ")
    for i in range(0, len(words), PIECE_WORDS):
        yield event({"content": " ".join(words[i:i + PIECE_WORDS]) + (" " if i + PIECE_WORDS < len(words) else "")})
    trove = result.to_dict()
    yield event({}, "stop", citations=trove["citations"], trove=trove)
    yield "data: [DONE]\n\n"


def models() -> dict:
    """`GET /v1/models`: the one model this endpoint offers."""
    return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "trove"}]}


def _id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"
