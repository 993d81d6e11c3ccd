"""A simple rule router for text: questions about a whole file go to documents, the rest to
paragraphs. The fallback when no trained router is installed, and a baseline for the others."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.routing.base import Route, RouteRequest

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.settings import Settings

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
_PHOTO = re.compile(r"\b(photos?|pictures?|pics?|images?|snaps?(hots?)?|snapped|selfies?|shots?|screenshots?|"
                    r"photograph\w*|scans?|camera)\b", re.IGNORECASE)
_INSIDE = re.compile(r"\b(in|on|inside) (the|my|this|that|a) (photo|picture|pic|image|shot|snapshot|screenshot)|"
                     r"\b(sign|label|written|say|says|read|text|logo|face|faces|box|where in)\b|^(is|are) \w+",
                     re.IGNORECASE)
_VIDEO = re.compile(r"\b(videos?|clips?|footage|recordings?|films?|vlogs?|filmed|recorded)\b", re.IGNORECASE)
_WHOLE_VIDEO = re.compile(r"\b(what is (the|this|that|my) (video|clip|film|recording) about|summar\w*|whole|"
                          r"entire|overall)\b", re.IGNORECASE)


class RuleRouter:
    name = "rule"

    @classmethod
    def build(cls, models: Models, settings: Settings) -> RuleRouter:  # noqa: ARG003 (needs no models)
        return cls()

    def route(self, request: RouteRequest) -> list[Route]:
        question, available = request.question, request.available
        visual = self._visual(question, available)
        if visual:
            return visual
        whole = bool(_WHOLE.search(question))
        preferred = ["document", "paragraph"] if whole else ["paragraph", "document"]
        text = [label for label in preferred if label in available]
        routes = []
        if _QUANTITY.search(question) or _RELATION.search(question) or not text:
            routes += [Route(label, 0.6, self.name) for label in STRUCTURED if label in available]
        if text:
            routes.append(Route(text[0], 0.4 if routes else 0.6, self.name))
        return routes or [Route("none", 1.0, self.name)]

    def _visual(self, question: str, available: frozenset[str]) -> list[Route]:
        """Photos (and the elements inside them) or videos (a moment, or the whole), when the question
        names them; a photo question that counts ("how many photos…") also goes to the photos table."""
        routes: list[Route] = []
        if _VIDEO.search(question):
            order = ["video", "clip"] if _WHOLE_VIDEO.search(question) else ["clip", "video"]
            routes += [Route(label, 0.7 if i == 0 else 0.5, self.name)
                       for i, label in enumerate(label for label in order if label in available)]
        elif _PHOTO.search(question):
            order = ["region", "image"] if _INSIDE.search(question) else ["image", "region"]
            routes += [Route(label, 0.7 if i == 0 else 0.5, self.name)
                       for i, label in enumerate(label for label in order if label in available)]
        if routes and _QUANTITY.search(question) and "table" in available:
            routes.insert(0, Route("table", 0.6, self.name))
        return routes
