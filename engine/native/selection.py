"""Picking the few structured sources that may answer a question: a cheap prefilter on descriptor
embeddings (raised for the sources that hold values the question names, see `values`, and for those
whose columns or properties the question names), whose first is taken; or, with the setting
`source_llm_choice`, the LLM choosing from the short list (grammar-constrained) unless one source
leads clearly."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

from engine.generation.budget import Budget
from engine.generation.untrusted import inline
from engine.native.sources import Source, part_texts, summary_text
from engine.native.values import STOPWORDS, singular, source_evidence
from engine.native.writers.summary import stem

if TYPE_CHECKING:
    from engine.runtimes.embedders import TextEmbedderLike
    from engine.runtimes.llm import JsonChatModel
    from engine.settings import Settings
    from local_stores.value_index import ValueIndex

SELECT_PROMPT = """You choose which data sources can answer a question. Each source is a table, a \
database, a graph or an RDF file from the user's files. Reply with the names of the sources needed \
(usually one), best first."""


class SourceIndex:
    """Descriptor vectors, computed once per catalog state: one for the whole source and one per
    table, node label or class (its name with its columns or properties), so a source with many
    parts is found by the part a question is about. A source scores its best vector."""

    def __init__(self, embedder: TextEmbedderLike) -> None:
        self.embedder = embedder
        self._key: tuple = ()
        self._sources: list[Source] = []
        self._owner = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._fields: dict[str, set[str]] = {}  # per source, the words naming its tables, columns, properties

    def refresh(self, sources: list[Source]) -> None:
        key = tuple((s.name, s.location, str(s.descriptor)) for s in sources)
        if key != self._key:
            texts, owner = [], []
            for i, source in enumerate(sources):
                for text in [summary_text(source), *part_texts(source)]:
                    texts.append(text)
                    owner.append(i)
            self._sources = sources
            self._owner = np.array(owner, dtype=np.int64)
            self._matrix = self.embedder.embed(texts) if texts else self._matrix
            self._fields = {source.name: field_words(source) for source in sources}
            self._key = key

    def sources(self) -> list[Source]:
        return self._sources

    def field_evidence(self, question: str) -> dict[str, float]:
        """Per source, how strongly the question names its tables, columns or properties ("jockeys",
        "purses"): each word counts by how few sources have it (one every source has counts nothing)."""
        asked = naming_words(question)
        total = max(len(self._fields), 2)
        holders: dict[str, list[str]] = {}
        for name, fields in self._fields.items():
            for word in asked & fields:
                holders.setdefault(word, []).append(name)
        out: dict[str, float] = {}
        for names in holders.values():
            weight = math.log(total / len(names)) / math.log(total)
            for name in names:
                out[name] = out.get(name, 0.0) + weight
        return out

    def nearest_per_kind(self, vector: np.ndarray, bonus: dict[str, float] | None = None) -> dict[str, float]:
        """Per source kind, the similarity of its source nearest the question (routing evidence), each
        source's raised by its `bonus` when given (the score `nearest` ranks by)."""
        if not self._sources:
            return {}
        best = np.full(len(self._sources), -1.0, dtype=np.float32)
        np.maximum.at(best, self._owner, self._matrix @ vector)
        if bonus:
            best += np.array([bonus.get(source.name, 0.0) for source in self._sources], dtype=np.float32)
        kinds = np.array([source.kind for source in self._sources])
        return {str(kind): float(best[kinds == kind].max()) for kind in np.unique(kinds)}

    def nearest(self, vector: np.ndarray, k: int, kinds: set[str] | None = None,
                bonus: dict[str, float] | None = None, among: frozenset[str] | None = None
                ) -> list[tuple[Source, float]]:
        """The k sources (of `kinds`, and named `among`, when given) whose descriptors are nearest to
        the question, each source's similarity raised by its `bonus` (the values of it the question
        names)."""
        if not self._sources:
            return []
        best = np.full(len(self._sources), -1.0, dtype=np.float32)
        np.maximum.at(best, self._owner, self._matrix @ vector)
        if bonus:
            best += np.array([bonus.get(source.name, 0.0) for source in self._sources], dtype=np.float32)
        order = [i for i in np.argsort(-best) if (kinds is None or self._sources[i].kind in kinds)
                 and (among is None or self._sources[i].name in among)][:k]
        return [(self._sources[i], float(best[i])) for i in order]


