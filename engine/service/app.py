"""The HTTP API of `trove serve`: the engine's public API as JSON, in the shapes `trove … --json`
prints (`engine.shapes`), described by `engine.service.openapi` (served at /openapi.json).

Every error is a JSON object {"error": message} with a 4xx or 5xx status, never a traceback."""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from engine import shapes
from engine.errors import TroveError
from engine.gate import Busy
from engine.routing.labels import GRANULARITIES, LABELS
from engine.service import openai_chat, openapi
from engine.service.calls import Asking, Engine, Stopped, answer, answer_events
from engine.service.jobs import Jobs
from engine.service.requests import BadRequest, Body, read_json
from local_stores.index_database import IndexUnreachable
from local_stores.results import QueryError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from engine.conversations.turns import Conversation
    from engine.pipeline import Trove

log = logging.getLogger("trove.serve")
Handler = Callable[[Request], Awaitable[Response]]


class Service:
    """The routes over one `Engine`, its index jobs and its settings for logs."""

    def __init__(self, engine: Engine, log_text: bool = False) -> None:
        self.engine, self.jobs, self.log_text = engine, Jobs(engine), log_text

    # -- reading the index ---------------------------------------------------------------------
    async def status(self, request: Request) -> Response:
        return JSONResponse(await self.engine.call(lambda trove: trove.status()))

    async def search(self, request: Request) -> Response:
        body = await self._body(request)
        query, k = body.text("query"), body.integer("k", 10)
        granularity = body.fields.get("granularity", "paragraph")
        if granularity not in GRANULARITIES:
            raise BadRequest(f"'granularity' must be one of {', '.join(GRANULARITIES)}")
        scope = body.scope()
        corpus = LABELS[granularity]
        assert corpus is not None  # every granularity names a corpus
        found = await self.engine.call(lambda trove: trove.search(query, k, corpus, scope=scope))
        return JSONResponse(shapes.hits(found))

    async def route(self, request: Request) -> Response:
        question = (await self._body(request)).text("question")

        def routed(trove: Trove) -> dict:
            t0 = time.perf_counter()
            chosen = trove.route(question)
            return shapes.routes(question, chosen, (time.perf_counter() - t0) * 1000)

        return JSONResponse(await self.engine.call(routed))

    async def query(self, request: Request) -> Response:
        body = await self._body(request)
        source, query = body.text("source"), body.text("query")
        return JSONResponse(shapes.query_result(await self.engine.call(lambda trove: trove.query(source, query))))

    async def sql(self, request: Request) -> Response:
        body = await self._body(request)
        query, source = body.text("query"), body.fields.get("source")
        if source is not None:
            source = body.text("source")
        return JSONResponse(shapes.query_result(await self.engine.call(lambda trove: trove.sql(query, source))))

    async def file(self, request: Request) -> Response:
        """An indexed file's text (`raw`: its bytes, e.g. a cited photo); nothing outside the index."""
        path = request.query_params.get("path", "")
        if not path:
            raise BadRequest("give the file as ?path=… (a citation's source)")
        found = await self.engine.call(lambda trove: trove.file(path))
        if request.query_params.get("raw") in ("1", "true"):
            return FileResponse(found.path)
        return JSONResponse({"path": found.path, "kind": found.kind, "size": found.size, "text": found.text})

    # -- asking --------------------------------------------------------------------------------
    async def ask(self, request: Request) -> Response:
        body = await self._body(request)
        question, stream = body.text("question"), body.flag("stream")
        asking = Asking(question, scope=body.scope())
        asking.pick = lambda trove: self._conversation(trove, body, asking)
        self._log_text("ask", question)
        if stream:
            return StreamingResponse(_sse(answer_events(self.engine, asking), asking), media_type="text/event-stream")
        result = await answer(self.engine, asking)
        return JSONResponse(shapes.answer(result, asking.conversation.id if asking.conversation else None))

    @staticmethod
    def _conversation(trove: Trove, body: Body, asking: Asking) -> Conversation:
        """The conversation a question goes into, as `trove ask` picks it (an unknown one is a 404)."""
        return trove.conversation(body.integer("conversation", None), asking.question, asking.scope,
                                  follow_up=body.flag("follow_up"))

    async def chat_completions(self, request: Request) -> Response:
        body = await self._body(request)
        question, conversation = openai_chat.asked(body)
        self._log_text("chat", question)
        result = await answer(self.engine, Asking(question, conversation))
        if body.flag("stream"):
            return StreamingResponse(openai_chat.chunks(result), media_type="text/event-stream")
        return JSONResponse(openai_chat.completion(result))

    async def models(self, request: Request) -> Response:
        return JSONResponse(openai_chat.models())

    # -- conversations -------------------------------------------------------------------------
    async def conversations(self, request: Request) -> Response:
        return JSONResponse(shapes.summaries(await self.engine.call(lambda trove: trove.conversations.summaries())))

    async def conversation(self, request: Request) -> Response:
        cid = request.path_params["cid"]

        def shown(trove: Trove) -> dict:
            kept = trove.conversation(cid)
            if request.method == "DELETE":
                trove.conversations.delete(cid)
                return {"deleted": cid}
            return shapes.conversation(trove, kept)

        return JSONResponse(await self.engine.call(shown))

    # -- indexing ------------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        paths = (await self._body(request)).texts("paths")
        missing = [p for p in paths if not Path(p).expanduser().exists()]
        if missing:
            raise BadRequest(f"{missing[0]}: no such file or folder")
        job = self.jobs.start([str(Path(p).expanduser().resolve()) for p in paths])
        return JSONResponse(job.as_dict(), status_code=202)

    async def jobs_list(self, request: Request) -> Response:
        return JSONResponse([job.as_dict() for job in self.jobs.all()])

    async def job(self, request: Request) -> Response:
        job = self.jobs.get(request.path_params["job_id"])
        if request.method == "DELETE" and job.state in ("waiting", "running"):
            job.cancel.set()
        return JSONResponse(job.as_dict())

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(openapi.spec())

    # -- shared --------------------------------------------------------------------------------
    async def _body(self, request: Request) -> Body:
        return await read_json(request, self.engine.limits.body_bytes)

    def _log_text(self, what: str, question: str) -> None:
        if self.log_text:
            log.info("%s: %s", what, question)


