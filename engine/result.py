"""The result of `ask`: one object for the CLI's --json and the desktop app. Keep it stable."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Citation:
    n: int
    kind: str  # paragraph | document (later: table, graph, rdf, image, region, clip, video)
    source: str  # the file
    locator: dict  # page, start, end (later sheet/rows, box, start_s/end_s)
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
    model: str = ""

    def to_dict(self) -> dict:
        return {
            "answer": self.answer,
            "citations": [asdict(c) for c in self.citations],
            "routes": self.routes,
            "queries": [asdict(q) for q in self.queries],
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
            "answered": self.answered,
            "general": self.general,
            "unsupported": self.unsupported,
            "model": self.model,
        }
