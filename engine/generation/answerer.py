"""From gathered hits to the cited answer: the relevant hits packed as numbered evidence, then the
answer that fits them (a computed result stated, a count, a find request's items, a look at a photo
with a vision-language model, or the LLM's cited answer), its citations renumbered in order."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.corpora import PARAGRAPH
from engine.generation import answer as answering
from engine.generation import finding
from engine.generation.evidence import Evidence, MomentEvidence, QueryEvidence, RegionEvidence, pack
from engine.generation.focus import focused
from engine.generation.untrusted import inline
from engine.grounding import counting, reading
from engine.locators import image_file, source_name
from engine.native.described import file_clause
from engine.native.hits import worded
from engine.result import AskResult, Citation, QueryRun, clock
from engine.retrieval.gathering import Gathered, timed
from engine.retrieval.hybrid import Hit
from engine.routing.base import Decision, Route
from engine.routing.checking import FIRST_PERSON
from engine.routing.labels import NATIVE

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.settings import Settings
    from local_stores.corpus_store import CorpusStore

NOTHING_RELEVANT = "Nothing in your files matches this question."
SURE_OF_SOURCE = 0.5  # a structured route this sure: a question its query failed on is not general knowledge
NOTHING_INDEXED = "Nothing is indexed yet: add a folder first (trove index PATH)."
_QUESTION = re.compile(r"^\s*(?:who|what|when|where|which|why|how|is|are|was|were|do|does|did|can|name|list)\b|\?\s*$",
                       re.IGNORECASE)
_WHEN = re.compile(r"^\s*(?:(?:in|on|during)\b[^,?]{0,120},\s*)?(when|at what (point|time|moment|second|minute)|"
                   r"what (time|minute|second)|how (far|long) into|which (moment|part|scene|clip))\b", re.IGNORECASE)
PHOTO_KINDS = ("region", "image")  # evidence a vision-language model looks at
TEXTS = ("paragraph", "document")  # evidence a closer look may cut to its lines


class Answerer:
    def __init__(self, store: CorpusStore, models: Models, settings: Settings) -> None:
        self.store, self.models, self.settings = store, models, settings

    def answer(self, question: str, gathered: Gathered, notices: list[str],
               on_token: Callable[[str], None] | None = None, general: bool = True) -> AskResult:
        """The answer to `question` from what was gathered for it, with its citations; the time of
        each stage is added to `gathered.timings`, which the result carries. Not `general`: a
        question the files do not answer is not answered from the model's own knowledge either
        (the turn before it was answered from the files: this one is about them too)."""
        timings = gathered.timings
        result = AskResult(question=question, answer="", routes=[r.as_dict() for r in gathered.routes],
                           queries=gathered.runs, notices=notices)
        relevant = [(kind, h) for kind, h in gathered.hits if h.relevance >= self.settings.min_relevance]
        routes = gathered.routes
        if routes and routes[0].router == Decision.EMPTY_INDEX:
            result.answer, result.answered = NOTHING_INDEXED, False
        elif not relevant and _asked_and_failed(gathered, question):
            result.answer, result.answered = queries_failed(gathered.runs), False
        elif not relevant and general and not _personal_record(question) and (
                {route.label for route in routes} == {"none"} or _general(question)):
            self._general(result, question, timings, on_token)
        elif not relevant:
            result.answer, result.answered = (NOTHING_RELEVANT if gathered.hits else answering.NOT_FOUND), False
        elif general and _general(question) and routes and routes[0].label == "none" and not _about_the_files(
                question, relevant):  # the router's general question: passages found by its words are not about it
            self._general(result, question, timings, on_token)
        else:
            self._cited(result, question, routes, relevant, gathered.vector, timings, on_token)
            if not result.answered and general and _general(question) and (
                    (routes and routes[0].label == "none") or not _about_the_files(question, relevant)):
                self._general(result, question, timings, on_token)  # no file holds it, nor speaks of it
        result.timings_ms = timings
        return result

    def _general(self, result: AskResult, question: str, timings: dict[str, float],
                 on_token: Callable[[str], None] | None) -> None:
        """The model's own answer, said to be general knowledge, with nothing cited."""
        with timed(timings, "generate"):
            draft = answering.general(self.models.llm, question, on_token=on_token)
        result.answer, result.answered, result.general = draft.text, False, True
        result.citations, result.model = [], self.models.llm.name

    def _cited(self, result: AskResult, question: str, routes: list[Route], relevant: list[tuple[str, Hit]],
               vector: np.ndarray, timings: dict[str, float], on_token: Callable[[str], None] | None) -> None:
        """The answer written from the relevant hits, packed as evidence, with its citations."""
        with timed(timings, "select"):
            excerpts = self._excerpts(relevant, vector)
            evidence = pack(relevant, self.settings.evidence_items, self.settings.evidence_tokens, excerpts)
        with timed(timings, "generate"):
            draft, model = self._draft(question, routes, evidence, on_token)
        result.model = model
        mapping = {old: new for new, old in enumerate(draft.cited, start=1)}
        result.answer = answering.renumber(draft.text, mapping)
        result.answered, result.unsupported, result.dropped = draft.answered, draft.unsupported, draft.dropped
        by_n = {e.n: e for e in evidence}
        result.citations = [Citation(n=mapping[old], kind=by_n[old].kind, source=by_n[old].source,
                                     locator=by_n[old].locator, text=by_n[old].text, title=by_n[old].title,
                                     score=round(by_n[old].score, 4)) for old in draft.cited]

    def _draft(self, question: str, routes: list[Route], evidence: list[Evidence],
               on_token: Callable[[str], None] | None) -> tuple[answering.Draft, str]:
        """The answer's draft and the model that wrote it."""
        evidence = on_subject(question, evidence)
        if not evidence:  # every item was a query result about something else than the question names
            if on_token:
                on_token(answering.NOT_BACKED)
            return answering.Draft(answering.NOT_BACKED, [], False, []), self.models.llm.name
        moment = _moment_answer(question, evidence)
        if moment is not None and not shows_asked(question, moment[0]):
            text = not_shown(moment[0])
            if on_token:
                on_token(text)
            return answering.Draft(text, [], False, []), self.models.llm.name
        computed = _computed_answer(evidence) or moment
        listing = None if computed else (counting.answer(question, evidence) or self._read(question, evidence) or (
            finding.answer(evidence, question) if finding.is_find(question) else None))
        if listing is not None:  # the detector's count, the text read in a photo, or a find request's items
            if on_token:
                on_token(listing.text)
            return listing, self.models.llm.name
        if computed is not None:  # an aggregate, a single row or a short list: the engine's result
            return self._stated(question, routes, evidence, computed, on_token), self.models.llm.name
        vlm = self.models.vlm
        if vlm is not None and evidence[0].kind in PHOTO_KINDS:
            try:
                return self._look(question, evidence), vlm.name
            except (ValueError, RuntimeError) as exc:  # the photo and prompt overflow its context: text answers
                log.warning("the VLM could not look at the photo, answered from the text: %s", exc)
        llm = self.models.llm
        closer = focused(question, [e for e in evidence if e.kind in TEXTS])
        return answering.generate(llm, question, evidence, self.settings.answer_max_tokens, on_token, closer), llm.name

    def _read(self, question: str, evidence: list[Evidence]) -> answering.Draft | None:
        """The text the OCR read in the photo, quoted, when no vision-language model is installed to
        read it itself (the VLM is only loaded for a question that asks to read)."""
        if not reading.asks_to_read(question) or self.models.vlm is not None:
            return None
        return reading.answer(question, evidence)

    def _stated(self, question: str, routes: list[Route], evidence: list[Evidence],
                computed: tuple[Evidence, list[str]], on_token: Callable[[str], None] | None) -> answering.Draft:
        ev, values = computed
        llm = self.models.llm
        if isinstance(ev, MomentEvidence):
            draft = answering.state_result(llm, question, _moment(ev), values, ev.n)
        elif isinstance(ev, QueryEvidence) and ev.listing is not None:
            draft = answering.state_rows(llm, question, ev.listing, source_name(ev.source, ev.locator), ev.n)
        else:
            draft = answering.state_result(llm, question, _facts(ev), values, ev.n)
        if on_token:
            on_token(draft.text)
        return self.and_the_rest(question, routes, evidence, ev, draft, on_token)

    def and_the_rest(self, question: str, routes: list[Route], evidence: list[Evidence], stated: Evidence,
                     draft: answering.Draft, on_token: Callable[[str], None] | None) -> answering.Draft:
        """A cross-modal question (a query result and the passages or photos that explain it): the
        result is stated as computed, and what the other kinds of evidence say is written after it."""
        labels = {route.label for route in routes if route.router != Decision.FALLBACK}
        if not (labels & set(NATIVE) and labels - set(NATIVE)):
            return draft
        others = [e for e in evidence if e.kind not in NATIVE and e.n != stated.n]
        if not others:
            return draft
        if on_token:
            on_token(" ")
        rest = answering.generate(self.models.llm, question, others, self.settings.answer_max_tokens, on_token)
        return answering.combine(draft, rest) if rest.answered and rest.cited else draft

    def _look(self, question: str, evidence: list[Evidence]) -> answering.Draft:
        """With a vision-language model: it sees the first photo of the evidence with the cited regions
        drawn and numbered as in the evidence, and the evidence text (GranuRAG's annotated image)."""
        from engine.grounding.annotate import annotate
        from engine.ingest.photos.image_io import load_photo

        vlm = self.models.vlm
        assert vlm is not None  # _draft looks only when one is installed
        photo = image_file(evidence[0].source, evidence[0].locator)
        boxed = [(e.box, e.called, e.n) for e in evidence
                 if isinstance(e, RegionEvidence) and e.box is not None and e.image == photo]
        image = annotate(load_photo(Path(photo)).image, [(b, label) for b, label, _ in boxed],
                         numbers=[n for _, _, n in boxed])
        messages = answering.build_messages(question, evidence)
        raw = vlm.look(image, messages[1]["content"], self.settings.answer_max_tokens, system=messages[0]["content"])
        return answering.finalise(raw, evidence, question)

    def _excerpts(self, hits: list[tuple[str, Hit]], vector: np.ndarray) -> dict[int, str]:
        """For document hits, the paragraphs that match the question best, in reading order."""
        out: dict[int, str] = {}
        for kind, hit in hits:
            if kind != "document" or len(hit.item.text.split()) < 300:
                continue
            paras = [p for p in self.store.file_items(hit.item.file_id, PARAGRAPH)
                     if hit.item.locator["start"] <= p.locator["start"] < hit.item.locator["end"]]
            vecs = self.store.vectors(PARAGRAPH, [p.id for p in paras])
            scored = sorted(paras, key=lambda p: -float(vecs[p.id] @ vector) if p.id in vecs else 0.0)[:5]
            keep = sorted(scored, key=lambda p: p.ord)
            out[hit.item.id] = " … ".join(p.text for p in keep)
        return out


