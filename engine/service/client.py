"""The CLI's side of `trove serve`: when a server of the same home is running, `trove ask`, `search`
and `route` ask it (its models are warm) instead of loading the models again. Standard library only,
so a CLI call that finds no server pays nothing for this."""

from __future__ import annotations

import http.client
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

from engine.errors import TroveError
from engine.service.server import TOKEN_ENV, TOKEN_FILE, listening

NO_SERVER_ENV = "TROVE_NO_SERVER"  # set (to anything) to make the CLI work alone


class Unreachable(Exception):
    """The server named in the home's file did not answer: the CLI works alone."""


class Client:
    """Requests to one server; a 4xx/5xx reply is a TroveError with the server's message."""

    def __init__(self, url: str, token: str | None, timeout_s: float = 900.0) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.timeout_s = parts.hostname or "127.0.0.1", parts.port or 80, timeout_s
        self.headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}

    def get(self, path: str) -> object:
        with self._reply("GET", path, None) as reply:
            return json.loads(reply.read())

    def post(self, path: str, body: dict) -> object:
        with self._reply("POST", path, body) as reply:
            return json.loads(reply.read())

    def events(self, path: str, body: dict) -> Iterator[tuple[str, object]]:
        """The server-sent events of a streamed reply, as (event, data)."""
        with self._reply("POST", path, body) as reply:
            kind, data = "message", ""
            for raw in reply:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    data += line[6:]
                elif not line and data:
                    yield kind, json.loads(data)
                    kind, data = "message", ""

    def _reply(self, method: str, path: str, body: dict | None) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)
        try:
            connection.request(method, path, None if body is None else json.dumps(body), self.headers)
            reply = connection.getresponse()
        except OSError as exc:
            connection.close()
            raise Unreachable(str(exc)) from exc
        if reply.status >= 400:
            try:
                message = json.loads(reply.read()).get("error", "")
            except (ValueError, AttributeError):
                message = ""
            connection.close()
            raise TroveError(f"the server said {reply.status}: {message or reply.reason}")
        return reply


def connect(home: Path) -> Client | None:
    """A client of the server running for `home`, or None: none runs, the CLI was told to work
    alone, or the server needs a token this user cannot read."""
    if os.environ.get(NO_SERVER_ENV):
        return None
    found = listening(home)
    if found is None:
        return None
    token = os.environ.get(TOKEN_ENV, "").strip() or None
    if found.token and token is None:
        try:
            token = (home / TOKEN_FILE).read_text(encoding="ascii").strip()
        except OSError:
            return None
    return Client(found.url, token)


def ask(client: Client, body: dict, on_routes: Callable[[list[dict]], None] | None = None,
        on_token: Callable[[str], None] | None = None) -> dict:
    """The `ask` object for `body`, hearing the routes and the answer's words as the server sends them."""
    for kind, data in client.events("/ask", {**body, "stream": True}):
        if kind == "routes" and on_routes is not None:
            on_routes(data)  # type: ignore[arg-type]
        elif kind == "token" and on_token is not None:
            on_token(data["text"])  # type: ignore[index]
        elif kind == "answer":
            return data  # type: ignore[return-value]
        elif kind == "error":
            raise TroveError(data["error"])  # type: ignore[index]
    raise Unreachable("the server closed the answer before it was written")
