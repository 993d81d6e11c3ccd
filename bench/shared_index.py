"""The shared index (PostgreSQL: pgvector + tsvector) against the home's SQLite index (sqlite-vec +
FTS5), in one run, on one machine, the server started here from `pgserver` on a private socket.

    .venv/bin/python -m bench.shared_index [--datasets cranfield,cisi] [--paragraphs 100000]
                                           [--clients 1,4,16] [--seconds 60] [--out bench/out]

1. Quality: each dataset is indexed by the real pipeline into a SQLite home, and its items and
   vectors are copied into PostgreSQL, so both stores hold the same vectors. `bench.retrieval`'s
   rankers (BM25, Trove dense, Trove hybrid) run on both: NDCG@10 and Recall@100, and the search
   time per query.
2. Scale: `--paragraphs` items made from the dataset's paragraphs (their texts, and their vectors
   with noise added so that every item is its own), in both stores; `search` (hybrid, k=10) p50 and
   p95 on both, beside brute-force numpy KNN over the same vectors, with the dense recall@10 of each
   store against the exact answer.
3. Load: 1, 4, 16 clients at once (threads, a connection each) asking `search` with precomputed
   query vectors for `--seconds` each, on both stores: searches per second, p50/p95, errors.

Writes `shared_index.md` and `shared_index.json` under `--out` and prints the markdown.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np

from bench.retrieval import (
    EVAL_TEXT,
    K_NDCG,
    K_RECALL,
    Dataset,
    load_dataset,
    machine,
    ndcg_at,
    open_trove,
    recall_at,
    unique,
    write_corpus,
)
from engine.corpora import DOCUMENT, PARAGRAPH
from engine.retrieval.hybrid import HybridRetriever
from local_stores.corpus_store import CorpusStore, Item
from local_stores.postgres_corpora import PostgresCorpora
from local_stores.postgres_db import CHANGES, PostgresDb
from local_stores.quoting import Quoted
from local_stores.sqlite_db import Database
from local_stores.vector_store import VectorStore

MODES = ("bm25", "dense", "hybrid")
BATCH = 500


# -- the server ----------------------------------------------------------------------------------
@contextmanager
def postgres(work: Path) -> Iterator[object]:
    from tests.postgres_server import start

    running = start(work / "postgres")
    try:
        yield next(running)
    finally:
        next(running, None)


def copy_corpora(source: CorpusStore, target: CorpusStore, corpora: Sequence[str]) -> None:
    """Every item of `corpora` with its vector, from one store into the other."""
    for corpus in corpora:
        ids, matrix = source.all_vectors(corpus)
        if not len(ids):
            continue
        modality, granularity = corpus.split("/")
        target.ensure_corpus(corpus, modality, granularity, matrix.shape[1], source.embedder_of(corpus) or "")
        for start in range(0, len(ids), BATCH):
            chunk = [int(i) for i in ids[start:start + BATCH]]
            items = source.items(chunk)
            target.add([items[i] for i in chunk], matrix[start:start + BATCH])


# -- 1. quality ------------------------------------------------------------------------------------
def ranking(store: CorpusStore, embedder: object, query: str, vector: np.ndarray, mode: str) -> list[str]:
    retriever = HybridRetriever(store, embedder)  # type: ignore[arg-type]  # the loaded TextEmbedder
    hits = retriever.search(query, DOCUMENT, K_RECALL, vector=vector if mode != "bm25" else None, mode=mode)
    return unique([Path(h.item.source).stem for h in hits])


def quality(ds: Dataset, work: Path, server: object) -> dict:
    trove = open_trove(work / f"home-{ds.name}")
    try:
        trove.index([write_corpus(ds, work / f"docs-{ds.name}")])
        embedder = trove.models.embedder
        pg = PostgresCorpora(PostgresDb(server.empty_database(ds.name)))  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        copy_corpora(trove.store, pg, (PARAGRAPH, DOCUMENT))
        copy_s = time.perf_counter() - t0
        vectors = {q: embedder.embed_one(text) for q, text in ds.queries.items()}
        out: dict = {"docs": len(ds.docs), "queries": len(ds.queries), "copy_s": copy_s, "modes": {}}
        for mode in MODES:
            row = {}
            for name, store in (("sqlite", trove.store), ("postgres", pg)):
                ndcg, recall, ms = [], [], []
                for q, text in ds.queries.items():
                    t0 = time.perf_counter()
                    ranked = ranking(store, embedder, text, vectors[q], mode)
                    ms.append((time.perf_counter() - t0) * 1000)
                    ndcg.append(ndcg_at(ranked, ds.qrels[q], K_NDCG))
                    recall.append(recall_at(ranked, ds.qrels[q], K_RECALL))
                row[name] = {"ndcg@10": statistics.fmean(ndcg), "recall@100": statistics.fmean(recall),
                             **timing(ms)}
            out["modes"][mode] = row
        return out
    finally:
        trove.close()


# -- 2. scale --------------------------------------------------------------------------------------
def synthetic(trove_store: CorpusStore, n: int, seed: int) -> tuple[list[Item], np.ndarray]:
    """`n` paragraphs made from the store's: texts reused in turn, vectors moved by noise and renormed."""
    ids, matrix = trove_store.all_vectors(PARAGRAPH)
    texts = trove_store.items([int(i) for i in ids])
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(ids), size=n)
    vectors = matrix[rows] + rng.normal(scale=0.15 / np.sqrt(matrix.shape[1]), size=(n, matrix.shape[1]))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    items = [Item(PARAGRAPH, f"/share/p{i // 20}.txt", texts[int(ids[r])].text, {"start": 0, "end": 1},
                  file_id=i // 20 + 1, ord=i % 20) for i, r in enumerate(rows)]
    return items, vectors


def fill(store: CorpusStore, items: list[Item], vectors: np.ndarray, model: str) -> float:
    store.ensure_corpus(PARAGRAPH, "text", "paragraph", vectors.shape[1], model)
    t0 = time.perf_counter()
    db = store.db  # type: ignore[attr-defined]  # both stores keep their database as .db
    for start in range(0, len(items), BATCH):
        with db.transaction():
            store.add(items[start:start + BATCH], vectors[start:start + BATCH])
    return time.perf_counter() - t0


def fill_by_copy(store: PostgresCorpora, items: list[Item], vectors: np.ndarray, model: str) -> float:
    """A bulk load, as an administrator would make a million rows: COPY the items and the vectors
    (binary), compute the words in one INSERT … SELECT, then build the HNSW index once."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    store.ensure_corpus(PARAGRAPH, "text", "paragraph", vectors.shape[1], model)
    t0 = time.perf_counter()
    db = store.db
    table, hnsw = _paragraph_table(), _paragraph_index()
    info = TypeInfo.fetch(db.conn, "vector")
    assert info is not None
    vector_oid = info.oid

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj: np.ndarray) -> bytes:
            return np.array([len(obj), 0], dtype=">u2").tobytes() + np.asarray(obj, dtype=">f4").tobytes()

    db.conn.adapters.register_dumper(np.ndarray, VectorDumper)
    db.execute(f"DROP INDEX IF EXISTS {hnsw}")
    with db.conn.cursor() as cur:
        with cur.copy("COPY items(id, corpus, file_id, source, title, heading, text, locator, ord) FROM STDIN") as copy:
            for i, item in enumerate(items, 1):
                copy.write_row((i, item.corpus, item.file_id, item.source, item.title, item.heading, item.text,
                                json.dumps(item.locator), item.ord))
        cur.execute("SELECT setval('items_id_seq', %s)", (len(items),))
        cur.execute("CREATE TEMP TABLE staged(id bigint, embedding vector)")
        with cur.copy("COPY staged(id, embedding) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int8", info.oid])
            for i, vector in enumerate(vectors, 1):
                copy.write_row((i, vector))
        cur.execute(f"INSERT INTO {table}(id, embedding, words) SELECT s.id, s.embedding, setweight(to_tsvector("
                    "'english', trim(coalesce(i.title, '') || ' ' || coalesce(i.heading, ''))), 'A') || "
                    "setweight(to_tsvector('english', i.text), 'B') FROM staged AS s JOIN items AS i ON i.id = s.id")
        cur.execute("SET maintenance_work_mem = '4GB'")
        cur.execute(f"CREATE INDEX {hnsw} ON {table} USING hnsw (embedding vector_cosine_ops)")
        cur.execute(f"ANALYZE {table}")
    db.conn.execute(f"SELECT nextval('{CHANGES}')")  # the vectors changed: askers read them again
    return time.perf_counter() - t0


def _paragraph_table() -> Quoted:
    """The table PostgresCorpora keeps the paragraphs' vectors and words in."""
    import local_stores.postgres_corpora as corpora

    return corpora._table(PARAGRAPH)


def _paragraph_index() -> Quoted:
    import local_stores.postgres_corpora as corpora

    return corpora._index(PARAGRAPH, "hnsw")


def scale(n: int, work: Path, server: object, embedder: object, source: CorpusStore, queries: list[str],
          by_copy: bool) -> dict:
    items, vectors = synthetic(source, n, seed=n)
    lite = VectorStore(Database(work / f"scale-{n}.db"))
    pg = PostgresCorpora(PostgresDb(server.empty_database(f"scale_{n}")))  # type: ignore[attr-defined]
    model = source.embedder_of(PARAGRAPH) or ""
    pg_fill = fill_by_copy if by_copy else fill
    out: dict = {"paragraphs": n, "by_copy": by_copy,
                 "load_s": {"sqlite": fill(lite, items, vectors, model),
                            "postgres": pg_fill(pg, [Item(**_fields(i)) for i in items], vectors, model)}}
    qvecs = [embedder.embed_one(q) for q in queries]  # type: ignore[attr-defined]
    ids_by_row = {"sqlite": lite.all_vectors(PARAGRAPH)[0], "postgres": pg.all_vectors(PARAGRAPH)[0]}
    exact = [np.argsort(-(vectors @ v), kind="stable")[:10] for v in qvecs]
    ms_knn = []
    for v in qvecs:
        t0 = time.perf_counter()
        scores = vectors @ v
        top = np.argpartition(-scores, 9)[:10]
        top[np.argsort(-scores[top])]
        ms_knn.append((time.perf_counter() - t0) * 1000)
    out["brute_force_knn"] = timing(ms_knn)
    for name, store in (("sqlite", lite), ("postgres", pg)):
        retriever = HybridRetriever(store, embedder)  # type: ignore[arg-type]
        ms, recall = [], []
        for q, v, truth in zip(queries, qvecs, exact, strict=True):
            t0 = time.perf_counter()
            retriever.search(q, PARAGRAPH, 10, vector=v)
            ms.append((time.perf_counter() - t0) * 1000)
            found = {i for i, _ in store.dense(PARAGRAPH, v, 10)}
            recall.append(len(found & {int(ids_by_row[name][j]) for j in truth}) / 10)
        out[name] = {**timing(ms), "dense_recall@10": statistics.fmean(recall)}
    out["load"] = {}
    return out | {"_stores": (lite, pg, qvecs, queries)}


def _fields(item: Item) -> dict:
    return {"corpus": item.corpus, "source": item.source, "text": item.text, "locator": item.locator,
            "file_id": item.file_id, "ord": item.ord}


# -- 3. load ---------------------------------------------------------------------------------------
def load(opener: Callable[[], CorpusStore], embedder: object, queries: list[str], vectors: list[np.ndarray],
         clients: int, seconds: float) -> dict:
    """`clients` threads, each with its own connection, asking `search` for `seconds` together. Each
    first asks once before the clock starts (its first search reads the corpus's vectors into memory:
    reported apart, as `first_ms`)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    first: list[float] = []
    errors: list[str] = []
    ready = threading.Barrier(clients + 1)
    stop = [0.0]

    def ask(retriever: HybridRetriever, i: int) -> float:
        t0 = time.perf_counter()
        try:
            retriever.search(queries[i % len(queries)], PARAGRAPH, 10, vector=vectors[i % len(queries)])
        except Exception as exc:  # noqa: BLE001 (counted and shown)
            errors.append(f"{type(exc).__name__}: {exc}")
        return (time.perf_counter() - t0) * 1000

    def client(n: int) -> None:
        retriever = HybridRetriever(opener(), embedder)  # type: ignore[arg-type]
        first.append(ask(retriever, n))
        ready.wait()
        i = n + clients
        while time.perf_counter() < stop[0]:
            latencies[n].append(ask(retriever, i))
            i += clients

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    stop[0] = time.perf_counter() + 3600  # until every client has asked its first question
    ready.wait()
    t0 = time.perf_counter()
    stop[0] = t0 + seconds
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = [x for per in latencies for x in per]
    return {"clients": clients, "searches": len(ms), "per_s": len(ms) / wall, **timing(ms),
            "first_ms": max(first), "errors": len(errors), "first_error": errors[0] if errors else None}


def _opener(store: Callable, database: Callable, where: object) -> Callable[[], CorpusStore]:
    """A new connection to the same index, and its store (one per client)."""
    return lambda: store(database(where))


# -- reporting -------------------------------------------------------------------------------------
def timing(ms: list[float]) -> dict:
    ordered = sorted(ms)
    return {"p50_ms": statistics.median(ordered), "p95_ms": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]}


def markdown(info: dict, command: str, results: dict) -> str:
    lines = ["# Shared index: PostgreSQL (pgvector + tsvector) against SQLite (sqlite-vec + FTS5)\n",
             f"machine: {info['nproc']} cores, {info['cpu']}  \ndate: {info['date']}  \ncommand: `{command}`\n"]
    for name, res in results["quality"].items():
        lines += [f"\n## Quality: {name} ({res['docs']} documents, {res['queries']} queries; "
                  f"copied into PostgreSQL in {res['copy_s']:.1f} s)\n",
                  "| search | NDCG@10 SQLite | NDCG@10 PostgreSQL | Δ | Recall@100 SQLite | Recall@100 PostgreSQL "
                  "| p50 ms SQLite | p50 ms PostgreSQL |", "|---|---|---|---|---|---|---|---|"]
        for mode, row in res["modes"].items():
            s, p = row["sqlite"], row["postgres"]
            lines.append(f"| {mode} | {s['ndcg@10']:.4f} | {p['ndcg@10']:.4f} | {p['ndcg@10'] - s['ndcg@10']:+.4f} | "
                         f"{s['recall@100']:.4f} | {p['recall@100']:.4f} | {s['p50_ms']:.1f} | {p['p50_ms']:.1f} |")
    for res in results["scale"]:
        lines += [f"\n## Scale: {res['paragraphs']:,} paragraphs\n",
                  f"Loaded in {res['load_s']['sqlite']:.0f} s (SQLite, `add` in batches of {BATCH}) and "
                  f"{res['load_s']['postgres']:.0f} s (PostgreSQL, "
                  + ("COPY, then the HNSW index built once" if res.get("by_copy") else
                     f"`add` in batches of {BATCH}, the HNSW index built as rows arrive") + ").\n",
                  "| search (hybrid, k=10) | p50 ms | p95 ms | dense recall@10 vs exact |", "|---|---|---|---|",
                  f"| brute-force numpy KNN (limit) | {res['brute_force_knn']['p50_ms']:.1f} | "
                  f"{res['brute_force_knn']['p95_ms']:.1f} | 1.000 |"]
        for name in ("sqlite", "postgres"):
            r = res[name]
            lines.append(f"| {name} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | {r['dense_recall@10']:.3f} |")
        if res["load"]:
            lines += ["\n| store | clients | searches/s | p50 ms | p95 ms | errors | slowest first search ms |",
                      "|---|---|---|---|---|---|---|"]
        for name, runs in res["load"].items():
            for r in runs:
                lines.append(f"| {name} | {r['clients']} | {r['per_s']:.1f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} "
                             f"| {r['errors']} | {r['first_ms']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.shared_index", description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="cranfield,cisi")
    parser.add_argument("--paragraphs", default="100000", help="sizes of the scale runs, comma-separated")
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--queries", type=int, default=200, help="questions timed in each scale run")
    parser.add_argument("--copy-from", type=int, default=500_000,
                        help="sizes from this one are loaded into PostgreSQL by COPY, the HNSW index built after")
    parser.add_argument("--out", type=Path, default=Path("bench/out"))
    args = parser.parse_args(argv)
    command = "python -m bench.shared_index " + shlex.join(sys.argv[1:] if argv is None else list(argv))
    names = [d for d in args.datasets.split(",") if d]
    results: dict = {"quality": {}, "scale": []}
    with tempfile.TemporaryDirectory(prefix="trove-shared-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        server = stack.enter_context(postgres(work))
        datasets = {name: load_dataset(EVAL_TEXT / name) for name in names}
        for name, ds in datasets.items():
            print(f"quality: {name}", file=sys.stderr)
            results["quality"][name] = quality(ds, work, server)
        source_home = open_trove(work / f"home-{names[0]}")
        queries = [q for ds in datasets.values() for q in ds.queries.values()][:args.queries]
        sizes = [int(x) for x in args.paragraphs.split(",") if x]
        for n in sizes:
            print(f"scale: {n}", file=sys.stderr)
            res = scale(n, work, server, source_home.models.embedder, source_home.store, queries,
                        by_copy=n >= args.copy_from)
            lite, pg, qvecs, qs = res.pop("_stores")
            if n != sizes[0]:  # the load test runs at the first size
                results["scale"].append(res)
                continue
            openers = {"sqlite": _opener(VectorStore, Database, lite.db.path),
                       "postgres": _opener(PostgresCorpora, PostgresDb, pg.db.url)}
            for store, opener in openers.items():
                res["load"][store] = [load(opener, source_home.models.embedder, qs, qvecs, int(c), args.seconds)
                                      for c in args.clients.split(",")]
            results["scale"].append(res)
        source_home.close()
    info = machine()
    text = markdown(info, command, results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "shared_index.md").write_text(text, encoding="utf-8")
    (args.out / "shared_index.json").write_text(json.dumps({"machine": info, "command": command, **results},
                                                           indent=1, default=str), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
