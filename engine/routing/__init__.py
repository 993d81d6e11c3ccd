"""Routing a question to corpora (UniversalRAG): a router returns labels with confidences.

Routers are chosen by name: `make_router("rule")`. A new router is one module plus one line in
`ROUTERS`; a new corpus kind is one label in `labels.LABELS` plus its retriever.
"""

from __future__ import annotations

import importlib

from engine.routing.base import Route, Router

ROUTERS = {
    "rule": "engine.routing.rule:RuleRouter",
    "trained": "engine.routing.trained:TrainedRouter",
    "llm": "engine.routing.llm_router:LLMRouter",
    "ensemble": "engine.routing.ensemble:EnsembleRouter",
}


def make_router(name: str, **kwargs: object) -> Router:
    if name not in ROUTERS:
        raise ValueError(f"unknown router {name!r}; choose one of {sorted(ROUTERS)}")
    module, _, cls = ROUTERS[name].partition(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)


__all__ = ["ROUTERS", "Route", "Router", "make_router"]
