"""Document search on Cranfield and CISI (BEIR layout): Trove against naive baselines, in one run.

    .venv/bin/python -m bench.retrieval [--datasets cranfield,cisi] [--limit-queries N] [--out bench/out]

Each corpus document becomes `<_id>.txt` (title, blank line, text) in a temporary folder that is
indexed by the real pipeline (`Trove.index`). Every system ranks documents for every query; a
system is one function `(Context, query) -> [doc id, ...]` in `SYSTEMS`. Scores: NDCG@10 (graded
gains, log2 discount, ideal from the qrels) and Recall@100 (share of the relevant documents,
grade > 0, in the top 100). BM25 is computed in the same run, as `../shared/eval/README.md` asks.
Writes `retrieval.md` and `retrieval.json` under `--out`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
from tqdm import tqdm

from engine.corpora import DOCUMENT, PARAGRAPH
from engine.ingest.indexer import Progress
from engine.pipeline import Trove
from engine.retrieval.hybrid import HybridRetriever, SearchConfig
from engine.settings import default_home, default_models_dir, load_settings

ROOT = Path(__file__).resolve().parent.parent
EVAL_TEXT = ROOT.parent / "shared" / "eval" / "text"
DATASETS = ("cranfield", "cisi")
K_NDCG, K_RECALL, RRF_K = 10, 100, 60
BASELINE = "bm25"


def progress_bar(iterable: Iterable | None = None, **kwargs: object) -> tqdm:
    """A tqdm bar on stderr that writes few lines when stderr is a log file, not a terminal."""
    return tqdm(iterable, file=sys.stderr, mininterval=0.1 if sys.stderr.isatty() else 10.0, **kwargs)


# -- data --------------------------------------------------------------------------------------
@dataclass
class Dataset:
    name: str
    docs: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]  # id -> text (only queries with at least one relevant document)
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: grade}


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """query id -> {doc id: grade}; a header line, if present, is skipped."""
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or not parts[2].strip().lstrip("-").isdigit():
            continue
        qrels.setdefault(parts[0].strip(), {})[parts[1].strip()] = int(parts[2])
    return qrels


def load_dataset(folder: Path, limit_queries: int | None = None) -> Dataset:
    docs = {str(d["_id"]): (d.get("title") or "", d.get("text") or "")
            for d in read_jsonl(folder / "corpus.jsonl")}
    qrels = read_qrels(folder / "qrels.tsv")
    queries = {str(q["_id"]): q["text"] for q in read_jsonl(folder / "queries.jsonl")
               if any(g > 0 for g in qrels.get(str(q["_id"]), {}).values())}
    if limit_queries:
        queries = dict(list(queries.items())[:limit_queries])
    return Dataset(folder.name, docs, queries, {q: qrels[q] for q in queries})


def doc_file_text(title: str, text: str) -> str:
    return f"{title}\n\n{text}\n" if title else f"{text}\n"


def write_corpus(ds: Dataset, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, (title, text) in ds.docs.items():
        (folder / f"{doc_id}.txt").write_text(doc_file_text(title, text), encoding="utf-8")
    return folder


# -- metrics -----------------------------------------------------------------------------------
def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(rank + 2) for rank, g in enumerate(gains))


def ndcg_at(ranking: Sequence[str], grades: dict[str, int], k: int = K_NDCG) -> float:
    ideal = dcg(sorted((g for g in grades.values() if g > 0), reverse=True)[:k])
    return dcg([max(grades.get(d, 0), 0) for d in ranking[:k]]) / ideal if ideal else 0.0


def recall_at(ranking: Sequence[str], grades: dict[str, int], k: int = K_RECALL) -> float:
    relevant = {d for d, g in grades.items() if g > 0}
    return len(relevant & set(ranking[:k])) / len(relevant) if relevant else 0.0


# -- systems -----------------------------------------------------------------------------------
@dataclass
class Context:
    trove: Trove
    doc_ids: list[str]  # row order of doc_matrix
    doc_matrix: np.ndarray  # MiniLM vectors of whole documents (unit length)


Ranker = Callable[[Context, str], list[str]]


def unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def trove_ranking(ctx: Context, query: str, mode: str, config: SearchConfig | None = None) -> list[str]:
    retriever = HybridRetriever(ctx.trove.store, ctx.trove.models.embedder, config)
    hits = retriever.search(query, DOCUMENT, K_RECALL, mode=mode)
    return unique([Path(h.item.source).stem for h in hits])


def rank_bm25(ctx: Context, query: str) -> list[str]:
    return trove_ranking(ctx, query, "bm25")


def rank_dense_whole_doc(ctx: Context, query: str) -> list[str]:
    scores = ctx.doc_matrix @ ctx.trove.models.embedder.embed_one(query)
    return [ctx.doc_ids[i] for i in np.argsort(-scores, kind="stable")[:K_RECALL]]


def rrf_fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda d: -scores[d])


def rank_rrf_plain(ctx: Context, query: str) -> list[str]:
    return rrf_fuse([rank_bm25(ctx, query), rank_dense_whole_doc(ctx, query)])


def rank_trove_dense(ctx: Context, query: str) -> list[str]:
    return trove_ranking(ctx, query, "dense")


def rank_trove_hybrid(ctx: Context, query: str) -> list[str]:
    return trove_ranking(ctx, query, "hybrid")


def rank_without_feedback(ctx: Context, query: str) -> list[str]:
    return trove_ranking(ctx, query, "hybrid", SearchConfig(feedback_docs=0))


def rank_without_paragraphs(ctx: Context, query: str) -> list[str]:
    return trove_ranking(ctx, query, "hybrid", SearchConfig(feedback_docs=0, whole_weight=1.0))


SYSTEMS: dict[str, Ranker] = {
    "bm25": rank_bm25,
    "dense-whole-doc": rank_dense_whole_doc,
    "rrf(bm25, dense-whole-doc)": rank_rrf_plain,
    "trove-dense": rank_trove_dense,
    "trove-hybrid": rank_trove_hybrid,
    "  ablation: no feedback": rank_without_feedback,
    "  ablation: no feedback, no paragraphs": rank_without_paragraphs,
}


# -- indexing ----------------------------------------------------------------------------------
@dataclass
class IndexStats:
    files: int
    seconds: float
    paragraphs: int
    documents: int
    paragraphs_per_s: float
    embeddings_per_s: float  # paragraph + document vectors per second
    model_load_s: float
    report: dict = field(default_factory=dict)


def open_trove(home: Path) -> Trove:
    """A fresh index in `home`, with the installed models (TROVE_MODELS_DIR, else the default home's)."""
    return Trove(load_settings(home, models_dir=default_models_dir(default_home())))


def index_progress(bar: tqdm) -> Callable[[Progress], None]:
    def update(p: Progress) -> None:
        if p.stage == "index":
            bar.update(p.done - bar.n)
    return update


def index_corpus(trove: Trove, ds: Dataset, folder: Path) -> IndexStats:
    t0 = time.perf_counter()
    _ = trove.models.embedder  # load the model outside the timed indexing
    load_s = time.perf_counter() - t0
    with progress_bar(total=len(ds.docs), desc=f"{ds.name}: index", unit="doc") as bar:
        t0 = time.perf_counter()
        report = trove.index([folder], index_progress(bar))
        seconds = time.perf_counter() - t0
    counts = trove.store.corpora()
    paragraphs, documents = counts.get(PARAGRAPH, 0), counts.get(DOCUMENT, 0)
    for path, state, reason in report.problems:
        print(f"  warning: {path}: {state}: {reason}", file=sys.stderr)
    return IndexStats(report.indexed, seconds, paragraphs, documents, paragraphs / seconds,
                      (paragraphs + documents) / seconds, load_s, report.as_dict())


def embed_whole_docs(trove: Trove, ds: Dataset) -> tuple[Context, dict]:
    """The dense-whole-doc baseline's vectors (the tokenizer truncates each document at 256 tokens)."""
    doc_ids = list(ds.docs)
    texts = [doc_file_text(*ds.docs[d]).strip() for d in doc_ids]
    batch = 64
    chunks = []
    t0 = time.perf_counter()
    for start in progress_bar(range(0, len(texts), batch), desc=f"{ds.name}: embed whole docs", unit="batch"):
        chunks.append(trove.models.embedder.embed(texts[start:start + batch]))
    seconds = time.perf_counter() - t0
    matrix = np.vstack(chunks).astype(np.float32)
    return Context(trove, doc_ids, matrix), {"docs": len(doc_ids), "seconds": seconds,
                                             "docs_per_s": len(doc_ids) / seconds}


# -- evaluation --------------------------------------------------------------------------------
@dataclass
class SystemResult:
    ndcg10: float
    recall100: float
    latency_ms_mean: float
    latency_ms_median: float
    ratio_to_baseline: float = 0.0
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)


