"""The user's structured sources as routing evidence. The trained router reads only the words of a
question; "how many singers are there" reads the same whether the singers are in a spreadsheet or an
RDF file, and "according to my library" says nothing about which kind of file the library is. The
catalog knows: how near each kind's nearest source descriptor is to the question (the same
descriptor embeddings that pick sources for native queries) settles such questions.

`nearness` maps each structured label to the similarity of its nearest source. Two uses:
- `settle_structured`: when the router hesitates between structured labels, the one whose source
  is nearest takes their combined probability;
- `with_sources`: a source near enough (`level`) adds its label to the routes, replaces `none`, or
  replaces another structured label whose own nearest source is clearly (`margin`) farther (for that,
  near enough is the lower `switch`).
"""

from __future__ import annotations

import re
from collections.abc import Set

from engine.routing.base import Decision, Route
from engine.routing.labels import NATIVE

STRUCTURED = tuple(NATIVE)  # the labels answered by native queries over catalog sources


def by_label(per_kind: dict[str, float]) -> dict[str, float]:
    """Per structured label, the similarity of its nearest source (labels without sources absent)."""
    out: dict[str, float] = {}
    for label, kinds in NATIVE.items():
        found = [per_kind[kind] for kind in kinds if kind in per_kind]
        if found:
            out[label] = max(found)
    return out


def settle_structured(probabilities: dict[str, float], nearness: dict[str, float],
                      shortlist: int) -> dict[str, float]:
    """Among the `shortlist` likeliest labels, the structured ones merge into the one whose nearest
    source is nearest the question (the router said "structured data"; the sources say which)."""
    likeliest = sorted(probabilities, key=lambda label: -probabilities[label])[:shortlist]
    candidates = [label for label in likeliest if label in STRUCTURED and label in nearness]
    if len(candidates) < 2:
        return probabilities
    best = max(candidates, key=nearness.__getitem__)
    settled = dict(probabilities)
    for label in candidates:
        settled[label] = 0.0
    settled[best] = sum(probabilities[label] for label in candidates)
    return settled


def with_sources(routes: list[Route], nearness: dict[str, float], level: float, margin: float,
                 switch: float | None = None) -> list[Route]:
    """The routes, corrected by a structured source at least `level` similar to the question; a
    routed structured kind gives way to another whose nearest source is `margin` nearer than its own
    and at least `switch` similar (`level` when not given): the router already chose structured data,
    and which kind of file holds it is what only the sources can tell."""
    if not nearness:
        return routes
    best = max(nearness, key=nearness.__getitem__)
    similarity = nearness[best]
    labels = [route.label for route in routes]
    structured = [route for route in routes if route.label in STRUCTURED]
    needed = min(level, switch) if structured and switch is not None else level
    if best in labels or similarity < needed:
        return routes
    found = Route(best, similarity, Decision.SOURCES)
    if structured:  # another structured kind was routed: replaced only when its own sources are clearly farther
        if all(similarity - nearness.get(route.label, 0.0) >= margin for route in structured):
            return [route for route in routes if route.label not in STRUCTURED] + [found]
        return routes
    if labels == ["none"]:
        return [found]
    return [*routes, found]


_TEXT_LABELS = ("paragraph", "document")


def by_evidence(routes: list[Route], nearness: dict[str, float], text_relevance: float, margin: float
                ) -> list[Route]:
    """Text or structured, settled by what the user's files hold: structured routes give way to
    the passages when the best passage fits the question `margin` better than the nearest source
    does, and text routes give way to the nearest source when it fits `margin` better than any
    passage (a question about "the report" misread as a database question, and the reverse)."""
    labels = {route.label for route in routes}
    best = max(nearness, key=nearness.__getitem__) if nearness else None
    near = nearness.get(best, 0.0) if best else 0.0
    structured = labels & set(STRUCTURED)
    if structured and text_relevance - near >= margin:
        kept = [route for route in routes if route.label not in STRUCTURED]
        text = Route("paragraph", round(text_relevance, 3), Decision.EVIDENCE)
        return kept if labels & set(_TEXT_LABELS) else [*kept, text]
    if best and labels and labels <= set(_TEXT_LABELS) and near - text_relevance >= margin:
        return [Route(best, round(near, 3), Decision.EVIDENCE)]
    return routes


