"""A simple rule router for text: questions about a whole file go to documents, the rest to
paragraphs. It stands in until the trained/LLM routers arrive and keeps their contract."""

from __future__ import annotations

import re

from engine.routing.base import Route

_WHOLE = re.compile(
    r"\b(summar\w*|overview|outline|main (points|ideas|themes)|key points|gist|whole|entire|all the|"
    r"compare|comparison|differences?|across|throughout|what is (the )?(document|file|letter|article|report|"
    r"note|policy) about|tl;?dr)\b", re.IGNORECASE)


_QUANTITY = re.compile(
    r"\b(how (many|much|often)|total|sum|average|mean|count|number of|most|least|highest|lowest|largest|"
    r"smallest|maximum|minimum|top \d+|per (month|year|week|day)|list (all|every)|spen[dt]|cost|paid|"
    r"which (month|year|day)|rows?)\b", re.IGNORECASE)


_RELATION = re.compile(
    r"\b(link(s|ed)? (to|from)|linked|backlinks?|connect\w*|tagged|tags?|related|relationships?|who (acted|"
    r"directed|produced|wrote|knows|follows|reviewed)|(acted|starred|played) in|directed by|written by|"
    r"instances? of|class(es)?|propert(y|ies) of|type of|grand\w+|children|parents?|siblings?|married|cousins?|"
    r"family)\b", re.IGNORECASE)
STRUCTURED = ("table", "graph", "rdf")


class RuleRouter:
    name = "rule"

    def __init__(self, **_: object) -> None:  # needs no models
        pass

    def route(self, question: str, available: set[str]) -> list[Route]:
        whole = bool(_WHOLE.search(question))
        preferred = ["document", "paragraph"] if whole else ["paragraph", "document"]
        text = [label for label in preferred if label in available]
        routes = []
        if _QUANTITY.search(question) or _RELATION.search(question) or not text:
            routes += [Route(label, 0.6, self.name) for label in STRUCTURED if label in available]
        if text:
            routes.append(Route(text[0], 0.4 if routes else 0.6, self.name))
        return routes or [Route("none", 1.0, self.name)]
