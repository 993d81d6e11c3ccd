"""The trained router (the committed int8 ONNX model), the LLM router and the ensemble, on
questions of each kind; only corpora that exist are ever chosen."""

from __future__ import annotations

import pytest

from engine.errors import ModelError
from engine.routing import make_router
from engine.routing.labels import ORDER
from engine.routing.trained import TrainedRouter

ALL = set(ORDER)


@pytest.fixture(scope="module")
def trained(embedder):  # noqa: ANN001, ANN201
    return make_router("trained", embedder=lambda: embedder)


@pytest.mark.parametrize(("question", "label"), [
    ("How much did I spend on groceries in March 2024?", "table"),
    ("Which movies did Tom Hanks act in after 2000?", "graph"),
    ("a dog catching a frisbee on the beach", "image"),
    ("What are the names of the singers who are older than 40?", "rdf"),
    ("Summarise the letter from my landlord", "document"),
    ("What is the square root of 144?", "none"),
    ("When in the wedding video do they cut the cake?", "clip"),
])
def test_trained_router_routes_each_kind(trained, question: str, label: str):  # noqa: ANN001
    routes = trained.route(question, ALL)
    assert routes[0].label == label and routes[0].router == "trained" and 0 < routes[0].confidence <= 1


def test_trained_router_only_picks_corpora_that_exist(trained):  # noqa: ANN001
    routes = trained.route("a dog catching a frisbee on the beach", {"paragraph", "document"})
    assert {r.label for r in routes} <= {"paragraph", "document", "none"}


def test_probabilities_cover_every_label_and_a_missing_model_is_a_clear_error(trained, embedder, tmp_path):  # noqa: ANN001
    probs = trained.probabilities("How many notes link to my garden plan?")
    assert set(probs) == ALL and all(0 <= p <= 1 for p in probs.values())
    with pytest.raises(ModelError, match="train it"):
        TrainedRouter(embedder=lambda: embedder, model_dir=tmp_path).route("anything", ALL)


def test_llm_and_ensemble_routers_with_the_smoke_model(embedder, smoke_llm):  # noqa: ANN001
    llm = make_router("llm", llm=lambda: smoke_llm)
    routes = llm.route("Show me photos of the lake", {"paragraph", "image"})
    assert 1 <= len(routes) <= 2 and {r.label for r in routes} <= {"paragraph", "image", "none"}
    assert all(r.router == "llm" for r in routes)
    ensemble = make_router("ensemble", embedder=lambda: embedder, llm=lambda: smoke_llm, confident=0.0)
    assert ensemble.route("How much did I spend on groceries in March 2024?", ALL)[0].router == "trained"
    doubtful = make_router("ensemble", embedder=lambda: embedder, llm=lambda: smoke_llm, confident=1.01)
    asked = doubtful.route("How much did I spend on groceries in March 2024?", ALL)
    assert len(asked) == 1 and asked[0].router == "llm"  # the LLM names one kind


def test_ensemble_without_a_usable_llm_keeps_the_trained_decision(embedder):  # noqa: ANN001
    def missing_llm():  # noqa: ANN202
        raise ModelError("llm", "-", "no such role or model in the catalog")

    doubtful = make_router("ensemble", embedder=lambda: embedder, llm=missing_llm, confident=1.01)
    routes = doubtful.route("How much did I spend on groceries in March 2024?", ALL)
    assert routes[0].label == "table" and all(r.router == "trained" for r in routes)
