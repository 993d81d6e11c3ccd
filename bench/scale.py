"""Scale to a whole disk (issue 15 §4): index, re-index, search and ask times on a folder of N real files.

    .venv/bin/python -m bench.scale [--files 20000] [--seed 15] [--queries 50] [--ask] [--out bench/out]
                                    [--work DIR --budget-s S]

A folder of N files is made in a temporary directory from the real data of `../shared/eval`, read in
place: mostly text documents (.txt / .md, each several Cranfield or CISI documents), some PDFs and
WikiTableQuestions CSVs copied under other names, a few COCO photos; nested year/month/topic folders,
varied names and mtimes, light edits (a sentence changed, a paragraph dropped, a line appended), all
drawn from `random.Random(seed)`. A fresh Trove home (the user's installed models) indexes it:

- full index: wall time (models loaded before the clock), files/s, paragraphs/s, peak RSS (ru_maxrss of
  the process), index size on disk (the home's files; models live outside it) beside the folder's size;
- re-index with nothing changed (the scan alone), then re-index after changing one paragraph in 1% of
  the text files: its time against the target (1% of the full time plus the scan), and the vectors kept;
- search: p50 / p95 of `Trove.search` (hybrid, text/paragraph, k=10) over Cranfield and CISI query
  texts, beside brute-force numpy KNN (the query's vector against every paragraph vector of the store,
  `argpartition` top 10) over the same vectors, in the same run;
- ask (only with `--ask`: it needs the LLM): p50 of `Trove.ask` over a few of the same queries.

Writes `scale.md` and `scale.json` under `--out` and prints the markdown.

A 20,000-file folder takes hours to embed on 2 cores. With `--work DIR` the folder and the home are
kept in DIR, and `--budget-s S` stops the full index after S seconds (as a user cancelling it would:
every file indexed so far stays indexed). Running the same command again goes on where it stopped;
the full index time is the sum of the runs (each run's scan of the files already indexed included),
kept in DIR/state.json. Once the full index is done, the rest is measured in that run.
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import random
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

from bench.photos import index_progress, peak_rss_mb
from bench.pipeline import percentile
from bench.retrieval import load_dataset, machine, open_trove, progress_bar
from engine.corpora import PARAGRAPH
from engine.ingest.indexer import IndexReport, Progress
from engine.pipeline import Trove

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT.parent / "shared" / "eval"
DATASETS = ("cranfield", "cisi")
MIX = {"pdf": 0.03, "table": 0.02, "photo": 0.005}  # share of the files; the rest are text documents
TOUCH_SHARE = 0.01  # text files changed before the second re-index
SEARCH_K = 10
ASK_QUESTIONS = 5
SEARCH_TARGET_MS = 150.0
SEARCH_VS_KNN_TARGET = 2.5
RSS_TARGET_MB = 2500
TOPICS = {"cranfield": ("aerodynamics", "heat-transfer", "structures", "flight-tests", "wind-tunnel"),
          "cisi": ("library-science", "indexing", "citations", "information-retrieval", "reading-lists"),
          "pdf": ("scans", "reports", "forms", "receipts"), "table": ("spreadsheets", "budgets", "exports"),
          "photo": ("photos", "camera", "phone-uploads")}
VARIANTS = ("", "", "", "-v2", "_final", " (copy)", "-draft", "_notes", " 2", "-old")
APPENDED = ("Filed under {topic} on {date}.", "Checked again on {date}; nothing to add.",
            "Copy kept for the {topic} folder ({date}).", "See also the {topic} notes of {date}.")
REVISIONS = ("These figures were checked again in {year} and still hold.",
             "A later reading in {year} asks for the second set of measurements.",
             "Revised {year}: the values above were rounded to two figures.")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SLUG = re.compile(r"[^a-z0-9]+")
_SINCE, _UNTIL = datetime(2012, 1, 1).timestamp(), datetime(2024, 12, 31).timestamp()


# -- sources -----------------------------------------------------------------------------------
@dataclass
class Sources:
    docs: dict[str, list[tuple[str, str, str]]]  # dataset -> [(doc id, title, text)]
    queries: list[str]  # Cranfield and CISI query texts, interleaved
    pdfs: list[Path]
    tables: list[Path]
    photos: list[Path]


def readable_pdfs(folder: Path) -> list[Path]:
    """The PDFs under `folder`, less those `files.json` marks encrypted (a password is bad input, not scale)."""
    locked = set()
    for meta in folder.rglob("files.json"):
        for entry in json.loads(meta.read_text(encoding="utf-8")).get("data", []):
            if entry.get("encrypted"):
                locked.add((meta.parent / entry["path"]).resolve())
    return sorted(p for p in folder.rglob("*.pdf") if p.resolve() not in locked)


def load_sources(eval_dir: Path = EVAL) -> Sources:
    docs: dict[str, list[tuple[str, str, str]]] = {}
    per_set: list[list[str]] = []
    for name in DATASETS:
        ds = load_dataset(eval_dir / "text" / name)
        docs[name] = [(f"{name}/{i}", t, x) for i, (t, x) in ds.docs.items() if x.strip()]
        per_set.append(list(ds.queries.values()))
    queries = [q for pair in zip(*per_set, strict=False) for q in pair]
    return Sources(docs, queries, readable_pdfs(eval_dir / "documents"),
                   sorted((eval_dir / "tables" / "wtq" / "csv").glob("*.csv")),
                   sorted((eval_dir / "images" / "coco_mini" / "train2017").glob("*.jpg")))


# -- the folder --------------------------------------------------------------------------------
@dataclass
class Made:
    path: Path
    kind: str  # text | pdf | table | photo
    source: str  # the corpus documents (ids) or the shared file it was made from
    edits: list[str] = field(default_factory=list)  # light edits made to its text


@dataclass
class Disk:
    folder: Path
    files: list[Made]

    def kinds(self) -> dict[str, int]:
        return dict(Counter(m.kind for m in self.files))


def plan_kinds(n: int, sources: Sources, rng: random.Random) -> list[str]:
    """`n` kinds in a random order: the shares of MIX (at least one of each kind there are files for)."""
    pools = {"pdf": sources.pdfs, "table": sources.tables, "photo": sources.photos}
    counts = {k: max(1, round(n * share)) if pools[k] and n >= 2 * len(MIX) else 0 for k, share in MIX.items()}
    kinds = [k for k, c in counts.items() for _ in range(c)]
    kinds += ["text"] * (n - len(kinds))
    rng.shuffle(kinds)
    return kinds


def slug(text: str, words: int = 4) -> str:
    return "-".join(_SLUG.sub(" ", text.lower()).split()[:words]) or "untitled"


def place(folder: Path, kind: str, stem: str, suffix: str, when: float, rng: random.Random, taken: set[Path]
          ) -> Path:
    """A new path `<year>/<month>-<Mon>/<topic>/<stem><variant><suffix>` under `folder`, unique in `taken`."""
    day = datetime.fromtimestamp(when)
    topic = rng.choice(TOPICS[kind])
    parent = folder / str(day.year) / f"{day.month:02d}-{calendar.month_abbr[day.month]}" / topic
    name = f"{stem}{rng.choice(VARIANTS)}"
    path, n = parent / f"{name}{suffix}", 2
    while path in taken:
        path, n = parent / f"{name} ({n}){suffix}", n + 1
    taken.add(path)
    return path


def change_sentence(text: str, other: str, rng: random.Random) -> str:
    """`text` with one of its sentences replaced by a sentence of `other`."""
    mine, theirs = _SENTENCE.split(text), _SENTENCE.split(other)
    mine[rng.randrange(len(mine))] = rng.choice(theirs)
    return " ".join(mine)


def vary_docs(docs: list[tuple[str, str, str]], rng: random.Random) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Light edits to a file's documents: one dropped, a sentence changed. Returns (documents, edits)."""
    docs, edits = list(docs), []
    if len(docs) >= 3 and rng.random() < 0.25:
        del docs[rng.randrange(len(docs))]
        edits.append("paragraph dropped")
    if len(docs) >= 2 and rng.random() < 0.3:
        i, j = rng.sample(range(len(docs)), 2)
        changed = change_sentence(docs[i][2], docs[j][2], rng)
        if changed != docs[i][2]:
            docs[i] = (docs[i][0], docs[i][1], changed)
            edits.append("sentence changed")
    return docs, edits


