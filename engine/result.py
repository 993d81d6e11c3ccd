"""The result of `ask`: one object for the CLI's --json and the desktop app. Keep it stable."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from engine.locators import (
    Locator,
    as_locator,
    attachment_words,
    mail_words,
    on_server,
    page_words,
    picture_words,
    source_name,
)

LANGUAGES = {"sql": "SQL", "cypher": "Cypher", "sparql": "SPARQL"}


@dataclass
class Citation:
    n: int
    kind: str  # paragraph | document | table | graph | rdf | image | region | clip | video
    source: str  # the file
    locator: Locator  # the kind's shape (engine.locators); citation_place says it in words
    text: str
    title: str = ""
    score: float = 0.0


@dataclass
class QueryRun:
    language: str
    source: str
    query: str
    ok: bool
    error: str | None = None
    rows: int = 0


@dataclass
class AskResult:
    question: str
    answer: str
    citations: list[Citation] = field(default_factory=list)
    routes: list[dict] = field(default_factory=list)
    queries: list[QueryRun] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    answered: bool = True  # False when the files hold nothing that answers the question
    general: bool = False  # answered from the model alone (route `none`), not from the files
    unsupported: list[str] = field(default_factory=list)  # answer sentences their citations do not back
    dropped: list[dict] = field(default_factory=list)  # {"sentence", "why"}: not shown, the files do not back it
    model: str = ""
    notices: list[str] = field(default_factory=list)  # what was changed about the question (cut to length)
    asked_as: str = ""  # a follow-up as the standalone question it was answered as ("" when asked as typed)
    scope: dict = field(default_factory=dict)  # the part of the disk it was kept to (engine.scope.Scope.as_dict)

    def to_dict(self) -> dict:
        return {
            "question": self.question,
            "asked_as": self.asked_as or self.question,
            "answer": self.answer,
            "citations": [asdict(c) for c in self.citations],
            "routes": self.routes,
            "queries": [asdict(q) for q in self.queries],
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
            "answered": self.answered,
            "general": self.general,
            "unsupported": self.unsupported,
            "dropped": self.dropped,
            "model": self.model,
            "notices": self.notices,
            "scope": self.scope,
        }

    @classmethod
    def from_dict(cls, data: dict) -> AskResult:
        """The result `to_dict` gave (a stored conversation turn), timings and all."""
        asked_as = data.get("asked_as", "")
        return cls(question=data.get("question", asked_as), answer=data["answer"],
                   citations=[_citation(c) for c in data.get("citations", [])], routes=data.get("routes", []),
                   queries=[QueryRun(**q) for q in data.get("queries", [])],
                   timings_ms=data.get("timings_ms", {}), answered=data.get("answered", True),
                   general=data.get("general", False), unsupported=data.get("unsupported", []),
                   dropped=data.get("dropped", []), model=data.get("model", ""), notices=data.get("notices", []),
                   asked_as="" if asked_as == data.get("question") else asked_as, scope=data.get("scope", {}))


def _citation(data: dict) -> Citation:
    return Citation(**{**data, "locator": as_locator(data.get("locator", {}))})


def clock(seconds: float) -> str:
    """`75.4` -> `1:15`: a moment in a video as a player shows it."""
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}:{rest:02d}"


def citation_place(source: str, locator: Locator, rows_shown: int = 12) -> str:
    """Where a citation points, in words (the CLI and the app both show it): the file with its sheet and
    rows, the box in a photo, the seconds of a video, the page and characters."""
    where = source_name(source, locator) + (f" at {source}" if on_server(source) else "")
    if "query" in locator:
        rows = locator.get("rows")
        where += f", {attached}" if (attached := attachment_words(locator)) else ""
        where += f", sheet {locator['sheet']}" if locator.get("sheet") else ""
        if rows:
            where += f", rows {', '.join(map(str, rows[:rows_shown]))}{'…' if len(rows) > rows_shown else ''}"
        return where
    if picture := picture_words(locator):  # a picture inside a document: where in it
        where += "".join(f", {words}" for words in (page_words(locator), picture) if words)
    if "box" in locator:
        box = ", ".join(str(round(v)) for v in locator["box"])
        return f"{where}, box ({box}) of {locator.get('width')}x{locator.get('height')}"
    if "start_s" in locator:
        return f"{where}, {clock(locator['start_s'])}–{clock(locator['end_s'])}"
    if "width" in locator:
        return f"{where}, whole {'picture' if picture else 'photo'}"
    where += "".join(f", {words}" for words in (page_words(locator), mail_words(locator)) if words)
    if "start" in locator:
        where += f", chars {locator.get('start')}-{locator.get('end')}"
    return where