def run_system(ctx: Context, ds: Dataset, name: str, rank: Ranker) -> SystemResult:
    rank(ctx, next(iter(ds.queries.values())))  # warm-up, not timed
    per_query, latencies = {}, []
    for qid, query in progress_bar(ds.queries.items(), desc=f"{ds.name}: {name}", unit="q"):
        t0 = time.perf_counter()
        ranking = unique(rank(ctx, query))[:K_RECALL]
        latencies.append((time.perf_counter() - t0) * 1000)
        grades = ds.qrels[qid]
        per_query[qid] = {"ndcg10": ndcg_at(ranking, grades), "recall100": recall_at(ranking, grades),
                          "returned": len(ranking)}
    return SystemResult(statistics.fmean(q["ndcg10"] for q in per_query.values()),
                        statistics.fmean(q["recall100"] for q in per_query.values()),
                        statistics.fmean(latencies), statistics.median(latencies), per_query=per_query)


def evaluate(ctx: Context, ds: Dataset, systems: dict[str, Ranker]) -> dict[str, SystemResult]:
    results = {name: run_system(ctx, ds, name, rank) for name, rank in systems.items()}
    base = results[BASELINE].ndcg10 if BASELINE in results else 0.0
    for res in results.values():
        res.ratio_to_baseline = res.ndcg10 / base if base else 0.0
    return results