def render_text(docs: list[tuple[str, str, str]], markdown: bool, tail: str) -> str:
    """A .md (a heading per document) or .txt (title line, blank line, text) file of `docs`."""
    blocks = [f"# {docs[0][1] or 'Notes'}"] if markdown else []
    for _, title, text in docs:
        if title:
            blocks.append(f"## {title}" if markdown else title)
        blocks.append(text.strip())
    if tail:
        blocks.append(tail)
    return "\n\n".join(blocks) + "\n"


def make_text(folder: Path, sources: Sources, when: float, rng: random.Random, taken: set[Path]) -> Made:
    dataset = rng.choice(DATASETS)
    docs, edits = vary_docs(rng.sample(sources.docs[dataset], rng.randint(2, 8)), rng)
    markdown = rng.random() < 0.4
    path = place(folder, dataset, slug(docs[0][1] or docs[0][2]), ".md" if markdown else ".txt", when, rng, taken)
    tail = ""
    if rng.random() < 0.3:
        tail = rng.choice(APPENDED).format(topic=path.parent.name, date=datetime.fromtimestamp(when).date())
        edits.append("line appended")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_text(docs, markdown, tail), encoding="utf-8")
    return Made(path, "text", ",".join(d[0] for d in docs), edits)


def copy_name(kind: str, src: Path, when: float, rng: random.Random) -> str:
    """A new name for a copied file (never its own, so a copy is not the shared file by name)."""
    day = datetime.fromtimestamp(when)
    if kind == "photo":
        return rng.choice((f"IMG_{rng.randrange(10000):04d}", f"{day:%Y%m%d_%H%M%S}", f"photo-{src.stem[-6:]}"))
    base = slug(src.stem.replace("csv__", " "), 6)
    return rng.choice((f"{base}-{day:%Y-%m}", f"{base}_{day.year}", f"{kind}-{base}", f"{day:%Y%m%d}-{base}"))


