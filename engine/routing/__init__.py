"""Routing a question to corpora (UniversalRAG): a router returns labels with confidences.

Routers are chosen by name: `make_router("ensemble", models, settings)`. A new router is one module
(a class with `name`, `build(models, settings)` and `route(request)`) plus one entry in `ROUTERS`;
a new corpus kind is one label in `labels.LABELS` plus its retriever.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.routing.base import Decision, Route, Router, RouteRequest
from engine.routing.ensemble import EnsembleRouter
from engine.routing.llm_router import LLMRouter
from engine.routing.rule import RuleRouter
from engine.routing.trained import TrainedRouter

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.settings import Settings

ROUTERS: dict[str, type[RuleRouter | TrainedRouter | LLMRouter | EnsembleRouter]] = {
    router.name: router for router in (RuleRouter, TrainedRouter, LLMRouter, EnsembleRouter)}


def make_router(name: str, models: Models, settings: Settings) -> Router:
    """The router called `name`, built from the models it reads (loaded when first needed)."""
    if name not in ROUTERS:
        raise ValueError(f"unknown router {name!r}; choose one of {sorted(ROUTERS)}")
    return ROUTERS[name].build(models, settings)


__all__ = ["ROUTERS", "Decision", "Route", "RouteRequest", "Router", "make_router"]
