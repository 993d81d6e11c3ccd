"""The LLM router with questions far too long for the model's context: cut to fit, never a crash
("Requested tokens (…) exceed context window")."""

from __future__ import annotations

from engine.routing import make_router
from engine.routing.labels import ORDER
from tests.scripted import ScriptedLLM

HUGE = "How much did I spend on groceries in March 2024? " + "Also think about this. " * 4500  # ~100 KB


def test_a_100kb_question_is_cut_before_the_llm_router_prompts():
    llm = ScriptedLLM(json_reply=lambda _messages, _schema: {"kinds": ["table"]})
    routes = make_router("llm", llm=lambda: llm).route(HUGE, set(ORDER))
    assert [r.label for r in routes] == ["table"]
    user = llm.sent[0][1]["content"]
    assert len(HUGE) > 100_000 and len(user) < 2200 and "groceries in March 2024" in user
    assert sum(llm.count_tokens(m["content"]) for m in llm.sent[0]) < llm.n_ctx - 40


def test_a_100kb_question_routes_with_the_smoke_model(smoke_llm, embedder):  # noqa: ANN001
    routes = make_router("llm", llm=lambda: smoke_llm).route(HUGE, {"paragraph", "table"})
    assert 1 <= len(routes) <= 2 and {r.label for r in routes} <= {"paragraph", "table", "none"}
    doubtful = make_router("ensemble", embedder=lambda: embedder, llm=lambda: smoke_llm, confident=1.01)
    assert doubtful.route(HUGE, set(ORDER))  # the trained router embeds it, the LLM is asked: no crash