def make_copy(folder: Path, kind: str, pool: list[Path], when: float, rng: random.Random, taken: set[Path]
              ) -> Made:
    src = rng.choice(pool)
    path = place(folder, kind, copy_name(kind, src, when, rng), src.suffix.lower(), when, rng, taken)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, path)  # contents only: not the read-only mode of the shared file
    return Made(path, kind, str(src))


def build_disk(sources: Sources, folder: Path, n: int, seed: int = 15) -> Disk:
    """`n` files under `folder`, the same for the same sources, `n` and `seed`."""
    rng = random.Random(seed)
    pools = {"pdf": sources.pdfs, "table": sources.tables, "photo": sources.photos}
    taken: set[Path] = set()
    files = []
    for kind in plan_kinds(n, sources, rng):
        when = rng.uniform(_SINCE, _UNTIL)
        made = (make_text(folder, sources, when, rng, taken) if kind == "text"
                else make_copy(folder, kind, pools[kind], when, rng, taken))
        os.utime(made.path, (when, when))
        files.append(made)
    return Disk(folder, files)


def touch_paragraph(path: Path, rng: random.Random) -> None:
    """Change one body paragraph of a text file (a sentence added at its end); its mtime becomes now."""
    blocks = path.read_text(encoding="utf-8").rstrip("\n").split("\n\n")
    body = [i for i, b in enumerate(blocks) if len(b.split()) >= 30 and not b.startswith("#")]
    i = rng.choice(body) if body else max(range(len(blocks)), key=lambda j: len(blocks[j]))
    blocks[i] = blocks[i].rstrip() + " " + rng.choice(REVISIONS).format(year=rng.randint(2013, 2025))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


def touch_files(disk: Disk, share: float, seed: int) -> list[Path]:
    """Change one paragraph in `share` of the text files (at least one)."""
    rng = random.Random(seed + 1)
    texts = [m.path for m in disk.files if m.kind == "text"]
    chosen = rng.sample(texts, min(len(texts), max(1, round(share * len(texts))))) if texts else []
    for path in chosen:
        touch_paragraph(path, rng)
    return chosen