def bonus(index: SourceIndex, question: str, held: ValueIndex, settings: Settings) -> dict[str, float]:
    """Per source, the similarity it gains for holding values the question names and for having the
    fields it names, each word weighted by how few sources share it, and the similarity it gains or
    loses for the year its name gives (`year_evidence`)."""
    out = {name: settings.source_value_weight * v for name, v in source_evidence(question, held).items()}
    for name, v in index.field_evidence(question).items():
        out[name] = out.get(name, 0.0) + settings.source_field_weight * v
    for name, v in year_evidence(question, index.sources()).items():
        out[name] = out.get(name, 0.0) + settings.source_year_weight * v
    return out


_YEAR = re.compile(r"(?<![\d.,])(?:19|20)\d\d(?![\d%]|[.,]\d)")  # in a date too ("7/1/2015"), not in 2024.5


def year_evidence(question: str, sources: list[Source]) -> dict[str, float]:
    """Per source named for a year ("expenses-2024.csv", "budget 2025.xlsx"), +1 when the question
    asks about that year, -1 when it asks about another year only: a person's files named by year
    hold that year's figures."""
    asked = set(_YEAR.findall(question))
    if not asked:
        return {}
    out: dict[str, float] = {}
    for source in sources:
        named = set(_YEAR.findall(stem(source)))
        if named:
            out[source.name] = 1.0 if named & asked else -1.0
    return out


_WORD = re.compile(r"[A-Za-z]{4,}")


def naming_words(text: str) -> set[str]:
    """The words of `text` that can name a field: four letters or more, no stopword, stemmed."""
    return {singular(w.lower()) for w in _WORD.findall(text) if w.lower() not in STOPWORDS}


def field_words(source: Source) -> set[str]:
    """The words naming a source's tables, columns, node labels, relationships and properties (not
    its file name, which the descriptor embedding already matches)."""
    prefix = f"{stem(source)}: "
    return naming_words(" ".join(text.removeprefix(prefix) for text in part_texts(source))) - naming_words(stem(source))


def leads(candidates: list[tuple[Source, float]], clear_lead: float | None) -> bool:
    """Whether the first candidate is ahead of the next by `clear_lead` or more (None: never)."""
    return clear_lead is not None and len(candidates) > 1 and candidates[0][1] - candidates[1][1] >= clear_lead


def choose(llm: JsonChatModel | None, question: str, candidates: list[tuple[Source, float]], k: int,
           notes: dict[str, str] | None = None, clear_lead: float | None = None) -> list[Source]:
    """The LLM's pick among the prefiltered candidates (their order without an LLM, or when it picks none);
    `notes` tells it, per source, the values of it the question names. A first candidate whose
    score leads the next by `clear_lead` or more is taken without asking."""
    if len(candidates) <= 1 or llm is None:
        return [s for s, _ in candidates[:k]]
    if leads(candidates, clear_lead):
        return [candidates[0][0]]
    names = [s.name for s, _ in candidates]
    listing = _listing(candidates, notes or {})
    question = Budget.of(llm).question(question)
    schema = {"type": "object", "properties": {"sources": {"type": "array", "items": {"type": "string", "enum": names},
                                                           "minItems": 1, "maxItems": k}},
              "required": ["sources"]}
    out = llm.chat_json([{"role": "system", "content": SELECT_PROMPT},
                         {"role": "user", "content": f"Sources:\n{listing}\n\nQuestion: {question}"}],
                        schema, max_tokens=60)
    picked = [n for n in dict.fromkeys(out.get("sources", [])) if n in names]
    by_name = {s.name: s for s, _ in candidates}
    return [by_name[n] for n in picked] or [s for s, _ in candidates[:1]]


def _listing(candidates: list[tuple[Source, float]], notes: dict[str, str]) -> str:
    """One line per candidate: its name and what it holds (file-given texts neutralised, cut), and
    the values of it the question names."""
    return "\n".join(f"- {s.name}: {inline(summary_text(s), 300)}"
                     + (f"\n  holds what the question names: {inline(notes[s.name], 300)}" if s.name in notes else "")
                     for s, _ in candidates)
