"""What a follow-up carries over from the turn before it: the query that answered it (so "which of
those were in May?" edits that query on the same source instead of starting over) and the files it
cited; and which of a turn's cited files have changed since it was answered."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.conversations.rewriting import refers_back
from engine.conversations.turns import FileState, Turn
from engine.result import AskResult, Citation
from engine.routing.base import Decision, Route
from engine.routing.labels import NATIVE

if TYPE_CHECKING:
    from local_stores.catalog import Catalog

ROUTE_OF = {"sql": "table", "cypher": "graph", "sparql": "rdf"}  # a query language -> the route it answers
VISUAL = frozenset({"image", "region", "clip", "video"})


@dataclass(frozen=True)
class PriorQuery:
    """The query that answered the turn before, on its source, in its language."""

    question: str  # the standalone question it answered
    source: str
    language: str
    query: str

    @property
    def route(self) -> str:
        return ROUTE_OF[self.language]


@dataclass(frozen=True)
class FollowUp:
    """What the previous turn gives a question that refers back to it."""

    question: str  # as typed
    prior: PriorQuery | None = None
    cited: tuple[Citation, ...] = ()  # what the previous turn cited

    def routes(self, routes: list[Route]) -> list[Route]:
        """The router's routes, and first the route of the query the follow-up refines ("which of
        those were in May?", "split that by shop") when the router chose no structured route, or
        another kind of structured data while the follow-up speaks of the rows found ("which of those
        has the most students?" is about the schools in the table, not about an RDF graph of courses);
        never beside a photo or video (a follow-up that turns to a photo of it is not about the rows)."""
        labels = {r.label for r in routes}
        if self.prior is None or labels & VISUAL or self.prior.route in labels:
            return routes
        if labels & set(NATIVE) and not _THE_ROWS.search(self.question):
            return routes
        kept = [r for r in routes if r.label != "none"]
        return [Route(self.prior.route, 1.0, Decision.FOLLOW_UP), *kept]


_THE_ROWS = re.compile(r"\b(?:those|these|them|they|ones)\b", re.I)  # what the last query found


def follow_up(question: str, turns: list[Turn]) -> FollowUp | None:
    """What the last turn gives `question` (as typed); None when it does not refer back or there is
    no turn before it. When the last turn found nothing in the files (answered from general
    knowledge, or "not found"), the query of the turn before it is the one refined: "what is its
    student/teacher ratio?" after a "which of those …?" that went astray is still about the rows."""
    if not turns or not refers_back(question):
        return None
    last = turns[-1].result
    prior = prior_query(last)
    if prior is None and len(turns) > 1 and not (last.answered and last.citations):
        prior = prior_query(turns[-2].result)
    return FollowUp(question, prior, tuple(last.citations))


def prior_query(result: AskResult) -> PriorQuery | None:
    """The last query of an answer that ran and found rows (None: the answer was not a query's)."""
    found = [q for q in result.queries if q.ok and q.rows > 0 and q.language in ROUTE_OF]
    if not found:
        return None
    run = found[-1]
    return PriorQuery(result.asked_as or result.question, run.source, run.language, run.query)


def file_states(result: AskResult, catalog: Catalog) -> dict[str, FileState]:
    """Each cited file's state in the catalog now (kept with the turn, to tell later if it changed)."""
    states: dict[str, FileState] = {}
    for citation in result.citations:
        record = catalog.file(citation.source)
        if record is not None:
            states[citation.source] = (record.mtime_ns, record.sha256)
    return states


def changed_files(turn: Turn, catalog: Catalog) -> dict[str, str]:
    """The turn's cited files that were removed or changed since it was answered: path -> "removed"
    or "changed"."""
    changed: dict[str, str] = {}
    for path, (mtime_ns, sha256) in turn.files.items():
        record = catalog.file(path)
        if record is None or record.state != "indexed":
            changed[path] = "removed"
        elif (record.sha256 or "") != (sha256 or "") or (sha256 is None and record.mtime_ns != mtime_ns):
            changed[path] = "changed"
    return changed