def size_by_part(folder: Path, skip: Sequence[str] = ("models",)) -> dict[str, float]:
    """MB of the files under each top-level entry of `folder` (less those in `skip`)."""
    parts: Counter[str] = Counter()
    for path in folder.rglob("*"):
        top = path.relative_to(folder).parts[0]
        if path.is_file() and top not in skip:
            parts[top] += path.stat().st_size
    return {top: size / 2**20 for top, size in sorted(parts.items())}


def size_mb(folder: Path, skip: Sequence[str] = ("models",)) -> float:
    """MB of the files under `folder` (less its top-level folders in `skip`)."""
    return sum(size_by_part(folder, skip).values())


def save_disk(disk: Disk, path: Path) -> None:
    rows = [{"path": str(m.path), "kind": m.kind, "source": m.source, "edits": m.edits} for m in disk.files]
    path.write_text(json.dumps({"folder": str(disk.folder), "files": rows}), encoding="utf-8")


def load_disk(path: Path) -> Disk:
    data = json.loads(path.read_text(encoding="utf-8"))
    files = [Made(Path(r["path"]), r["kind"], r["source"], r["edits"]) for r in data["files"]]
    return Disk(Path(data["folder"]), files)


def kept_disk(sources: Sources, work: Path, n: int, seed: int) -> Disk:
    """The folder made in an earlier run with the same `work`, `n` and `seed` (its files as they are
    now), else a new one."""
    listing = work / f"disk-{n}-{seed}.json"
    if listing.exists():
        return load_disk(listing)
    shutil.rmtree(work / "disk", ignore_errors=True)
    disk = build_disk(sources, work / "disk", n, seed)
    save_disk(disk, listing)
    return disk


# -- indexing ----------------------------------------------------------------------------------
@dataclass
class IndexRun:
    name: str
    seconds: float
    indexed: int
    unchanged: int
    items: int
    reused: int
    problems: int
    peak_rss_mb: float
    timings_s: dict[str, float]
    first_problems: list[tuple[str, str, str]]  # (path, state, reason), the first 20


def timed_index(trove: Trove, paths: list[Path], name: str, total: int) -> IndexRun:
    with progress_bar(total=total, desc=f"index: {name}", unit="file") as bar:
        t0 = time.perf_counter()
        report: IndexReport = trove.index(paths, index_progress(bar))
        seconds = time.perf_counter() - t0
    for path, state, reason in report.problems[:5]:
        print(f"  warning: {path}: {state}: {reason}", file=sys.stderr)
    if len(report.problems) > 5:
        print(f"  ... {len(report.problems) - 5} more problems (20 in scale.json)", file=sys.stderr)
    return IndexRun(name, seconds, report.indexed, report.unchanged, report.items, report.reused,
                    len(report.problems), peak_rss_mb(), {k: round(v, 3) for k, v in report.timings_s.items()},
                    list(report.problems[:20]))


class OutOfTime(Exception):
    """The full index's time budget is spent: stop as a user's cancel does (indexed files stay)."""


@dataclass
class Resumed:
    """The full index over several runs: the seconds spent so far, the runs, the largest peak RSS."""

    path: Path
    seconds: float = 0.0
    runs: int = 0
    peak_rss_mb: float = 0.0
    done: bool = False
    timings_s: dict[str, float] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Resumed:
        if not path.exists():
            return cls(path)
        return cls(path, **json.loads(path.read_text(encoding="utf-8")))

    def save(self) -> None:
        state = {k: v for k, v in asdict(self).items() if k != "path"}
        self.path.write_text(json.dumps(state), encoding="utf-8")


