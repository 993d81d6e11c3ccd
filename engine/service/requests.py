"""Reading a request's JSON body: size-limited, and each field checked with a message that names it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from engine.scope import Scope

if TYPE_CHECKING:
    from starlette.requests import Request


class BadRequest(ValueError):
    """The request cannot be served as sent (HTTP 400, or `status` when given)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def read_json(request: Request, limit_bytes: int) -> Body:
    """The body as a JSON object, refused past `limit_bytes` (413) or when it is not one (400)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit_bytes:
        raise BadRequest(f"the request body is over the limit of {limit_bytes} bytes", 413)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit_bytes:
            raise BadRequest(f"the request body is over the limit of {limit_bytes} bytes", 413)
    try:
        value = json.loads(data or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the request body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadRequest("the request body must be a JSON object")
    return Body(value)


class Body:
    """A JSON object's fields, each read with its type checked."""

    def __init__(self, fields: dict) -> None:
        self.fields = fields

    def text(self, name: str, default: str | None = None) -> str:
        """A string field; required when there is no `default`; a blank one is refused."""
        value = self.fields.get(name, default)
        if value is None:
            raise BadRequest(f"'{name}' is missing")
        if not isinstance(value, str):
            raise BadRequest(f"'{name}' must be a string")
        if not value.strip():
            raise BadRequest(f"the {name} is empty")
        return value

    def integer(self, name: str, default: int | None, lowest: int = 1) -> int | None:
        value = self.fields.get(name, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise BadRequest(f"'{name}' must be a whole number of at least {lowest}")
        return value

    def flag(self, name: str) -> bool:
        value = self.fields.get(name, False)
        if not isinstance(value, bool):
            raise BadRequest(f"'{name}' must be true or false")
        return value

    def texts(self, name: str) -> list[str]:
        value = self.fields.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise BadRequest(f"'{name}' must be a list of strings")
        return value

    def scope(self) -> Scope | None:
        """The `scope` object ({paths, sources, kinds, since, until}; as `ask --json` reports it)."""
        value = self.fields.get("scope")
        if value is None:
            return None
        if not isinstance(value, dict) or set(value) - {"paths", "sources", "kinds", "since", "until"}:
            raise BadRequest("'scope' must be an object with paths, sources, kinds, since and until")
        part = Body(value)
        for name in ("since", "until"):
            if value.get(name) is not None:
                part.text(name)
        scope = Scope(tuple(part.texts("paths")), tuple(part.texts("sources")), tuple(part.texts("kinds")),
                      value.get("since"), value.get("until"))
        return None if scope.empty else scope