async def _sse(events: AsyncIterator[tuple[str, object]], asking: Asking) -> AsyncIterator[str]:
    """The events of an answer as server-sent events; the last is `answer` (the `ask` object) or `error`."""
    async for kind, value in events:
        if kind == "answer":
            kept = asking.conversation.id if asking.conversation else None
            data: object = shapes.answer(value, kept)  # type: ignore[arg-type]
        elif kind == "error":
            data = {"error": str(value), "status": _status(value)}  # type: ignore[arg-type]
        elif kind == "queued":
            data = {"ahead": value}
        else:
            data = value if kind == "routes" else {"text": value}
        yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _status(exc: Exception) -> int:
    """The HTTP status of an error the engine raised."""
    if isinstance(exc, BadRequest):
        return exc.status
    if isinstance(exc, LookupError):
        return 404
    if isinstance(exc, Busy | IndexUnreachable):
        return 503
    if isinstance(exc, Stopped):
        return 504
    if isinstance(exc, TroveError | ValueError | QueryError):
        return 400
    return 500


async def _error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    status = _status(exc)
    if status == 500:
        log.exception("%s %s failed", request.method, request.url.path)
        return JSONResponse({"error": f"internal error ({type(exc).__name__}); the server log has the details"},
                            status_code=500)
    headers = {"Retry-After": "10"} if status == 503 else None
    return JSONResponse({"error": str(exc) or type(exc).__name__}, status_code=status, headers=headers)


class TokenCheck:
    """Every request carries the token (`Authorization: Bearer TOKEN`), when the service has one."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.token is not None:
            given = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
            if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
                response = JSONResponse({"error": "a token is needed: send 'Authorization: Bearer TOKEN' "
                                         "(TROVE_API_TOKEN, or the token file trove serve named)"}, status_code=401,
                                        headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build(service: Service, token: str | None = None, cors_origins: tuple[str, ...] = ()) -> Starlette:
    """The ASGI app: the routes of `service`, behind the token check (and CORS only when origins are given)."""
    s = service
    routes = [
        Route("/status", s.status, methods=["GET"]),
        Route("/search", s.search, methods=["POST"]),
        Route("/route", s.route, methods=["POST"]),
        Route("/ask", s.ask, methods=["POST"]),
        Route("/query", s.query, methods=["POST"]),
        Route("/sql", s.sql, methods=["POST"]),
        Route("/files", s.file, methods=["GET"]),
        Route("/index", s.index, methods=["POST"]),
        Route("/jobs", s.jobs_list, methods=["GET"]),
        Route("/jobs/{job_id:int}", s.job, methods=["GET", "DELETE"]),
        Route("/conversations", s.conversations, methods=["GET"]),
        Route("/conversations/{cid:int}", s.conversation, methods=["GET", "DELETE"]),
        Route("/v1/models", s.models, methods=["GET"]),
        Route("/v1/chat/completions", s.chat_completions, methods=["POST"]),
        Route("/openapi.json", s.openapi, methods=["GET"]),
    ]
    middleware = [Middleware(TokenCheck, token=token)]
    if cors_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(cors_origins),
                                     allow_methods=["GET", "POST", "DELETE"], allow_headers=["Authorization",
                                                                                             "Content-Type"]))
    # Exception itself is the 500s' (Starlette logs those); the rest are answers, not server faults
    handlers: dict = {kind: _error for kind in (Exception, HTTPException, TroveError, ValueError, LookupError,
                                                QueryError)}
    return Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