def resumed_index(trove: Trove, disk: Disk, state: Resumed, budget_s: float | None) -> IndexRun:
    """The full index, going on from where an earlier run stopped; stopped itself after `budget_s`.
    Its figures are the whole index's: seconds summed over the runs, files and items counted in the
    catalog, the largest peak RSS of any run. The state is saved every few seconds, so a run killed
    midway loses at most that much of its count."""
    n, started, saved = len(disk.files), time.perf_counter(), [time.perf_counter()]
    base = state.seconds

    def heard(p: Progress) -> None:
        now = time.perf_counter()
        if now - saved[0] >= 5:
            state.seconds, state.peak_rss_mb = base + now - started, max(state.peak_rss_mb, peak_rss_mb())
            state.save()
            saved[0] = now
        if budget_s is not None and now - started >= budget_s:
            raise OutOfTime

    state.runs += 1
    with progress_bar(total=n, desc=f"index: full, run {state.runs}", unit="file") as bar:
        shown = index_progress(bar)

        def progress(p: Progress) -> None:
            shown(p)
            heard(p)

        try:
            report: IndexReport | None = trove.index([disk.folder], progress)
        except OutOfTime:
            report = None
    state.seconds, state.peak_rss_mb = base + time.perf_counter() - started, max(state.peak_rss_mb, peak_rss_mb())
    if report is not None:
        state.done = True
        state.timings_s = {k: round(v, 3) for k, v in report.timings_s.items()}
    state.save()
    indexed = sum(1 for m in disk.files if (r := trove.catalog.file(str(m.path))) and r.state == "indexed")
    problems = [(str(m.path), r.state, r.reason or "") for m in disk.files
                if (r := trove.catalog.file(str(m.path))) and r.state != "indexed"]
    items = items_of(trove, [m.path for m in disk.files])
    return IndexRun("full", state.seconds, indexed, 0, items, 0, len(problems), state.peak_rss_mb, state.timings_s,
                    problems[:20])


def items_of(trove: Trove, paths: Sequence[Path]) -> int:
    records = [trove.catalog.file(str(p)) for p in paths]
    return sum(r.items for r in records if r)


def bench_index(trove: Trove, disk: Disk, seed: int, state: Resumed | None = None,
                budget_s: float | None = None) -> dict | None:
    """The index figures; None when the full index ran out of `budget_s` (it goes on next run)."""
    t0 = time.perf_counter()
    _ = trove.models.embedder
    if disk.kinds().get("photo"):
        _ = trove.models.vision
    load_s = time.perf_counter() - t0
    n = len(disk.files)
    if state is None:
        full = timed_index(trove, [disk.folder], "full", n)
    else:
        full = resumed_index(trove, disk, state, budget_s)
        if not state.done:
            print(f"stopped after run {state.runs}: {full.indexed} of {n} files indexed in {full.seconds:.0f} s so "
                  f"far; run the same command again to go on", flush=True)
            return None
    paragraphs = trove.store.corpora().get(PARAGRAPH, 0)
    print(f"indexed {full.indexed} of {n} files: {paragraphs} paragraphs, {full.items} items in {full.seconds:.1f} s",
          flush=True)
    index_parts = size_by_part(trove.settings.home)
    scan = timed_index(trove, [], "nothing changed", n)
    touched = touch_files(disk, TOUCH_SHARE, seed)
    touched_items = items_of(trove, touched)
    again = timed_index(trove, [], f"{len(touched)} files changed", n)
    return {"model_load_s": load_s, "paragraphs": paragraphs, "index_mb": sum(index_parts.values()),
            "index_mb_by_part": index_parts, "folder_mb": size_mb(disk.folder),
            "full": asdict(full), "scan": asdict(scan), "reindex": asdict(again), "touched_files": len(touched),
            "touched_items_before": touched_items}


# -- search ------------------------------------------------------------------------------------
def knn(matrix: np.ndarray, query: np.ndarray, k: int = SEARCH_K) -> np.ndarray:
    """Row indices of the `k` rows most similar to `query` (dot product: unit vectors, so cosine), best first."""
    if not len(matrix) or k <= 0:
        return np.zeros(0, dtype=np.int64)
    scores = matrix @ query
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top], kind="stable")]


def summary(ms: list[float]) -> dict[str, float]:
    return {"p50_ms": statistics.median(ms), "p95_ms": percentile(ms, 0.95), "mean_ms": statistics.fmean(ms)}