def bench_dataset(ds: Dataset, work: Path, systems: dict[str, Ranker]) -> dict:
    trove = open_trove(work / "home")
    try:
        stats = index_corpus(trove, ds, write_corpus(ds, work / "docs"))
        ctx, whole = embed_whole_docs(trove, ds)
        results = evaluate(ctx, ds, systems)
    finally:
        trove.close()
    return {"docs": len(ds.docs), "queries": len(ds.queries), "index": asdict(stats),
            "whole_doc_embedding": whole, "systems": {n: asdict(r) for n, r in results.items()}}


# -- reporting ---------------------------------------------------------------------------------
def machine() -> dict:
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"nproc": nproc, "cpu": model, "date": datetime.now().astimezone().isoformat(timespec="seconds")}


def header(info: dict, command: str) -> str:
    return (f"# Trove document search: Cranfield / CISI\n\nmachine: {info['nproc']} cores, {info['cpu']}  \n"
            f"date: {info['date']}  \ncommand: `{command}`\n")


def dataset_table(name: str, res: dict) -> str:
    idx, whole = res["index"], res["whole_doc_embedding"]
    lines = [f"## {name} ({res['docs']} docs, {res['queries']} queries)", "",
             f"indexing: {idx['files']} files in {idx['seconds']:.1f} s; {idx['paragraphs']} paragraphs + "
             f"{idx['documents']} documents; {idx['paragraphs_per_s']:.1f} paragraphs/s, "
             f"{idx['embeddings_per_s']:.1f} embeddings/s (model load {idx['model_load_s']:.1f} s)  ",
             f"whole-document baseline embedding: {whole['docs_per_s']:.1f} docs/s", "",
             f"| system | NDCG@10 | Recall@100 | NDCG@10 / {BASELINE} | mean latency ms |",
             "|---|---:|---:|---:|---:|"]
    for system, r in res["systems"].items():
        lines.append(f"| {system} | {r['ndcg10']:.3f} | {r['recall100']:.3f} | "
                     f"{r['ratio_to_baseline']:.2f} | {r['latency_ms_mean']:.1f} |")
    return "\n".join(lines) + "\n"


def write_outputs(out: Path, info: dict, command: str, results: dict[str, dict], total_s: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    md = header(info, command) + "".join("\n" + dataset_table(n, r) for n, r in results.items())
    md += f"\ntotal run time: {total_s:.0f} s\n"
    (out / "retrieval.md").write_text(md, encoding="utf-8")
    payload = {"machine": info, "command": command, "total_seconds": total_s, "k_ndcg": K_NDCG,
               "k_recall": K_RECALL, "rrf_k": RRF_K, "baseline": BASELINE, "datasets": results}
    (out / "retrieval.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")


# -- main --------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated: cranfield,cisi")
    ap.add_argument("--limit-queries", type=int, default=None, help="only the first N judged queries")
    ap.add_argument("--out", type=Path, default=Path("bench/out"), help="folder for retrieval.md/.json")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not EVAL_TEXT.is_dir():
        print(f"evaluation data not found at {EVAL_TEXT} (../shared/eval is absent here); nothing to measure")
        return 0
    given = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m bench.retrieval", *map(shlex.quote, given)])
    info = machine()
    print(header(info, command))
    results: dict[str, dict] = {}
    t_start = time.perf_counter()
    for name in [n.strip() for n in args.datasets.split(",") if n.strip()]:
        folder = EVAL_TEXT / name
        if not (folder / "corpus.jsonl").is_file():
            print(f"{name}: no such dataset under {EVAL_TEXT}; skipped")
            continue
        ds = load_dataset(folder, args.limit_queries)
        with tempfile.TemporaryDirectory(prefix=f"trove-bench-{name}-") as tmp:
            results[name] = bench_dataset(ds, Path(tmp), SYSTEMS)
        print(dataset_table(name, results[name]), flush=True)
        write_outputs(args.out, info, command, results, time.perf_counter() - t_start)
    total = time.perf_counter() - t_start
    if results:
        write_outputs(args.out, info, command, results, total)
        print(f"total run time: {total:.0f} s; wrote {args.out / 'retrieval.md'} and "
              f"{args.out / 'retrieval.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
