"""The trained router (the committed int8 ONNX model), the LLM router and the ensemble, on
questions of each kind; only corpora that exist are ever chosen."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.errors import ModelError
from engine.routing.ensemble import EnsembleRouter
from engine.routing.labels import ORDER
from engine.routing.llm_router import LLMRouter
from engine.routing.trained import TrainedRouter
from tests.engine.routing.requests import request
from tests.scripted import ScriptedLLM

ALL = set(ORDER)
SPENT = "How much did I spend on groceries in March 2024?"


@pytest.fixture(scope="module")
def trained() -> TrainedRouter:
    return TrainedRouter()


@pytest.mark.parametrize(("question", "label"), [
    (SPENT, "table"),
    ("Which movies did Tom Hanks act in after 2000?", "graph"),
    ("a dog catching a frisbee on the beach", "image"),
    ("What are the names of the singers who are older than 40?", "rdf"),
    ("Summarise the letter from my landlord", "document"),
    ("What is the square root of 144?", "none"),
    ("When in the wedding video do they cut the cake?", "clip"),
])
def test_trained_router_routes_each_kind(trained, embedder, question: str, label: str):  # noqa: ANN001
    routes = trained.route(request(question, ALL, embedder))
    assert routes[0].label == label and routes[0].router == "trained" and 0 < routes[0].confidence <= 1


def test_trained_router_only_picks_corpora_that_exist(trained, embedder):  # noqa: ANN001
    routes = trained.route(request("a dog catching a frisbee on the beach", {"paragraph", "document"}, embedder))
    assert {r.label for r in routes} <= {"paragraph", "document", "none"}


def test_probabilities_cover_every_label_and_a_missing_model_is_a_clear_error(trained, embedder, tmp_path):  # noqa: ANN001
    probs = trained.probabilities(embedder.embed_one("How many notes link to my garden plan?"))
    assert set(probs) == ALL and all(0 <= p <= 1 for p in probs.values())
    with pytest.raises(ModelError, match="train it"):
        TrainedRouter(model_dir=tmp_path).route(request("anything", ALL, embedder))


def test_llm_and_ensemble_routers_with_the_smoke_model(trained, embedder, smoke_llm):  # noqa: ANN001
    llm = LLMRouter(SimpleNamespace(llm=smoke_llm))
    routes = llm.route(request("Show me photos of the lake", {"paragraph", "image"}))
    assert 1 <= len(routes) <= 2 and {r.label for r in routes} <= {"paragraph", "image", "none"}
    assert all(r.router == "llm" for r in routes)
    assert EnsembleRouter(trained, llm, confident=0.0).route(request(SPENT, ALL, embedder))[0].router == "trained"
    asked = EnsembleRouter(trained, llm, confident=1.01).route(request(SPENT, ALL, embedder))
    assert len(asked) == 1 and asked[0].router == "llm"  # the LLM names one kind


class _NoLLM:
    @property
    def llm(self) -> object:
        raise ModelError("llm", "-", "no such role or model in the catalog")


def test_ensemble_without_a_usable_llm_keeps_the_trained_decision(trained, embedder):  # noqa: ANN001
    doubtful = EnsembleRouter(trained, LLMRouter(_NoLLM()), confident=1.01)
    routes = doubtful.route(request(SPENT, ALL, embedder))
    assert routes[0].label == "table" and all(r.router == "trained" for r in routes)


def test_the_llm_routers_instructions_are_the_same_whichever_kinds_are_available():
    """Its system prompt is then evaluated once and kept (runtimes/prefixes.py); the available kinds
    are named in the question's own turn and bound the grammar."""
    schemas: list[dict] = []
    llm = ScriptedLLM(json_reply=lambda messages, schema: (schemas.append(schema), {"kinds": ["rdf", "table"]})[1])
    router = LLMRouter(SimpleNamespace(llm=llm))
    first = router.route(request("How much was the rent?", {"table", "paragraph"}))
    router.route(request("Who wrote it?", {"rdf", "graph", "paragraph"}))
    (system_a, user_a), (system_b, user_b) = llm.sent
    assert system_a == system_b and "Available kinds: none, paragraph, table" in user_a["content"]
    assert schemas[0]["properties"]["kinds"]["items"]["enum"] == ["none", "paragraph", "table"]
    assert [r.label for r in first] == ["table"]  # a kind that is not available is never routed to