def bench_search(trove: Trove, queries: list[str]) -> dict:
    """Trove.search beside brute-force KNN (and the store's own dense search) on the same paragraph vectors."""
    t0 = time.perf_counter()
    ids, matrix = trove.store.all_vectors(PARAGRAPH)
    load_s = time.perf_counter() - t0
    embedder = trove.models.embedder
    trove.search("warm-up: pressure distribution over a wing", k=SEARCH_K, corpus=PARAGRAPH)  # not timed
    times: dict[str, list[float]] = {"search": [], "embed": [], "knn": [], "store": []}
    agree = []
    for q in progress_bar(queries, desc="search", unit="q"):
        t0 = time.perf_counter()
        trove.search(q, k=SEARCH_K, corpus=PARAGRAPH)  # the query's first embedding: not remembered yet
        t1 = time.perf_counter()
        vector = embedder.embed([q])[0]  # not embed_one, which remembers the vector search just made
        t2 = time.perf_counter()
        top = knn(matrix, vector, SEARCH_K)
        t3 = time.perf_counter()
        dense = trove.store.dense(PARAGRAPH, vector, SEARCH_K)
        t4 = time.perf_counter()
        for name, start, end in (("search", t0, t1), ("embed", t1, t2), ("knn", t2, t3), ("store", t3, t4)):
            times[name].append((end - start) * 1000)
        agree.append(len(set(ids[top].tolist()) & {i for i, _ in dense}) / max(1, len(top)))
    out: dict = {name: summary(ms) for name, ms in times.items()}
    out.update(queries=len(queries), vectors=int(matrix.shape[0]), dim=int(matrix.shape[1]),
               matrix_mb=matrix.nbytes / 2**20, load_vectors_s=load_s,
               knn_vs_store_overlap=statistics.fmean(agree) if agree else 0.0)
    out["search_vs_knn"] = out["search"]["p50_ms"] / out["knn"]["p50_ms"] if out["knn"]["p50_ms"] else None
    out["search_vs_embed_knn"] = out["search"]["p50_ms"] / statistics.median(
        e + k for e, k in zip(times["embed"], times["knn"], strict=True)) if queries else None
    return out


def bench_ask(trove: Trove, questions: list[str]) -> dict:
    t0 = time.perf_counter()
    _ = trove.models.llm
    load_s = time.perf_counter() - t0
    total, first = [], []
    for q in progress_bar(questions, desc="ask", unit="q"):
        timings = trove.ask(q).timings_ms
        total.append(timings["total"])
        first.append(timings.get("first_token", timings["total"]))
    return {"questions": questions, "llm_load_s": load_s, "total": summary(total), "first_token": summary(first)}


# -- reporting ---------------------------------------------------------------------------------
def met(ok: bool | None) -> str:
    return "–" if ok is None else ("yes" if ok else "**no**")


def index_rows(res: dict) -> list[str]:
    idx, n = res["index"], res["data"]["files"]
    full, scan, again = idx["full"], idx["scan"], idx["reindex"]
    secs = full["seconds"] or 1e-9
    target = TOUCH_SHARE * full["seconds"] + scan["seconds"]
    ok = met(again["seconds"] <= target)
    resumed = idx.get("full_runs", 1) > 1
    runs = f" (the sum of {idx['full_runs']} runs, each resumed where the last stopped)" if resumed else ""
    return [
        f"| files indexed (of {n} made) | {full['indexed']} | – | {full['problems']} with problems | – |",
        f"| paragraphs | {idx['paragraphs']} | – | {full['items']} items in all | – |",
        f"| full index, wall s{runs} | {full['seconds']:.1f} | – | model load {idx['model_load_s']:.1f} s (outside) "
        "| – |",
        f"| files/s | {full['indexed'] / secs:.1f} | – | – | – |",
        f"| paragraphs/s | {idx['paragraphs'] / secs:.1f} | – | – | – |",
        f"| peak RSS after the full index, MB | {full['peak_rss_mb']:.0f} | ≤ {RSS_TARGET_MB} | – | "
        f"{met(full['peak_rss_mb'] <= RSS_TARGET_MB)} |",
        f"| index size on disk, MB | {idx['index_mb']:.1f} | – | the folder itself: {idx['folder_mb']:.1f} MB | – |",
        f"| re-index, nothing changed (scan), s | {scan['seconds']:.2f} | – | – | – |",
        f"| re-index after {idx['touched_files']} text files changed (1%), s | {again['seconds']:.2f} | "
        f"≤ 1% of full + scan = {target:.2f} | scan alone {scan['seconds']:.2f} s | {ok} |",
        f"| re-index / full | {again['seconds'] / secs:.2%} | ≤ 1% + scan ({target / secs:.2%}) | – | {ok} |",
        f"| vectors kept (`report.reused`) | {again['reused']} | – | {idx['touched_items_before']} items in the "
        f"changed files before | – |",
    ]


