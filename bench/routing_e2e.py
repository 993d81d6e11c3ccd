"""Routing end to end (UniversalRAG): answers routed by Trove's router against retrieving from every
corpus at once (unified), one random corpus, and the gold corpora (oracle); and ask latency against
the size of the paragraph corpus, routed vs unified, in one run.

    .venv/bin/python -m bench.routing_e2e [--llm default] [--router NAME] [--limit 0] [--parts e2e,scale]
        [--sizes 1000,10000,100000] [--scale-llm fast] [--out bench/out]

Part `e2e`: examples/ is indexed once into a temporary home (models from TROVE_MODELS_DIR, else the
default home's), then every question of examples/questions.toml and of bench/routing_questions.toml
is asked four ways with `Trove.ask(question, labels=...)`:
- routed: the Trove's own router (`--router`, default the settings' `router`);
- unified: every label whose corpus or source exists in the index, all at once;
- random: one available label drawn at random (fixed `--seed`, the same draw for every run);
- oracle: the question's gold label(s).
A mode that follows the same labels as an earlier mode for the same question reuses that answer
(greedy decoding: the same prompt gives the same answer), so routed costs an ask only where it differs
from oracle. Correct = `bench.pipeline.judge` (the expected strings and a citation of the expected file); for a
gold route `none` only the expected strings count (a general answer cites nothing). Attribution =
share of the sentences of answers that carry a citation that supports them, i.e. 1 - unsupported
sentences (`AskResult.unsupported`) / sentences (`split_sentences`); an answer from the model alone
(`general`) counts all its sentences as unsupported; "nothing found" answers have no sentences.

Part `scale`: the paragraph corpus is grown to each of `--sizes` items, beside the other corpora of
examples/. `--base` real paragraphs (Cranfield and CISI documents of ../shared/eval/text, cut by
Trove's own chunker; the example paragraphs when that data is absent) are embedded once; copies of
them, each with a slightly perturbed unit vector (cosine ~0.995 to the original), are written as
files of 20 paragraphs under a followed folder, registered in the catalog (path, size, mtime,
sha256, state `indexed`) and added to the vector store in the same transaction, as the indexer
would. At each size, for a fixed set of questions: `Trove.gather` (route + native queries +
retrieval, no answer generation) routed vs unified, and `Trove.ask` for `--scale-ask` questions,
with the `--scale-llm` model. Gathers that follow a table/graph/rdf route run native queries (the LLM
writes SQL/Cypher/SPARQL: seconds, whatever the size), so the table also gives gather less that
`query` stage, and the `retrieve` stage alone (the part that reads the text corpora).

Writes `routing_e2e.md` and `routing_e2e.json` under `--out`; a part not run keeps its earlier
results in the JSON (each part records its own command and date).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shlex
import statistics
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

if TYPE_CHECKING:
    from local_stores.corpus_store import Item

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EXTRA = ROOT / "bench" / "routing_questions.toml"
EVAL_TEXT = ROOT.parent / "shared" / "eval" / "text"
MODES = ("routed", "unified", "random", "oracle")
STAGES = ("route", "query", "retrieve", "ground", "fallback", "select", "generate")
FILE_PARAGRAPHS = 20  # paragraphs per synthetic file
NOISE = 0.1  # norm of the perturbation added to a copy's unit vector (cosine to the original ~0.995)
TABLE_SUFFIXES = {".csv", ".tsv", ".xlsx", ".xls", ".ods", ".sqlite", ".db", ".duckdb", ".parquet"}
GRAPH_SUFFIXES = {".cypher", ".graphml", ".gml"}
RDF_SUFFIXES = {".ttl", ".rdf", ".nt", ".nq", ".trig", ".jsonld", ".owl", ".n3"}


def progress_bar(iterable: Iterable | None = None, **kwargs: object) -> tqdm:
    """A tqdm bar on stderr that writes few lines when stderr is a log file, not a terminal."""
    return tqdm(iterable, file=sys.stderr, mininterval=0.1 if sys.stderr.isatty() else 10.0, **kwargs)


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def every(items: list, limit: int) -> list:
    """`limit` items taken evenly across `items` (all of them for 0)."""
    if not limit or len(items) <= limit:
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


# -- questions ---------------------------------------------------------------------------------
def gold_labels(q: dict) -> list[str]:
    """The gold route of a question: its `labels`, else its citation `kind`, else what its source is."""
    if q.get("labels"):
        return list(q["labels"])
    if q.get("kind"):
        return [q["kind"]]
    source = q.get("source", "")
    suffix = Path(source).suffix.lower()
    if source == "vault" or suffix in GRAPH_SUFFIXES:
        return ["graph"]
    if suffix in RDF_SUFFIXES:
        return ["rdf"]
    if suffix in TABLE_SUFFIXES or source.startswith("media:"):
        return ["table"]
    if source.startswith("photos/"):
        return ["image"]
    if source.startswith("videos/"):
        return ["clip"]
    return ["paragraph"]  # notes and documents; a question answered by no file would be answered there


def load_questions(extra: Path | None, limit: int) -> list[dict]:
    """examples/questions.toml, then the extra file, each question with `set` and `gold`."""
    out = []
    files = [("examples", EXAMPLES / "questions.toml")] + ([("extra", extra)] if extra else [])
    for name, path in files:
        with path.open("rb") as fh:
            for q in tomllib.load(fh)["question"]:
                out.append({**q, "set": name, "gold": gold_labels(q)})
    return every(out, limit)


def score(result: dict, q: dict) -> bool:
    from bench.pipeline import judge

    if q["gold"] == ["none"]:
        return bool(q["expect"]) and all(e.lower() in result["answer"].lower() for e in q["expect"])
    return judge(result, q)


def attribution(result: dict) -> tuple[int, int]:
    """(sentences, unsupported sentences) of one answer."""
    from engine.generation.answer import GENERAL_NOTE, split_sentences

    if result["general"]:
        n = len(split_sentences(result["answer"].removeprefix(GENERAL_NOTE)))
        return n, n
    if not result["answered"]:
        return 0, 0
    n = len(split_sentences(result["answer"]))
    return n, min(len(result["unsupported"]), n)


# -- the Trove ---------------------------------------------------------------------------------
def open_trove(home: Path, llm: str, router: str | None, threads: int, share=None):  # noqa: ANN001, ANN201
    """A Trove on `home` with the installed models; `share`: a Trove whose loaded encoders it reuses."""
    from engine.pipeline import Trove
    from engine.settings import default_home, default_models_dir, load_settings

    settings = load_settings(home, models_dir=default_models_dir(default_home()), llm=llm, router=router,
                             threads=threads)
    trove = Trove(settings)
    if share is not None:
        trove.models.embedder, trove.models.vision = share.models.embedder, share.models.vision
    return trove


def index_examples(trove) -> dict:  # noqa: ANN001
    from engine.ingest.indexer import Progress

    bar = progress_bar(desc="index examples/", unit="file")

    def update(p: Progress) -> None:
        bar.total = p.total
        bar.update(p.done - bar.n)

    t0 = time.perf_counter()
    report = trove.index([EXAMPLES], update)
    bar.close()
    seconds = time.perf_counter() - t0
    for path, state, reason in report.problems:
        print(f"  note: {path}: {state}: {reason}", file=sys.stderr)
    return {"seconds": seconds, "files": report.indexed, "items": report.items,
            "timings_s": {k: round(v, 2) for k, v in report.timings_s.items()}}


def available_labels(trove) -> list[str]:  # noqa: ANN001
    """The labels whose corpus or structured source exists in this index (as `Trove.route` limits them)."""
    from engine.routing.labels import LABELS, NATIVE, ORDER

    corpora = trove.store.corpora()
    kinds = {src["kind"] for src in trove.catalog.sources()}
    found = {label for label, corpus in LABELS.items() if corpus and corpus in corpora}
    found |= {label for label, source_kinds in NATIVE.items() if kinds & set(source_kinds)}
    return [label for label in ORDER if label in found]


def safe_ask(trove, question: str, labels: list[str] | None) -> dict:  # noqa: ANN001
    """`Trove.ask(...).to_dict()`; an exception is recorded as an unanswered result (the run goes on)."""
    t0 = time.perf_counter()
    try:
        return trove.ask(question, labels=labels).to_dict()
    except Exception as exc:  # noqa: BLE001 (one failing question must not end a run of hours)
        print(f"  error: {question!r} with labels {labels}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return {"answer": "", "citations": [], "routes": [], "queries": [], "answered": False, "general": False,
                "unsupported": [], "timings_ms": {"total": (time.perf_counter() - t0) * 1000},
                "error": f"{type(exc).__name__}: {exc}"}


def stage_line(timings: dict[str, float]) -> str:
    parts = [f"{s} {timings[s]:,.0f}" for s in STAGES if s in timings]
    return f"total {timings.get('total', 0.0):,.0f} ms (" + ", ".join(parts) + ")"


# -- part e2e ----------------------------------------------------------------------------------
def ask_once(trove, question: str, labels: list[str] | None, mode: str,  # noqa: ANN001
             asked: dict[frozenset, tuple[str, dict]]) -> tuple[dict, str | None]:
    """The answer of `mode`, and the mode whose answer it reuses. Following the same route labels gives
    the same answer (greedy decoding of the same prompt), so a mode whose labels were already followed
    for this question reuses that answer; routed mode routes first (timed as its `route` stage) and its
    routes, with their confidences and router, replace the given ones."""
    routes, route_ms = None, 0.0
    if labels is None:
        t0 = time.perf_counter()
        routes = [r.as_dict() for r in trove.route(question)]
        route_ms = (time.perf_counter() - t0) * 1000
        labels = [r["label"] for r in routes]
    key = frozenset(labels)
    reused = asked[key][0] if key in asked else None
    if not reused:
        asked[key] = (mode, safe_ask(trove, question, labels))
    result = json.loads(json.dumps(asked[key][1]))  # a copy: the stored answer keeps the given routes
    if routes is not None:
        result["routes"] = routes + [r for r in result["routes"] if r.get("router") == "fallback"]
        timings = result["timings_ms"]
        timings["total"] = timings.get("total", 0.0) - timings.get("route", 0.0) + route_ms
        timings["route"] = route_ms
    return result, reused


def run_e2e(trove, questions: list[dict], modes: list[str], seed: int) -> dict:  # noqa: ANN001
    available = available_labels(trove)
    rng = random.Random(seed)
    draws = [rng.choice(available) for _ in questions]  # drawn up front: the same whatever the modes
    runs = []
    bar = progress_bar(total=len(questions) * len(modes), desc="ask", unit="ask")
    for q, drawn in zip(questions, draws, strict=True):
        asked: dict[frozenset, tuple[str, dict]] = {}  # this question's answers by the route labels followed
        for mode in modes:
            labels = {"routed": None, "unified": available, "random": [drawn], "oracle": q["gold"]}[mode]
            result, reused = ask_once(trove, q["text"], labels, mode, asked)
            correct = score(result, q) and not result.get("error")
            sentences, unsupported = attribution(result)
            routes = [r["label"] for r in result["routes"] if r.get("router") != "fallback"]
            runs.append({"question": q["text"], "set": q["set"], "gold": q["gold"], "mode": mode,
                         "labels": labels, "routes": result["routes"], "route_exact": set(routes) == set(q["gold"]),
                         "correct": correct, "answered": result["answered"], "general": result["general"],
                         "answer": result["answer"], "sentences": sentences, "unsupported": unsupported,
                         "unsupported_sentences": result["unsupported"], "timings_ms": result["timings_ms"],
                         "citations": [{"kind": c["kind"], "source": c["source"]} for c in result["citations"]],
                         "queries": [{"language": x["language"], "source": x["source"], "ok": x["ok"]}
                                     for x in result["queries"]], "error": result.get("error"),
                         "reused_from": reused})
            bar.update(1)
            mark = "ok" if correct else "XX"
            bar.write(f"{mark} {mode:8} [{'+'.join(routes) or '-'}] {stage_line(result['timings_ms'])}  "
                      f"{q['text'][:60]}")
    bar.close()
    return {"available": available, "seed": seed, "summary": summarise_e2e(runs, modes), "runs": runs}


def summarise_e2e(runs: list[dict], modes: list[str]) -> dict:
    out = {}
    for mode in modes:
        mine = [r for r in runs if r["mode"] == mode]
        totals = [r["timings_ms"].get("total", 0.0) for r in mine]
        sentences = sum(r["sentences"] for r in mine)
        unsupported = sum(r["unsupported"] for r in mine)
        out[mode] = {
            "n": len(mine), "correct": sum(r["correct"] for r in mine),
            "accuracy": sum(r["correct"] for r in mine) / max(len(mine), 1),
            "by_set": {s: {"n": sum(r["set"] == s for r in mine),
                           "correct": sum(r["correct"] for r in mine if r["set"] == s)}
                       for s in dict.fromkeys(r["set"] for r in mine)},
            "route_exact": sum(r["route_exact"] for r in mine) / max(len(mine), 1),
            "ms_mean": mean(totals), "ms_median": median(totals),
            "stages_ms_mean": {s: mean([r["timings_ms"].get(s, 0.0) for r in mine]) for s in STAGES},
            "answered": sum(r["answered"] for r in mine), "general": sum(r["general"] for r in mine),
            "sentences": sentences, "unsupported": unsupported,
            "attribution": 1 - unsupported / sentences if sentences else None,
            "answers_with_unsupported": sum(1 for r in mine if r["unsupported"]),
            "errors": sum(1 for r in mine if r.get("error")),
        }
    return out


def render_e2e(e2e: dict) -> str:
    s = e2e["summary"]
    lines = ["## Routed vs unified vs random vs oracle\n",
             f"date: {e2e['date']}  \ncommand: `{e2e['command']}`  \nLLM: {e2e['model']}; router: {e2e['router']}; "
             f"available labels: {', '.join(e2e['available'])}  \nquestions: {e2e['questions']} "
             f"({', '.join(f'{k} {v}' for k, v in e2e['question_sets'].items())}); examples/ indexed in "
             f"{e2e['index']['seconds']:.0f} s ({e2e['index']['items']} items)\n",
             "| mode | accuracy | " + " | ".join(f"{k}" for k in next(iter(s.values()))["by_set"]) +
             " | routes = gold | mean ms | median ms | attribution (supported / sentences) | answers with an "
             "unsupported sentence | answered | general |",
             "|---|---:|" + "---:|" * len(next(iter(s.values()))["by_set"]) + "---:|---:|---:|---:|---:|---:|---:|"]
    for mode, r in s.items():
        att = (f"{r['attribution']:.1%} ({r['sentences'] - r['unsupported']}/{r['sentences']})"
               if r["attribution"] is not None else "–")
        lines.append(f"| {mode} | {r['correct']}/{r['n']} = {r['accuracy']:.0%} | "
                     + " | ".join(f"{v['correct']}/{v['n']}" for v in r["by_set"].values())
                     + f" | {r['route_exact']:.0%} | {r['ms_mean']:,.0f} | {r['ms_median']:,.0f} | {att} | "
                       f"{r['answers_with_unsupported']} | {r['answered']} | {r['general']} |")
    if any(r.get("errors") for r in s.values()):
        lines += ["", "Asks that raised an error (counted wrong): "
                  + ", ".join(f"{mode} {r['errors']}" for mode, r in s.items() if r.get("errors"))]
    lines += ["", "Mean ms per stage (`AskResult.timings_ms`; a stage a question did not go through counts 0):", "",
              "| mode | " + " | ".join(STAGES) + " |", "|---|" + "---:|" * len(STAGES)]
    for mode, r in s.items():
        lines.append(f"| {mode} | " + " | ".join(f"{r['stages_ms_mean'][st]:,.0f}" for st in STAGES) + " |")
    lines += ["", "Per question (✓ correct, ✗ wrong; the routes each mode followed):", "",
              "| question | gold | " + " | ".join(s) + " |", "|---|---|" + "---|" * len(s)]
    by = {(r["question"], r["mode"]): r for r in e2e["runs"]}
    for q in dict.fromkeys(r["question"] for r in e2e["runs"]):
        first = next(r for r in e2e["runs"] if r["question"] == q)
        cells = []
        for mode in s:
            r = by.get((q, mode))
            routes = "+".join(x["label"] for x in r["routes"]) if r else ""
            cells.append(f"{'✓' if r and r['correct'] else '✗'} {routes}" if r else "–")
        lines.append(f"| {q} | {'+'.join(first['gold'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# -- part scale --------------------------------------------------------------------------------
def base_paragraphs(trove, n: int, work: Path) -> tuple[list, np.ndarray, dict]:  # noqa: ANN001
    """`n` real paragraphs (Cranfield, then CISI, cut by Trove's chunker) with their vectors, embedded
    once; the example paragraphs already indexed when ../shared/eval is absent."""
    from bench.retrieval import doc_file_text, read_jsonl
    from engine.corpora import PARAGRAPH
    from engine.errors import TroveError
    from engine.ingest.documents import cut_document, embedding_text

    items: list[Item] = []
    origin = "examples/ paragraphs (../shared/eval/text is absent)"
    folders = [EVAL_TEXT / name for name in ("cranfield", "cisi") if (EVAL_TEXT / name / "corpus.jsonl").is_file()]
    for folder in folders:
        origin = "Cranfield + CISI documents (../shared/eval/text), cut by Trove's chunker"
        (work / folder.name).mkdir(parents=True, exist_ok=True)
        for doc in read_jsonl(folder / "corpus.jsonl"):
            if len(items) >= n:
                break
            path = work / folder.name / f"{doc['_id']}.txt"
            path.write_text(doc_file_text(doc.get("title") or "", doc.get("text") or ""), encoding="utf-8")
            try:
                prepared = cut_document(path, trove.settings.paragraph_words, trove.settings.document_tokens)
            except TroveError:
                continue  # an empty document
            items += [it for it in prepared.items if it.corpus == PARAGRAPH][: n - len(items)]
    if not items:
        ids = [r[0] for r in trove.db.query("SELECT id FROM items WHERE corpus = ? ORDER BY id", (PARAGRAPH,))]
        found = trove.store.items(ids)
        vecs = trove.store.vectors(PARAGRAPH, ids)
        items = [found[i] for i in ids if i in vecs][:n]
        return items, np.vstack([vecs[it.id] for it in items]), {"from": origin, "paragraphs": len(items),
                                                                 "embed_s": 0.0}
    _ = trove.models.embedder  # loaded outside the timing
    t0 = time.perf_counter()
    chunks = []
    for start in progress_bar(range(0, len(items), 256), desc="embed base paragraphs", unit="batch"):
        chunks.append(trove.models.embedder.embed([embedding_text(it) for it in items[start:start + 256]]))
    seconds = time.perf_counter() - t0
    return items, np.vstack(chunks).astype(np.float32), {"from": origin, "paragraphs": len(items),
                                                         "embed_s": seconds}


class Grower:
    """Adds copies of the base paragraphs to the paragraph corpus, as files of a followed folder."""

    def __init__(self, trove, items: list, vectors: np.ndarray, folder: Path, seed: int) -> None:  # noqa: ANN001
        self.trove, self.items, self.vectors = trove, items, vectors
        self.folder = folder.resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.root_id = trove.catalog.add_root(self.folder)
        self.rng = np.random.default_rng(seed)
        self.next = 0  # copies made so far (base paragraph = next % len, copy number = next // len)
        self.files = 0

    def paragraphs(self) -> int:
        from engine.corpora import PARAGRAPH

        return self.trove.store.corpora().get(PARAGRAPH, 0)

    def grow_to(self, target: int) -> float:
        """Add paragraphs until the corpus holds `target`; returns the seconds it took."""
        need = target - self.paragraphs()
        t0 = time.perf_counter()
        with progress_bar(total=max(need, 0), desc=f"grow to {target:,}", unit="par") as bar:
            while need > 0:
                batch = min(need, FILE_PARAGRAPHS * 50)
                with self.trove.db.transaction():
                    for start in range(0, batch, FILE_PARAGRAPHS):
                        self._write_file(min(FILE_PARAGRAPHS, batch - start))
                need -= batch
                bar.update(batch)
        indexer = self.trove.writing.indexer(self.trove.settings)
        indexer._describe_text_corpora()  # the `documents` source's counts, as after indexing
        return time.perf_counter() - t0

    def _write_file(self, n: int) -> None:
        from engine.corpora import PARAGRAPH
        from engine.ingest.indexer import kind_of
        from local_stores.corpus_store import Item

        picks = [(self.next + i) % len(self.items) for i in range(n)]
        copy = self.next // len(self.items)
        vectors = self.vectors[picks].copy()
        if copy or self.next + n > len(self.items):  # the first pass keeps the real vectors
            noise = self.rng.standard_normal(vectors.shape).astype(np.float32)
            noise *= NOISE / np.linalg.norm(noise, axis=1, keepdims=True)
            vectors = vectors + noise
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        self.next += n
        body, locators = "", []
        for i in picks:
            body += "\n\n" if body else ""
            locators.append({"start": len(body), "end": len(body) + len(self.items[i].text)})
            body += self.items[i].text
        path = self.folder / f"{self.files // 1000:03d}" / f"synthetic-{self.files:06d}.txt"
        self.files += 1
        path.parent.mkdir(exist_ok=True)
        data = body.encode("utf-8")
        path.write_bytes(data)
        stat = path.stat()
        file_id = self.trove.catalog.record_file(self.root_id, str(path), kind_of(path) or "text", stat.st_size,
                                                 stat.st_mtime_ns, hashlib.sha256(data).hexdigest(), "indexed",
                                                 None, n)
        items = [Item(PARAGRAPH, str(path), self.items[i].text, loc, title=self.items[i].title,
                      heading=self.items[i].heading, ord=k, file_id=file_id)
                 for k, (i, loc) in enumerate(zip(picks, locators, strict=True))]
        self.trove.store.add(items, vectors.astype(np.float32))
        self.trove.store.set_file_text(file_id, body)


def is_text(q: dict) -> bool:
    return bool(set(q["gold"]) & {"paragraph", "document"})


def run_scale(trove, grower: Grower, questions: list[dict], sizes: list[int], n_ask: int) -> list[dict]:  # noqa: ANN001
    available = available_labels(trove)
    out = []
    for size in sizes:
        grow_s = grower.grow_to(size)
        corpora = trove.store.corpora()
        entry = {"size": size, "paragraphs": grower.paragraphs(), "items": sum(corpora.values()),
                 "corpora": corpora, "grow_s": grow_s, "gather": {}, "ask": {}}
        for labels in (None, available):  # warm-up (untimed): page cache, the router, the native-source index
            trove.gather(questions[0]["text"], labels=labels)
        for mode in ("routed", "unified"):
            labels = None if mode == "routed" else available
            rows = []
            for q in progress_bar(questions, desc=f"{size:,}: gather {mode}", unit="q"):
                timings: dict[str, float] = {}
                t0 = time.perf_counter()
                try:
                    gathered = trove.gather(q["text"], labels=labels)
                    routes, hits, runs, error = gathered.routes, gathered.hits, gathered.runs, None
                    timings.update(gathered.timings)
                except Exception as exc:  # noqa: BLE001 (recorded; the run goes on)
                    routes, hits, runs, error = [], [], [], f"{type(exc).__name__}: {exc}"
                    print(f"  error: {q['text']!r}: {error}", file=sys.stderr)
                timings["total"] = (time.perf_counter() - t0) * 1000
                rows.append({"question": q["text"], "text": is_text(q), "routes": [r.label for r in routes],
                             "hits": len(hits), "queries": len(runs), "timings_ms": timings, "error": error})
            entry["gather"][mode] = summarise_scale(rows)
        for mode in ("routed", "unified"):
            labels = None if mode == "routed" else available
            rows = []
            for q in progress_bar(questions[:n_ask], desc=f"{size:,}: ask {mode}", unit="q"):
                result = safe_ask(trove, q["text"], labels)
                rows.append({"question": q["text"], "text": is_text(q), "error": result.get("error"),
                             "routes": [r["label"] for r in result["routes"]], "answer": result["answer"],
                             "timings_ms": result["timings_ms"]})
            if rows:
                entry["ask"][mode] = summarise_scale(rows)
        out.append(entry)
        g = entry["gather"]
        tqdm.write(f"{size:,} paragraphs ({entry['items']:,} items in all; grown in {grow_s:.0f} s): gather routed "
                   f"{g['routed']['ms_mean']:,.0f} ms (retrieve {g['routed']['stages_ms_mean']['retrieve']:,.0f}), "
                   f"unified {g['unified']['ms_mean']:,.0f} ms (retrieve "
                   f"{g['unified']['stages_ms_mean']['retrieve']:,.0f})"
                   + "".join(f"; ask {m} {a['ms_mean']:,.0f} ms" for m, a in entry["ask"].items()), file=sys.stderr)
    return out


def summarise_scale(rows: list[dict]) -> dict:
    totals = [r["timings_ms"]["total"] for r in rows]
    text = [r["timings_ms"]["total"] for r in rows if r["text"]]
    other = [r["timings_ms"]["total"] for r in rows if not r["text"]]
    return {"n": len(rows), "ms_mean": mean(totals), "ms_median": median(totals),
            "ms_mean_text": mean(text) if text else None, "ms_mean_other": mean(other) if other else None,
            "ms_mean_no_query": mean([r["timings_ms"]["total"] - r["timings_ms"].get("query", 0.0) for r in rows]),
            "stages_ms_mean": {s: mean([r["timings_ms"].get(s, 0.0) for r in rows]) for s in STAGES},
            "runs": rows}


def render_scale(scale: dict) -> str:
    sizes = scale["sizes"]
    if not sizes:
        return "## Latency against corpus size\n\nno size measured\n"
    first = sizes[0]

    def cell(entry: dict, part: str, mode: str, key: str = "ms_mean", stage: str | None = None) -> str:
        block = entry[part].get(mode)
        if not block:
            return "–"
        value = block["stages_ms_mean"][stage] if stage else block.get(key)
        base_block = first[part].get(mode)
        base = (base_block["stages_ms_mean"][stage] if stage else base_block.get(key)) if base_block else None
        if value is None:
            return "–"
        ratio = f" (×{value / base:.2f})" if base else ""
        return f"{value:,.0f}{ratio}"

    lines = ["## Latency against corpus size\n",
             f"date: {scale['date']}  \ncommand: `{scale['command']}`  \nLLM: {scale['model']}; router: "
             f"{scale['router']}; base: {scale['base']['paragraphs']} paragraphs from {scale['base']['from']}, "
             f"embedded in {scale['base']['embed_s']:.0f} s; copies carry vectors perturbed by {NOISE} (norm)  \n"
             f"gather questions: {len(scale['questions'])} ({sum(scale['text_questions'])} answered from text); "
             f"ask: the first {scale['ask_questions']} of them\n",
             "ms per question, mean (× = ratio to the smallest size). gather = route + native queries + "
             "retrieval, no generation; without queries = gather less the native-query stage (the LLM writing "
             "SQL/Cypher/SPARQL, which does not depend on the corpus size); retrieve = the stage that reads the "
             "text corpora.\n",
             "| paragraphs | items, all corpora | size × | gather routed | routed: without queries | routed: "
             "retrieve | routed: text questions | routed: other questions | gather unified | unified: without "
             "queries | unified: retrieve | ask routed | ask unified |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in sizes:
        lines.append(f"| {e['paragraphs']:,} | {e['items']:,} | {e['items'] / first['items']:.1f} | "
                     f"{cell(e, 'gather', 'routed')} | {cell(e, 'gather', 'routed', 'ms_mean_no_query')} | "
                     f"{cell(e, 'gather', 'routed', stage='retrieve')} | "
                     f"{cell(e, 'gather', 'routed', 'ms_mean_text')} | "
                     f"{cell(e, 'gather', 'routed', 'ms_mean_other')} | "
                     f"{cell(e, 'gather', 'unified')} | {cell(e, 'gather', 'unified', 'ms_mean_no_query')} | "
                     f"{cell(e, 'gather', 'unified', stage='retrieve')} | "
                     f"{cell(e, 'ask', 'routed')} | {cell(e, 'ask', 'unified')} |")
    lines += ["", "Mean ms per stage of gather:", "", "| paragraphs | mode | " + " | ".join(STAGES) + " |",
              "|---:|---|" + "---:|" * len(STAGES)]
    for e in sizes:
        for mode, block in e["gather"].items():
            lines.append(f"| {e['paragraphs']:,} | {mode} | "
                         + " | ".join(f"{block['stages_ms_mean'][s]:,.0f}" for s in STAGES) + " |")
    lines += ["", "Time to add the copies (catalog rows, files, vectors, FTS): "
              + ", ".join(f"{e['paragraphs']:,}: {e['grow_s']:.0f} s" for e in sizes)]
    return "\n".join(lines) + "\n"


# -- main --------------------------------------------------------------------------------------
def render(payload: dict) -> str:
    text = "# Routing end to end (UniversalRAG)\n"
    if payload.get("e2e"):
        text += "\n" + render_e2e(payload["e2e"])
    if payload.get("scale"):
        text += "\n" + render_scale(payload["scale"])
    return text


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.routing_e2e", description=__doc__.split("\n")[0])
    ap.add_argument("--llm", default="default", help="LLM of the e2e part (default | fast | smoke | a model name)")
    ap.add_argument("--router", default=None, help="rule | trained | llm | ensemble (default: the settings')")
    ap.add_argument("--limit", type=int, default=0, help="questions, taken evenly across both files (0 = all)")
    ap.add_argument("--questions", default=str(EXTRA), help="the extra questions file, or `none`")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parts", default="e2e,scale", help="e2e, scale or both")
    ap.add_argument("--sizes", default="1000,10000,100000", help="paragraph corpus sizes (empty: no scale part)")
    ap.add_argument("--scale-llm", default="fast", help="LLM of the scale part")
    ap.add_argument("--scale-questions", type=int, default=10, help="questions timed at each size")
    ap.add_argument("--scale-ask", type=int, default=3, help="of those, how many are also fully asked")
    ap.add_argument("--base", type=int, default=3000, help="real paragraphs embedded for the copies")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    given = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m bench.routing_e2e", *map(shlex.quote, given)])
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if bad := set(modes) - set(MODES) or parts - {"e2e", "scale"}:
        print(f"unknown mode(s) or part(s): {sorted(bad)}", file=sys.stderr)
        return 2
    extra = None if args.questions == "none" else Path(args.questions)
    questions = load_questions(extra, args.limit)
    json_path = args.out / "routing_e2e.json"
    payload = json.loads(json_path.read_text()) if json_path.is_file() else {}
    stamp = datetime.now().isoformat(timespec="seconds")
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="trove-bench-routing-") as tmp:
        work = Path(tmp)
        first = open_trove(work / "home", args.llm, args.router, args.threads)
        index = index_examples(first)
        print(f"indexed examples/: {index['files']} files, {index['items']} items in {index['seconds']:.0f} s; "
              f"available labels: {', '.join(available_labels(first))}", file=sys.stderr)
        if "e2e" in parts:
            t0 = time.perf_counter()
            model = first.llm.name
            print(f"LLM {model} loaded in {time.perf_counter() - t0:.1f} s; router: {first.router.name}",
                  file=sys.stderr)
            e2e = run_e2e(first, questions, modes, args.seed)
            payload["e2e"] = {"date": stamp, "command": command, "llm": args.llm, "model": model,
                              "router": first.router.name, "index": index, "questions": len(questions),
                              "question_sets": {s: sum(q["set"] == s for q in questions)
                                                for s in dict.fromkeys(q["set"] for q in questions)}, **e2e}
            print(render_e2e(payload["e2e"]), flush=True)
        if "scale" in parts and sizes:
            trove = open_trove(work / "home", args.scale_llm, args.router, args.threads, share=first)
            first.models.llm = None  # the e2e model is not needed any more
            scale_qs = every(questions, args.scale_questions)
            items, vectors, base = base_paragraphs(trove, args.base, work / "base")
            grower = Grower(trove, items, vectors, work / "synthetic", args.seed)
            sizes_out = run_scale(trove, grower, scale_qs, sizes, args.scale_ask)
            payload["scale"] = {"date": stamp, "command": command, "llm": args.scale_llm,
                                "model": trove.models.llm.name,
                                "router": trove.router.name, "base": base,
                                "questions": [q["text"] for q in scale_qs],
                                "text_questions": [is_text(q) for q in scale_qs], "ask_questions": args.scale_ask,
                                "sizes": sizes_out}
            print(render_scale(payload["scale"]), flush=True)
            trove.close()
        first.close()
    text = render(payload) + f"\nrun time of the last command: {time.perf_counter() - t_start:.0f} s\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "routing_e2e.md").write_text(text, encoding="utf-8")
    json_path.write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
    print(f"wrote {args.out / 'routing_e2e.md'} and {json_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
