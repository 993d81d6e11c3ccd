"""Every endpoint of a real `trove serve` (the smoke LLM, a home indexed from a note and a CSV): the
replies match the OpenAPI schemas and the CLI's --json shapes; bad input is a 4xx with a message."""

from __future__ import annotations

import json
import time

import jsonschema
import pytest

from engine.result import AskResult
from engine.service import openapi
from engine.service.openai_chat import reply_text
from tests.engine.service.conftest import Served, trove_cli

pytestmark = pytest.mark.slow


def valid(value: object, schema: str) -> object:
    """`value`, once checked against the OpenAPI schema `schema`."""
    spec = openapi.spec()
    jsonschema.validate(value, {**spec["components"]["schemas"][schema], "components": spec["components"]})
    return value


def test_status_says_what_is_indexed(served: Served):
    reply = served.request("GET", "/status")
    assert reply.status == 200
    status = valid(reply.json(), "Status")
    assert status["files"]["indexed"] == 2 and status["roots"] == [str(served.folder)]
    cli = trove_cli("status", "--json", "--home", str(served.home))
    assert json.loads(cli.stdout) == status  # the CLI's shape, the same values


def test_search_is_the_cli_search(served: Served):
    reply = served.request("POST", "/search", {"query": "boiler service", "k": 3})
    hits = reply.json()
    for hit in hits:
        valid(hit, "Hit")
    assert hits[0]["source"] == str(served.folder / "boiler.md")
    cli = trove_cli("search", "boiler service", "--k", "3", "--json", "--home", str(served.home),
                    env={"TROVE_NO_SERVER": "1"})
    assert json.loads(cli.stdout) == hits


def test_route_query_and_sql(served: Served):
    routes = valid(served.request("POST", "/route", {"question": "Who serviced the boiler?"}).json(), "Routes")
    assert routes["routes"] and routes["question"] == "Who serviced the boiler?"
    rows = served.request("POST", "/sql", {"query": "SELECT name FROM people WHERE city = 'Oslo' ORDER BY name"})
    assert valid(rows.json(), "QueryResult")["rows"] == [["Anna"], ["Cleo"]]
    query = served.request("POST", "/query", {"source": "people", "query": "SELECT max(age) AS oldest FROM people"})
    assert query.json()["rows"] == [[45]]
    refused = served.request("POST", "/sql", {"query": "DELETE FROM people"})
    assert refused.status == 400 and refused.json()["error"]


def test_ask_gives_the_cli_answer_object_and_keeps_the_conversation(served: Served):
    reply = served.request("POST", "/ask", {"question": "When was the boiler serviced?"})
    assert reply.status == 200
    answer = valid(reply.json(), "Answer")
    assert answer["question"] == "When was the boiler serviced?" and answer["answer"]
    kept = served.request("GET", f"/conversations/{answer['conversation']}").json()
    assert valid(kept, "Conversation")["turns"][0]["answer"] == answer["answer"]
    listed = served.request("GET", "/conversations").json()
    assert answer["conversation"] in [valid(c, "ConversationSummary")["id"] for c in listed]
    follow = served.request("POST", "/ask", {"question": "And who did it?", "conversation": answer["conversation"]})
    assert follow.json()["conversation"] == answer["conversation"]
    assert len(served.request("GET", f"/conversations/{answer['conversation']}").json()["turns"]) == 2
    deleted = served.request("DELETE", f"/conversations/{answer['conversation']}")
    assert deleted.json() == {"deleted": answer["conversation"]}
    assert served.request("GET", f"/conversations/{answer['conversation']}").status == 404


def test_a_streamed_answer_sends_routes_then_words_then_the_answer(served: Served):
    reply = served.request("POST", "/ask", {"question": "Who was the technician?", "stream": True})
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = [(block.split("\n")[0].removeprefix("event: "), json.loads(block.split("\n")[1].removeprefix("data: ")))
              for block in reply.body.decode().strip().split("\n\n")]
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "routes" and kinds[-1] == "answer" and "token" in kinds
    assert valid(events[-1][1], "Answer")["question"] == "Who was the technician?"
    lost = served.request("POST", "/ask", {"question": "And then?", "conversation": 987654, "stream": True})
    assert lost.status == 200 and lost.body.decode().startswith("event: error\n")
    assert json.loads(lost.body.decode().split("data: ", 1)[1]) == {
        "error": "no conversation 987654 (see trove conversations list)", "status": 404}


def test_files_serves_only_what_is_indexed(served: Served):
    note = str(served.folder / "boiler.md")
    found = valid(served.request("GET", f"/files?path={note}").json(), "IndexedFile")
    assert found["text"].startswith("The boiler was serviced")
    assert served.request("GET", f"/files?path={note}&raw=1").body.decode() == (served.folder / "boiler.md").read_text()
    for outside in ("/etc/passwd", str(served.home / "server.json"), f"{served.folder}/../files/boiler.md"):
        refused = served.request("GET", f"/files?path={outside}")
        assert refused.status == 404 and "not an indexed file" in refused.json()["error"]
    assert served.request("GET", "/files").status == 400


def test_openai_compatible_chat(served: Served):
    assert valid(served.request("GET", "/v1/models").json(), "Models")["data"][0]["id"] == "trove"
    messages = [{"role": "user", "content": "When was the boiler serviced?"}]
    reply = valid(served.request("POST", "/v1/chat/completions", {"model": "trove", "messages": messages}).json(),
                  "ChatCompletion")
    content = reply["choices"][0]["message"]["content"]
    assert content.startswith(reply["trove"]["answer"])
    for c in reply["citations"]:
        assert f"[{c['n']}] boiler.md" in content
    streamed = served.request("POST", "/v1/chat/completions", {"messages": messages, "stream": True}).body.decode()
    chunks = [line.removeprefix("data: ") for line in streamed.split("\n") if line.startswith("data: ")]
    assert chunks[-1] == "[DONE]"
    pieces = [json.loads(c) for c in chunks[:-1]]
    said = "".join(p["choices"][0]["delta"].get("content", "") for p in pieces)
    assert said == reply_text(AskResult.from_dict(pieces[-1]["trove"]))
    assert pieces[-1]["choices"][0]["finish_reason"] == "stop" and "citations" in pieces[-1]