def search_rows(s: dict) -> list[str]:
    ratio = s["search_vs_knn"]
    ratio_row = (f"| search / brute-force KNN, p50 | {ratio:.2f}× | ≤ {SEARCH_VS_KNN_TARGET}× | – | "
                 f"{met(ratio <= SEARCH_VS_KNN_TARGET)} |" if ratio is not None
                 else "| search / brute-force KNN, p50 | – | – | – | – |")
    return [
        f"| search p50, ms (`Trove.search`, hybrid) | {s['search']['p50_ms']:.1f} | ≤ {SEARCH_TARGET_MS:.0f} | "
        f"brute-force KNN p50 {s['knn']['p50_ms']:.1f} ms | {met(s['search']['p50_ms'] <= SEARCH_TARGET_MS)} |",
        f"| search p95, ms | {s['search']['p95_ms']:.1f} | – | brute-force KNN p95 {s['knn']['p95_ms']:.1f} ms | – |",
        ratio_row,
        f"| search / (query embedding + brute-force KNN), p50 | {s['search_vs_embed_knn']:.2f}× | – | – | – |"
        if s.get("search_vs_embed_knn") else "| search / (query embedding + brute-force KNN), p50 | – | – | – | – |",
        f"| query embedding p50, ms (in search, not in KNN) | {s['embed']['p50_ms']:.1f} | – | – | – |",
        f"| `VectorStore.dense` p50, ms (the store's own, same vectors) | {s['store']['p50_ms']:.1f} | – | "
        f"top-10 overlap with brute force {s['knn_vs_store_overlap']:.0%} | – |",
    ]


def ask_rows(ask: dict | None) -> list[str]:
    if ask is None:
        return ["| ask p50, s | not measured (run with `--ask`: it needs the LLM) | – | – | – |"]
    return [f"| ask p50, s ({len(ask['questions'])} questions) | {ask['total']['p50_ms'] / 1000:.1f} | – | "
            f"first words p50 {ask['first_token']['p50_ms'] / 1000:.1f} s | – |"]


def parts_line(parts: dict[str, float]) -> list[str]:
    return ["index size by part: " + ", ".join(f"{k}/ {v:.1f} MB" for k, v in parts.items()) + "  "] if parts else []


def render(info: dict, command: str, res: dict) -> str:
    data, s = res["data"], res["search"]
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(data["kinds"].items()))
    lines = [f"# Trove at scale: {data['files']} files\n", f"machine: {info['nproc']} cores, {info['cpu']}  ",
             f"date: {info['date']}  ", f"command: `{command}`  ",
             f"data: {data['files']} files made from ../shared/eval ({kinds}; seed {data['seed']}) in "
             f"{data['build_s']:.1f} s; search: {s['queries']} Cranfield/CISI queries over {s['vectors']} paragraph "
             f"vectors ({s['dim']}-d, {s['matrix_mb']:.0f} MB as one matrix)\n",
             "| figure | value | target | same-run baseline | met |", "|---|---:|---|---|---|",
             *index_rows(res), *search_rows(s), *ask_rows(res.get("ask")), "",
             *parts_line(res["index"].get("index_mb_by_part", {})),
             "Times are wall seconds in one process; peak RSS is the process's `ru_maxrss` (it never falls). Brute "
             "force is `matrix @ query` + `argpartition` over every paragraph vector read from the store, with the "
             "query already embedded; `Trove.search` embeds the query itself (its p50 above) and also runs BM25 and "
             "fusion. Per-stage index seconds are in scale.json."]
    return "\n".join(lines) + f"\n\ntotal run time: {res['total_s']:.0f} s\n"


