"""The service's control flow, on a server run in this process so that the test can hold the engine:
the queue (places, a 503 past the wait limit), an answer stopped past its time limit (504) or when
its client goes away mid-stream, and an index job cancelled. The LLM is scripted and slow (it says
one word every 50 ms), so that "mid-answer" is a real moment; the embedder and the index are real."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.gate import Gate
from engine.service.app import Service, build
from engine.service.calls import Engine, Limits
from engine.service.server import bind
from tests.engine.service.conftest import Served, write_folder
from tests.scripted import ScriptedLLM

REPLY = "The boiler was serviced on 12 March 2024 by Nordic Heat [1]. " * 4


class SlowLLM(ScriptedLLM):
    """Replies REPLY to every chat, streaming a word every `pause_s` to `on_token`."""

    def __init__(self, pause_s: float = 0.05) -> None:
        super().__init__()
        self.pause_s, self.words_said = pause_s, 0

    def chat(self, messages: list[dict], on_token: Callable[[str], None] | None = None, **options: object) -> str:
        self.sent.append(messages)
        for word in REPLY.split(" "):
            time.sleep(self.pause_s)
            if on_token is not None:
                on_token(word + " ")
            self.words_said += 1
        return REPLY


class InProcess(Served):
    engine: Engine


@pytest.fixture
def in_process(trove, tmp_path: Path) -> Iterator[InProcess]:  # noqa: ANN001
    import uvicorn

    folder = write_folder(tmp_path / "files")
    trove.index([folder])
    trove.models.llm = SlowLLM()
    engine = Engine(trove, Gate(), Limits(wait_s=1.0, answer_s=60.0))
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(build(Service(engine)), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    running = InProcess("127.0.0.1", sock.getsockname()[1], trove.settings.home, folder, tmp_path / "log",
                        None)  # type: ignore[arg-type]
    running.engine = engine
    yield running
    server.should_exit = True
    thread.join(10)


def _in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, list]:
    out: list = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    return thread, out


def test_a_request_waits_its_turn_and_is_told_busy_past_the_wait_limit(in_process: InProcess):
    gate = in_process.engine.gate
    gate.acquire()
    try:
        busy = in_process.request("GET", "/status")
    finally:
        gate.release()
    assert busy.status == 503 and busy.headers["retry-after"] == "10"
    assert "the engine is busy: 1 call(s) ahead" in busy.json()["error"]
    assert in_process.request("GET", "/status").status == 200


def test_a_streamed_answer_hears_its_place_in_the_queue(in_process: InProcess):
    gate = in_process.engine.gate
    gate.acquire()
    connection = http.client.HTTPConnection(in_process.host, in_process.port, timeout=60)
    connection.request("POST", "/ask", json.dumps({"question": "When was the boiler serviced?", "stream": True}))
    reply = connection.getresponse()
    assert reply.readline() == b"event: queued\n" and json.loads(reply.readline()[6:]) == {"ahead": 1}
    gate.release()
    events = [line.decode().strip().removeprefix("event: ") for line in reply if line.startswith(b"event: ")]
    connection.close()
    assert events[0] == "routes" and events[-1] == "answer" and events.count("token") > 10


def test_a_client_that_goes_away_mid_stream_stops_the_answer(in_process: InProcess):
    llm: SlowLLM = in_process.engine.trove.models.llm  # type: ignore[assignment]
    connection = http.client.HTTPConnection(in_process.host, in_process.port, timeout=60)
    connection.request("POST", "/ask", json.dumps({"question": "When was the boiler serviced?", "stream": True}))
    reply = connection.getresponse()
    while reply.readline() != b"event: token\n":
        pass
    connection.close()  # gone, after the first word
    in_process.engine.gate.acquire(timeout_s=10)  # the engine is freed long before the answer's 2 s
    said = llm.words_said
    in_process.engine.gate.release()
    assert said < len(REPLY.split(" ")) / 2
    assert in_process.engine.trove.conversations.summaries()[0].turns == 0  # no answer was kept
    assert in_process.request("POST", "/ask", {"question": "Who serviced the boiler?"}).status == 200


def test_an_answer_past_its_time_limit_is_stopped(in_process: InProcess):
    in_process.engine.limits = Limits(wait_s=1.0, answer_s=0.5)
    reply = in_process.request("POST", "/ask", {"question": "When was the boiler serviced?"})
    assert reply.status == 504 and "took longer than 0.5 s and was stopped" in reply.json()["error"]
    in_process.engine.gate.acquire(timeout_s=10)  # the answer let go of the engine
    in_process.engine.gate.release()


def test_an_index_job_cancelled_before_its_first_file_indexes_nothing(in_process: InProcess, tmp_path: Path):
    more = tmp_path / "more"
    more.mkdir()
    for i in range(3):
        (more / f"note{i}.txt").write_text(f"Note {i} about the lighthouse keeper's log.\n", encoding="utf-8")
    gate = in_process.engine.gate
    gate.acquire()  # the job waits for the engine
    try:
        job = in_process.request("POST", "/index", {"paths": [str(more)]}).json()
        assert job["state"] == "waiting"
        assert in_process.request("POST", "/index", {"paths": [str(more)]}).status == 400  # one at a time
        cancelled = in_process.request("DELETE", f"/jobs/{job['id']}")
    finally:
        gate.release()
    assert cancelled.status == 200
    deadline = time.monotonic() + 30
    while job["state"] in ("waiting", "running") and time.monotonic() < deadline:
        time.sleep(0.05)
        job = in_process.request("GET", f"/jobs/{job['id']}").json()
    assert job["state"] == "cancelled" and job["report"] is None
    assert not any(f.path.startswith(str(more)) and f.state == "indexed"
                   for f in in_process.engine.trove.catalog.files())


def test_a_shared_index_out_of_reach_is_a_503_naming_its_server(in_process: InProcess,
                                                                monkeypatch: pytest.MonkeyPatch):
    from local_stores.index_database import IndexUnreachable

    def unreachable(*args: object, **kwargs: object) -> None:
        raise IndexUnreachable("postgresql://trove@/index: cannot reach the index's server: connection refused")

    monkeypatch.setattr(in_process.engine.trove, "search", unreachable)
    reply = in_process.request("POST", "/search", {"query": "boiler"})
    assert reply.status == 503 and reply.headers["retry-after"] == "10"
    assert reply.json()["error"].startswith("postgresql://trove@/index: cannot reach the index's server")
