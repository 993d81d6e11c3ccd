"""The LLM router with questions far too long for the model's context: cut to fit, never a crash
("Requested tokens (…) exceed context window")."""

from __future__ import annotations

from types import SimpleNamespace

from engine.routing.ensemble import EnsembleRouter
from engine.routing.labels import ORDER
from engine.routing.llm_router import LLMRouter
from engine.routing.trained import TrainedRouter
from tests.engine.routing.requests import request
from tests.scripted import ScriptedLLM

HUGE = "How much did I spend on groceries in March 2024? " + "Also think about this. " * 4500  # ~100 KB


def test_a_100kb_question_is_cut_before_the_llm_router_prompts():
    llm = ScriptedLLM(json_reply=lambda _messages, _schema: {"kinds": ["table"]})
    routes = LLMRouter(SimpleNamespace(llm=llm)).route(request(HUGE, ORDER))
    assert [r.label for r in routes] == ["table"]
    user = llm.sent[0][1]["content"]
    assert len(HUGE) > 100_000 and len(user) < 2200 and "groceries in March 2024" in user
    assert sum(llm.count_tokens(m["content"]) for m in llm.sent[0]) < llm.n_ctx - 40


def test_a_100kb_question_routes_with_the_smoke_model(smoke_llm, embedder):  # noqa: ANN001
    llm = LLMRouter(SimpleNamespace(llm=smoke_llm))
    routes = llm.route(request(HUGE, {"paragraph", "table"}))
    assert 1 <= len(routes) <= 2 and {r.label for r in routes} <= {"paragraph", "table", "none"}
    doubtful = EnsembleRouter(TrainedRouter(), llm, confident=1.01)
    assert doubtful.route(request(HUGE, ORDER, embedder))  # the embedder cuts it, the LLM is asked: no crash