def test_bad_requests_get_a_4xx_with_a_message(served: Served):
    cases = [
        ("POST", "/ask", {"question": "  "}, 400, "the question is empty"),
        ("POST", "/ask", {"question": "x", "conversation": 987654}, 404, "no conversation 987654"),
        ("POST", "/ask", {"question": "x", "scope": {"kinds": ["spaceship"]}}, 400, "unknown kind"),
        ("POST", "/ask", {"question": "x", "scope": {"paths": ["/nowhere/at/all"]}}, 400, "/nowhere/at/all"),
        ("POST", "/ask", [1, 2], 400, "must be a JSON object"),
        ("POST", "/search", {"query": "boiler", "k": -1}, 400, "'k' must be a whole number"),
        ("POST", "/search", {"query": "boiler", "granularity": "atoms"}, 400, "'granularity' must be one of"),
        ("POST", "/search", {}, 400, "'query' is missing"),
        ("POST", "/index", {"paths": ["/nowhere/at/all"]}, 400, "no such file or folder"),
        ("GET", "/jobs/4242", None, 404, "no index job 4242"),
        ("POST", "/v1/chat/completions", {"messages": []}, 400, "'messages' must be"),
        ("GET", "/no/such/endpoint", None, 404, "Not Found"),
        ("GET", "/ask", None, 405, "Method Not Allowed"),
    ]
    for method, path, body, status, says in cases:
        reply = served.request(method, path, body)
        assert (reply.status, says in reply.json()["error"]) == (status, True), (path, body, reply.body)
    malformed = served.request("POST", "/ask", raw=b'{"question": ')
    assert malformed.status == 400 and "not JSON" in malformed.json()["error"]
    huge = served.request("POST", "/ask", raw=json.dumps({"question": "x" * 1_100_000}).encode())
    assert huge.status == 413 and "over the limit" in huge.json()["error"]


def test_an_index_job_reports_progress_and_its_files_become_searchable(served: Served):
    more = served.home.parent / "more"
    more.mkdir()
    (more / "kayak.txt").write_text("The red kayak is stored in the boathouse at Lake Mjøsa.\n", encoding="utf-8")
    started = served.request("POST", "/index", {"paths": [str(more)]})
    assert started.status == 202
    job = valid(started.json(), "Job")
    deadline = time.monotonic() + 120
    while job["state"] in ("waiting", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = valid(served.request("GET", f"/jobs/{job['id']}").json(), "Job")
    assert job["state"] == "done" and job["report"]["indexed"] == 1
    assert job["id"] in [j["id"] for j in served.request("GET", "/jobs").json()]
    hits = served.request("POST", "/search", {"query": "where is the kayak", "k": 1}).json()
    assert hits[0]["source"] == str(more / "kayak.txt")


def test_the_description_is_the_one_in_the_repository_and_names_every_route(served: Served):
    from pathlib import Path

    from engine.service.app import Service, build

    served_spec = served.request("GET", "/openapi.json").json()
    kept = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi.json").read_text())
    assert served_spec == kept == json.loads(json.dumps(openapi.spec()))
    app = build(Service(None))  # type: ignore[arg-type]  # the routes only
    routes = {route.path.replace(":int", "") for route in app.routes}  # type: ignore[attr-defined]
    assert routes == set(kept["paths"])


def test_the_cli_asks_the_running_server(served: Served):
    before = served.log.read_text().count('"POST /ask HTTP/1.1" 200')
    done = trove_cli("ask", "When was the boiler serviced?", "--json", "--home", str(served.home))
    assert done.returncode == 0, done.stderr
    assert valid(json.loads(done.stdout), "Answer")["question"] == "When was the boiler serviced?"
    assert served.log.read_text().count('"POST /ask HTTP/1.1" 200') == before + 1
    alone = trove_cli("ask", "When was the boiler serviced?", "--json", "--home", str(served.home),
                      "--llm", "smoke")  # another model than the server's: the CLI works alone
    assert alone.returncode == 0, alone.stderr
    assert served.log.read_text().count('"POST /ask HTTP/1.1" 200') == before + 1


def test_a_client_gone_mid_stream_leaves_the_real_model_ready_for_the_next(served: Served):
    import http.client

    connection = http.client.HTTPConnection(served.host, served.port, timeout=120)
    connection.request("POST", "/ask", json.dumps({"question": "Who was the technician?", "stream": True}))
    reply = connection.getresponse()
    while reply.readline() not in (b"event: token\n", b""):
        pass
    connection.close()
    after = served.request("POST", "/ask", {"question": "When was the boiler serviced?"})
    assert after.status == 200 and valid(after.json(), "Answer")["answer"]


def test_no_cors_by_default_and_no_question_or_document_text_in_the_log(served: Served):
    reply = served.request("GET", "/status", headers={"Origin": "http://pages.example"})
    assert reply.status == 200 and "access-control-allow-origin" not in reply.headers
    question = "Who is the technician named in my notes about the furnace?"
    answer = served.request("POST", "/ask", {"question": question}).json()
    logged = served.log.read_text()
    assert '"POST /ask HTTP/1.1" 200' in logged
    assert question not in logged and "furnace" not in logged and "Ola Berg" not in logged
    assert not answer["answer"].strip() or answer["answer"] not in logged