# -- main --------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=20000, help="files in the generated folder")
    ap.add_argument("--seed", type=int, default=15, help="the folder's random seed")
    ap.add_argument("--queries", type=int, default=50, help="search queries (Cranfield and CISI, interleaved)")
    ap.add_argument("--ask", action="store_true", help=f"also time Trove.ask on {ASK_QUESTIONS} questions (LLM)")
    ap.add_argument("--out", type=Path, default=Path("bench/out"), help="folder for scale.md/.json")
    ap.add_argument("--work", type=Path, default=None,
                    help="keep the folder and the home here, and go on with a full index an earlier run stopped")
    ap.add_argument("--budget-s", type=float, default=None,
                    help="with --work: stop the full index after this many seconds (run again to go on)")
    args = ap.parse_args(argv)
    if args.budget_s is not None and args.work is None:
        ap.error("--budget-s needs --work (the folder and home the next run goes on with)")
    return args


def missing_data(eval_dir: Path = EVAL) -> Path | None:
    """The first evaluation path the bench needs that is absent (None: all there)."""
    needed = [eval_dir / "text" / d / "corpus.jsonl" for d in DATASETS]
    return next((p for p in [eval_dir, *needed] if not p.exists()), None)


def run(args: argparse.Namespace) -> dict | None:
    """The figures; None when a `--budget-s` run stopped before the full index was done."""
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        return measure(args, args.work.resolve(), Resumed.load(args.work / f"state-{args.files}-{args.seed}.json"))
    with tempfile.TemporaryDirectory(prefix="trove-bench-scale-") as tmp:
        return measure(args, Path(tmp).resolve(), None)


def measure(args: argparse.Namespace, work: Path, state: Resumed | None) -> dict | None:
    sources = load_sources()
    res: dict = {}
    t_start = time.perf_counter()
    disk = build_disk(sources, work / "disk", args.files, args.seed) if state is None else \
        kept_disk(sources, work, args.files, args.seed)
    res["data"] = {"files": len(disk.files), "kinds": disk.kinds(), "seed": args.seed,
                   "build_s": time.perf_counter() - t_start,
                   "edits": dict(Counter(e for m in disk.files for e in m.edits))}
    print(f"{len(disk.files)} files ({res['data']['kinds']}) under {disk.folder}", flush=True)
    trove = open_trove(work / "home")
    try:
        index = bench_index(trove, disk, args.seed, state, args.budget_s)
        if index is None:
            return None
        res["index"] = index
        res["search"] = bench_search(trove, sources.queries[: args.queries])
        if args.ask:
            res["ask"] = bench_ask(trove, sources.queries[:ASK_QUESTIONS])
    finally:
        trove.close()
    res["peak_rss_mb"] = max(peak_rss_mb(), state.peak_rss_mb if state else 0.0)
    res["total_s"] = time.perf_counter() - t_start
    if state is not None:
        res["index"]["full_runs"] = state.runs
    return res


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    absent = missing_data(EVAL)
    if absent is not None:
        print(f"evaluation data not found: {absent} is absent (../shared/eval); nothing to measure")
        return 0
    given = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m bench.scale", *map(shlex.quote, given)])
    info = machine()
    res = run(args)
    if res is None:
        return 0
    md = render(info, command, res)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scale.md").write_text(md, encoding="utf-8")
    payload = {"machine": info, "command": command, "targets": {
        "reindex_s": "<= 1% of the full index time + the scan", "search_p50_ms": SEARCH_TARGET_MS,
        "search_vs_knn_p50": SEARCH_VS_KNN_TARGET}, **res}
    (args.out / "scale.json").write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
    print(md + f"wrote {args.out / 'scale.md'} and {args.out / 'scale.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
