"""The OpenAPI description of `trove serve`, served at /openapi.json and kept in the repository as
docs/openapi.json (`python -m engine.service.openapi > docs/openapi.json`; a test compares them).
Its schemas are the JSON shapes of `engine.shapes`; the tests check the server's replies against them."""

from __future__ import annotations

import json

from engine.routing.labels import GRANULARITIES

VERSION = "1"
_STR, _INT, _NUM, _BOOL = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}
_OBJ = {"type": "object"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _array(items: dict) -> dict:
    return {"type": "array", "items": items}


def _object(required: dict, optional: dict | None = None) -> dict:
    return {"type": "object", "required": list(required), "properties": {**required, **(optional or {})}}


SCHEMAS: dict[str, dict] = {
    "Error": _object({"error": _STR}),
    "Scope": {"type": "object", "additionalProperties": False, "properties": {
        "paths": _array(_STR), "sources": _array(_STR), "kinds": _array(_STR), "since": _STR, "until": _STR}},
    "Citation": _object({"n": _INT, "kind": _STR, "source": _STR, "locator": _OBJ, "text": _STR, "title": _STR,
                         "score": _NUM}),
    "QueryRun": _object({"language": _STR, "source": _STR, "query": _STR, "ok": _BOOL,
                         "error": {"type": ["string", "null"]}, "rows": _INT}),
    "Route": _object({"label": _STR, "confidence": _NUM}, {"router": _STR}),
    "Answer": _object({
        "question": _STR, "asked_as": _STR, "answer": _STR, "citations": _array(_ref("Citation")),
        "routes": _array(_ref("Route")), "queries": _array(_ref("QueryRun")),
        "timings_ms": {"type": "object", "additionalProperties": _NUM}, "answered": _BOOL, "general": _BOOL,
        "unsupported": _array(_STR), "dropped": _array(_OBJ), "model": _STR, "notices": _array(_STR),
        "scope": _ref("Scope"), "conversation": {"type": ["integer", "null"]}}),
    "Hit": _object({"rank": _INT, "score": _NUM, "signals": {"type": "object", "additionalProperties": _NUM},
                    "source": _STR, "title": _STR, "heading": _STR, "locator": _OBJ, "text": _STR}),
    "Routes": _object({"question": _STR, "routes": _array(_ref("Route")), "ms": _NUM}),
    "QueryResult": _object({"columns": _array(_STR), "rows": _array({"type": "array"}), "truncated": _BOOL}),
    "IndexedFile": _object({"path": _STR, "kind": _STR, "size": _INT, "text": {"type": ["string", "null"]}}),
    "Job": _object({"id": _INT, "paths": _array(_STR), "state": {"enum": [
        "waiting", "running", "done", "failed", "cancelled"]}, "progress": _OBJ,
        "report": {"type": ["object", "null"]}, "error": {"type": ["string", "null"]}, "started": _NUM,
        "ended": {"type": ["number", "null"]}}),
    "ConversationSummary": _object({"id": _INT, "title": _STR, "turns": _INT, "created": _NUM, "updated": _NUM}),
    "Conversation": _object({"id": _INT, "title": _STR, "created": _NUM, "updated": _NUM,
                             "turns": _array(_OBJ)}),
    "Status": _object({"home": _STR, "index": _STR, "roots": _array(_STR), "files": _OBJ, "by_kind": _OBJ,
                       "corpora": _OBJ, "ocr_pages": _OBJ, "problems": _array(_OBJ), "models": _OBJ}),
    "ChatCompletion": _object({"id": _STR, "object": {"const": "chat.completion"}, "created": _INT, "model": _STR,
                               "choices": _array(_OBJ), "usage": _OBJ, "citations": _array(_ref("Citation")),
                               "trove": _ref("Answer")}),
    "Models": _object({"object": _STR, "data": _array(_OBJ)}),
    "AskRequest": _object({"question": _STR}, {
        "stream": {**_BOOL, "description": "server-sent events: queued, routes, token… then answer (or error)"},
        "conversation": {**_INT, "description": "continue this conversation"},
        "follow_up": {**_BOOL, "description": "continue the latest conversation"}, "scope": _ref("Scope")}),
    "SearchRequest": _object({"query": _STR}, {"k": _INT, "granularity": {"enum": list(GRANULARITIES)},
                                               "scope": _ref("Scope")}),
    "RouteRequest": _object({"question": _STR}),
    "QueryRequest": _object({"source": _STR, "query": _STR}),
    "SqlRequest": _object({"query": _STR}, {"source": _STR}),
    "IndexRequest": _object({"paths": _array(_STR)}),
    "ChatRequest": _object({"messages": _array(_object({"role": _STR, "content": {}}))},
                           {"model": _STR, "stream": _BOOL}),
}
_ERRORS = {code: {"description": why, "content": {"application/json": {"schema": _ref("Error")}}} for code, why in {
    "400": "the request cannot be served as sent", "401": "the token is missing or wrong",
    "404": "no such conversation, job or indexed file", "413": "the body is over the size limit",
    "503": "the engine stayed busy past the wait limit (Retry-After)", "504": "the answer took too long"}.items()}


def _operation(summary: str, reply: dict, request: str | None = None, status: str = "200",
               parameters: list | None = None, streams: bool = False) -> dict:
    content = {"application/json": {"schema": reply}}
    if streams:
        content["text/event-stream"] = {"schema": _STR}
    out: dict = {"summary": summary, "responses": {status: {"description": "OK", "content": content}, **_ERRORS}}
    if request is not None:
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": _ref(request)}}}
    if parameters:
        out["parameters"] = parameters
    return out


def _in_path(name: str) -> list:
    return [{"name": name, "in": "path", "required": True, "schema": _INT}]


PATHS: dict[str, dict] = {
    "/status": {"get": _operation("What is indexed, skipped or failed, and the models", _ref("Status"))},
    "/search": {"post": _operation("Ranked items, no LLM (trove search --json)", _array(_ref("Hit")),
                                   "SearchRequest")},
    "/route": {"post": _operation("The corpora a question would go to (trove route --json)", _ref("Routes"),
                                  "RouteRequest")},
    "/ask": {"post": _operation("A cited answer (trove ask --json); streamed as events with stream: true",
                                _ref("Answer"), "AskRequest", streams=True)},
    "/query": {"post": _operation("One read-only query in a source's own language", _ref("QueryResult"),
                                  "QueryRequest")},
    "/sql": {"post": _operation("One read-only SELECT over the tables (or a database file's source)",
                                _ref("QueryResult"), "SqlRequest")},
    "/files": {"get": _operation("An indexed file's text, or its bytes with raw=1; nothing else is served",
                                 _ref("IndexedFile"), parameters=[
                                     {"name": "path", "in": "query", "required": True, "schema": _STR},
                                     {"name": "raw", "in": "query", "required": False, "schema": _STR}])},
    "/index": {"post": _operation("Start an index job", _ref("Job"), "IndexRequest", status="202")},
    "/jobs": {"get": _operation("Every index job of this server", _array(_ref("Job")))},
    "/jobs/{job_id}": {"get": _operation("An index job's progress", _ref("Job"), parameters=_in_path("job_id")),
                       "delete": _operation("Cancel an index job", _ref("Job"), parameters=_in_path("job_id"))},
    "/conversations": {"get": _operation("The kept conversations, latest first", _array(
        _ref("ConversationSummary")))},
    "/conversations/{cid}": {
        "get": _operation("A conversation's turns", _ref("Conversation"), parameters=_in_path("cid")),
        "delete": _operation("Delete a conversation", _object({"deleted": _INT}), parameters=_in_path("cid"))},
    "/v1/models": {"get": _operation("OpenAI-compatible: the one model, trove", _ref("Models"))},
    "/v1/chat/completions": {"post": _operation(
        "OpenAI-compatible chat: the last user message answered by Trove, with citations", _ref("ChatCompletion"),
        "ChatRequest", streams=True)},
    "/openapi.json": {"get": _operation("This description", _OBJ)},
}


def spec() -> dict:
    return {"openapi": "3.1.0",
            "info": {"title": "Trove", "version": VERSION,
                     "description": "Cited answers over the files on this machine (trove serve). Loopback "
                                    "only unless a token is set: then every request sends "
                                    "'Authorization: Bearer TOKEN'."},
            "paths": PATHS, "components": {"schemas": SCHEMAS}}


if __name__ == "__main__":
    print(json.dumps(spec(), indent=2, ensure_ascii=False))