def _asked_and_failed(gathered: Gathered, question: str) -> bool:
    """Whether the sources chosen for the question were asked and could not say (no query ran, or
    what ran found nothing), and the question is theirs: the router was sure of them
    (SURE_OF_SOURCE), or it does not read as general knowledge. "How many points did Ann Fargher
    have?", whose table holds no final points for her, is not one for the model's knowledge."""
    if not gathered.runs:
        return False
    sure = max((route.confidence for route in gathered.routes if route.label in NATIVE), default=0.0)
    return sure >= SURE_OF_SOURCE or not _general(question)


def queries_failed(runs: list[QueryRun]) -> str:
    """What to say when the sources chosen for a question could not be queried for it, or their
    queries found nothing: a question about a graph of one's family is not one for the model's
    general knowledge."""
    failed = [run for run in runs if not run.ok]
    if not failed:
        names = ", ".join(dict.fromkeys(run.source for run in runs))
        return f"I could not find this in {names}: the query I wrote for it found nothing that answers it."
    names = ", ".join(dict.fromkeys(run.source for run in failed))
    why = inline(failed[0].error or "no query ran", 200)
    if not any(run.query for run in failed):  # seen before any query was written: the source cannot say
        return f"I could not answer this from {names}: {why}."
    return (f"I could not answer this from {names}: no query I wrote for it ran ({why}). Rephrase the question "
            "with the names your data uses, or ask the source in its own language (trove query).")


