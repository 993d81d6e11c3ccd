"""A simple rule router for text: questions about a whole file go to documents, the rest to
paragraphs. It stands in until the trained/LLM routers arrive and keeps their contract."""

from __future__ import annotations

import re

from engine.routing.base import Route

_WHOLE = re.compile(
    r"\b(summar\w*|overview|outline|main (points|ideas|themes)|key points|gist|whole|entire|all the|"
    r"compare|comparison|differences?|across|throughout|what is (the )?(document|file|letter|article|report|"
    r"note|policy) about|tl;?dr)\b", re.IGNORECASE)


class RuleRouter:
    name = "rule"

    def route(self, question: str, available: set[str]) -> list[Route]:
        whole = bool(_WHOLE.search(question))
        preferred = ["document", "paragraph"] if whole else ["paragraph", "document"]
        routes = [label for label in preferred if label in available]
        if not routes:
            return [Route("none", 1.0)]
        return [Route(routes[0], 0.6)]