def named_label(question: str, available: Set[str]) -> str | None:
    """The one kind of file among `available` the question names ("in my concert database": table);
    of several, the one it names as the file it asks about ("the country table in my example
    document": a document); None when it names none, or several and no such file."""
    named = [label for label, words in _NAMED.items() if words.search(question) and label in available]
    if len(named) <= 1:
        return named[0] if named else None
    held = [(m.end(), label) for label in named for m in _NAMED[label].finditer(question)
            if _CONTAINER.search(question[:m.start()]) or re.match(r"(?:in|on|from)\s", m.group(0), re.I)]
    return max(held)[1] if held else None  # the file the question is in: the last kind word of its phrase


# what comes before a kind word that names the file asked about: "in my example document", "from the
# document templates database" (its last kind word is the file's: a database of documents); not "in my
# photo of the document" (a photo)
_CONTAINER = re.compile(r"\b(?:in|from)\s+(?:my|the|our|this|that)\s+(?:(?!of\b)[\w'’()-]+\s+){0,4}$", re.I)


_NAMED = {"table": re.compile(r"\b(?:databases?|spreadsheets?|csv|excel|sqlite|tables?|sheets?)\b", re.I),
          "rdf": re.compile(r"\b(?:knowledge graphs?|ontolog\w*|triples?|rdf|turtle|linked data)\b", re.I),
          # what is in a photo or a video ("in my photo of zebras"), not how many photos there are
          "region": re.compile(r"\b(?:in|on|from) (?:my|the|this|that|a) (?:[\w-]+ ){0,2}(?:photos?|pictures?|"
                               r"snapshots?|selfies?)\b|\b(?:photo|picture) of\b", re.I),
          "paragraph": re.compile(r"\b(?:pdfs?|documents?|e-?mails?|slide decks?|presentations?|word files?)\b|"
                                  r"\.(?:pdf|docx?|pptx?|odt|rtf|eml|msg)\b", re.I),
          "clip": re.compile(r"\b(?:in|from) (?:my|the|this|that|a) (?:[\w-]+ ){0,2}(?:videos?|clips?|recordings?|"
                             r"footage)\b|\.(?:mp4|avi|mov|mkv|webm)\b", re.I)}


_OTHER_MEDIUM = {"region": {"clip", "video"}, "clip": {"image", "region"}}  # a photo named, a video routed
_MEDIA = {"image", "region", "clip", "video"}
# the opening clause names the file a table ("In my diving results table (Sylvie Bernier first),"): not a
# table in a photo ("what is on the table in my photo?"), which names a photo as well
_TABLE_FILE = re.compile(r"^\s*(?:in|from)\s+(?:my|the|our)\s+(?:[\w'’-]+\s+){0,5}(?:databases?|spreadsheets?|tables?|"
                         r"csv|sheets?)\b(?:\s*\([^)]*\))?\s*,", re.I)


def named_kind(routes: list[Route], question: str, available: Set[str]) -> list[Route]:
    """A question that names the kind of file ("in my concert database", "my pets knowledge graph",
    "in my photo of zebras") goes to that kind when the router chose a structured kind it does not
    name, or the other medium ("in my short clip of someone reaching behind a computer" routed to
    photos): the words settle what the meaning cannot (the same subjects live in a database and in
    an RDF graph; "zebras" in a pets graph and in a photo). A question that names a PDF or another
    document goes to its passages from photos and videos ("my signed overlay PDF" is no photo), not
    from its tables (a PDF's printed tables are tables). A question that opens by naming its table
    ("In my diving results table, …") goes there from photos and videos too."""
    wanted = named_label(question, available)
    if wanted is None:
        return routes
    labels = [route.label for route in routes]
    replaced = _MEDIA if wanted == "paragraph" else set(STRUCTURED) | _OTHER_MEDIUM.get(wanted, set())
    if wanted == "table" and _TABLE_FILE.match(question):  # "diving" in a table named so is no video
        replaced |= _MEDIA
    if wanted in labels or not set(labels) & replaced:
        return routes
    out: list[Route] = []
    for route in routes:
        route = Route(wanted, route.confidence, Decision.NAMED) if route.label in replaced else route
        if route.label not in {r.label for r in out}:
            out.append(route)
    return out