def _about_the_files(question: str, relevant: list[tuple[str, Hit]]) -> bool:
    """Whether the files found speak of what the question names ("Who painted the Mona Lisa?" is not
    about a user's files when none of them names the Mona Lisa); True when it names nothing."""
    names = answering.subject_names(question)
    return not names or answering.mentions(names, [f"{hit.item.title} {hit.item.text}" for _, hit in relevant])


_ADVICE = re.compile(r"^\s*(?:how (?:do|can|should|could|would) (?:i|we)|what (?:should|can|could) (?:i|we)|"
                     r"should (?:i|we)|can (?:i|we)|is it (?:safe|ok|okay|good|bad)|"
                     r"what(?:'s| is) (?:the best|a good) way)\b", re.IGNORECASE)


def _personal_record(question: str) -> bool:
    """A question about what happened in the user's own life or things ("What did my dentist say at my
    last appointment?"): only their files can answer it, never the model's general knowledge. Advice
    in the first person ("How do I descale my kettle?") is not one."""
    return bool(FIRST_PERSON.search(question)) and not _ADVICE.match(question)


_RECORD = re.compile(r"\b(?:reports?|bulletins?|transcripts?|registers?|letters?|stud(?:y|ies)|articles?|papers?|"
                     r"abstracts?|pdfs?|files?|documents?|tables?|databases?|spreadsheets?|graphs?|photos?|"
                     r"pictures?|videos?|clips?|notes?|e-?mails?|mail|messages?|lists?|collection|records?|"
                     r"minutes|scripts?|books?|manuals?|polic(?:y|ies)|contracts?|invoices?|receipts?|"
                     r"statements?|forms?|surveys?|slides?|decks?|folders?)\b", re.IGNORECASE)


def _general(question: str) -> bool:
    """A question nothing in the files fits that is not about the user's own things nor about a
    record of any kind ("What is the boiling point of water?", routed to some kind of file by its
    words): the model answers it as general knowledge, and says so. "How many permit checks did
    Illinois have in the NICS report?" names a report: only the files answer it."""
    return bool(_QUESTION.search(question)) and not FIRST_PERSON.search(question) and not _RECORD.search(question)


def _computed_answer(evidence: list[Evidence]) -> tuple[Evidence, list[str]] | None:
    """The first evidence when it is a query result the answer can state whole: one row (a total, a
    count, a best row) or a short list of rows."""
    first = evidence[0] if evidence else None
    if not isinstance(first, QueryEvidence) or (first.values is None and first.listing is None):
        return None
    return first, [worded(v) for v in first.values or []]


def on_subject(question: str, evidence: list[Evidence]) -> list[Evidence]:
    """The evidence less the query results about something else than the question names (`_off_subject`):
    "$10.8 billion [1]" from a table's `rank = 1` row is no answer to how much Top Gun earned."""
    return [e for e in evidence if not (isinstance(e, QueryEvidence) and _off_subject(question, e))]


_FILTER = re.compile(r"\b(?:WHERE|FILTER)\b", re.IGNORECASE)
_TEXT_VALUE = re.compile(r"'[^']+'|\"[^\"]+\"")


def _off_subject(question: str, result: QueryEvidence) -> bool:
    """A query result that cannot be about what the question names: its query picks rows by numbers
    alone (no text value), and neither the query nor its rows name anything the question names
    ("How much did Top Gun earn?" answered by `WHERE rank = 1`). A query with no filter (a count of
    a whole table) is not judged: the question's names may be what the table is about."""
    names = answering.subject_names(question) - answering.subject_names(file_clause(question))  # not its file's
    query = str(result.locator.get("query", ""))
    if not names or not _FILTER.search(query) or _TEXT_VALUE.search(query):
        return False
    rows = [" ".join(map(str, row)) for row in result.locator.get("result_rows", [])]  # the text repeats the question
    return not answering.mentions(names, [query.replace("_", " "), *rows])


def _facts(ev: Evidence) -> str:
    """A one-row result as "column = value" facts (empty for anything else)."""
    return ev.locator.get("result", "") if isinstance(ev, QueryEvidence) else ""


def _moment_answer(question: str, evidence: list[Evidence]) -> tuple[MomentEvidence, list[str]] | None:
    """A "when in the video…" question whose best evidence is a clip: the answer is that clip's time
    span, stated from its locator (a small model misreads times it is shown)."""
    ev = evidence[0] if evidence else None
    if not isinstance(ev, MomentEvidence) or ev.kind != "clip" or not _WHEN.search(question):
        return None
    return ev, [clock(ev.start_s), clock(ev.end_s)]


_CLIP_FRAME = re.compile(r"^Clip \d+ of \d+ of the video .*$|^(?:Said|Shows|Text on screen|Looks like):", re.MULTILINE)
_MOMENT_WORDS = frozenset("""video videos clip clips moment moments second seconds minute minutes time point scene
scenes shot shots part happen happens happened start starts begin begins end ends appear appears come comes
first last does did cut cuts""".split())


SHOWN_SHARE = 1 / 3  # of the words a question asks about that a clip's description must hold


def shows_asked(question: str, clip: MomentEvidence) -> bool:
    """Whether a clip's own description (what is said, shown, written and what it looks like) holds
    a third of what the question asks about beyond the video's name: a dog nobody saw in it has no
    moment, and "the brown leaf lying on a dark rock" is not the clip labelled "rock crab"."""
    asked = answering.content_words(question) - answering.content_words(Path(clip.source).stem) - _MOMENT_WORDS
    if not asked:
        return True
    held = answering.content_words(_CLIP_FRAME.sub(" ", clip.text))
    return answering.shared(asked, held) >= SHOWN_SHARE * len(asked)


def not_shown(clip: MomentEvidence) -> str:
    """What the files do show when no clip shows what a question asks about."""
    seen = [line for line in clip.text.splitlines()[1:] if line.strip()]
    what = f": {' '.join(seen)}" if seen else ""
    return (f"Your videos do not show this. The nearest moment, {Path(clip.source).name} from "
            f"{clock(clip.start_s)} to {clock(clip.end_s)}, shows nothing it asks about{what}")


def _moment(ev: MomentEvidence) -> str:
    said = re.search(r"^Said: (.*)$", ev.text, re.MULTILINE)
    words = f' (said there: "{said.group(1)}")' if said else ""
    return f"from {clock(ev.start_s)} to {clock(ev.end_s)} in {Path(ev.source).name}{words}"
