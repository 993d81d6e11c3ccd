"""Source-selection accuracy with every benchmark source registered together, against the
embedding prefilter alone (top-1) in the same run.

    .venv/bin/python -m bench.selection [--llm default] [--per-dataset 15]

Registered together: the 19 Spider SQLite databases, GeoQuery, the movies graph (Kùzu), the 19
Spider4SPARQL graphs (Oxigraph) and the WikiTableQuestions tables (DuckDB), each with the
descriptor Trove's ingest gives it. Questions come evenly from each dataset; a Spider question is
also answered by the RDF graph built from the same database (and the reverse), so either counts.
Trove = the prefilter: descriptor embeddings, raised for sources holding values the question names
(the value index) and for sources whose fields it names; its first is the choice. Beside it, the
LLM choosing from its top 3 unless the first leads clearly (`source_llm_choice`, off since
RESULTS §24, where it chose worse). Baseline: the embeddings alone.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from bench.native import EVAL, ROOT, _every, stores_in

GEO_DB = EVAL / "sql" / "geoquery" / "geography-db.added-in-2020.sqlite"


def _named(name: str) -> Callable[[str | None], str]:
    return lambda _sheet: name


def register(stores, spider_sql: bool = True) -> tuple[list, dict[str, str]]:  # noqa: ANN001
    """Every source, and each source's answer key (its database, for Spider's SQL/RDF twins);
    without `spider_sql`, Spider's SQLite databases (the Spider4SPARQL graphs' twins) are left out."""
    from engine.ingest import rdf, tables
    from engine.ingest.graphs.load import load as load_graph
    from engine.native.sources import Source

    sources: list[Source] = []
    key: dict[str, str] = {}
    for folder in sorted((EVAL / "sql" / "spider" / "database").iterdir()) if spider_sql else []:
        db = next(folder.glob("*.sqlite"))
        sources.append(Source(folder.name, "database", "sqlite", str(db), tables.describe_database(db)))
        key[folder.name] = folder.name
    sources.append(Source("geography", "database", "sqlite", str(GEO_DB), tables.describe_database(GEO_DB)))
    key["geography"] = "geography"
    movies = EVAL / "cypher" / "movies" / "movies.cypher"
    sources.append(Source("movies", "graph", "kuzu", str(movies), load_graph(stores.graphs, "movies", movies)))
    key["movies"] = "movies"
    for path in sorted((EVAL / "sparql" / "spider4sparql" / "kg").glob("*.ttl")):
        kg = path.name.removesuffix("_triples.ttl").removesuffix(".ttl")
        name = f"{kg}_rdf"
        sources.append(Source(name, "rdf", "oxigraph", str(path), rdf.load(stores.rdf, name, path)))
        key[name] = kg
    for path in sorted((EVAL / "tables" / "wtq" / "csv").glob("*.csv")):
        name = "t_" + re.sub(r"\W", "_", path.stem)
        [info] = tables.load(stores.tables, _named(name), path)
        sources.append(Source(name, "table", "duckdb", str(path), info.descriptor()))
        key[name] = name
    return sources, key


def questions(per: int) -> list[tuple[str, str, str]]:
    """(dataset, question, answer key)."""
    out = []
    spider = [q for q in json.loads((EVAL / "sql" / "spider" / "dev.json").read_text())
              if (EVAL / "sql" / "spider" / "database" / q["db_id"]).is_dir()]
    out += [("spider", q["question"], q["db_id"]) for q in _every(spider, per)]
    sparql = json.loads((EVAL / "sparql" / "spider4sparql" / "dev.json").read_text())
    kgs = {p.name.removesuffix("_triples.ttl").removesuffix(".ttl") for p in (EVAL / "sparql" / "spider4sparql" /
                                                                            "kg").glob("*.ttl")}
    out += [("spider4sparql", q["question"], q["kg_name"]) for q in _every([q for q in sparql if q["kg_name"] in kgs],
                                                                            per)]
    movies = json.loads((EVAL / "cypher" / "movies" / "movies_eval.json").read_text())
    out += [("movies", q["question"], "movies") for q in _every(movies, per)]
    wtq = json.loads((EVAL / "tables" / "wtq" / "questions.json").read_text())
    out += [("wtq", q["utterance"], "t_" + re.sub(r"\W", "_", Path(q["context"].replace("/", "__")).stem))
            for q in _every(wtq, per)]
    from bench.sql import questions as geo_questions

    out += [("geoquery", q["question"], "geography") for q in _every(geo_questions("dev"), per)]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="default", help="the LLM that chooses; `none` measures the prefilter only")
    parser.add_argument("--per-dataset", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    if not EVAL.exists():
        print(f"{EVAL} is absent: nothing to measure")
        return 0
    from engine.models import ModelManager
    from engine.native import selection, values
    from engine.runtimes.llm import LLM
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.settings import default_home, default_models_dir, load_settings
    from local_stores.sqlite_db import Database
    from local_stores.value_index import ValueIndex

    manager = ModelManager(default_models_dir(default_home()))
    llm = None if args.llm == "none" else LLM.from_manager(manager, args.llm, n_ctx=4096)
    embedder = TextEmbedder.from_manager(manager)
    work = args.out / "selection-work"
    stores = stores_in(work)
    t0 = time.perf_counter()
    sources, key = register(stores)
    index = selection.SourceIndex(embedder)
    index.refresh(sources)
    embed_s = time.perf_counter() - t0
    held = ValueIndex(Database(work / "values.sqlite"))
    values.refresh(held, sources, stores)
    setup_s = time.perf_counter() - t0
    settings = load_settings(work)  # TROVE_* variables tune the weights (TROVE_SOURCE_VALUE_WEIGHT=0.1)
    k = settings.source_candidates
    rows = []
    for dataset, question, answer in tqdm(questions(args.per_dataset), file=sys.stderr, desc="selection"):
        t0 = time.perf_counter()
        vector = embedder.embed_one(question)
        plain = index.nearest(vector, k)
        candidates = index.nearest(vector, k, bonus=selection.bonus(index, question, held, settings))
        prefilter_s = time.perf_counter() - t0
        chosen = selection.choose(llm, question, candidates, 1,  # without an LLM: the prefilter's first
                                  values.value_notes(question, held), settings.source_clear_lead)
        asked = llm is not None and len(candidates) > 1 and not selection.leads(candidates, settings.source_clear_lead)
        llm_s = time.perf_counter() - t0
        rows.append({"dataset": dataset, "question": question, "answer": answer,
                     "candidates": [s.name for s, _ in candidates], "chosen": [s.name for s in chosen],
                     "top1": key[plain[0][0].name] == answer,
                     "recall": any(key[s.name] == answer for s, _ in plain),
                     "values_top1": key[candidates[0][0].name] == answer,
                     "values_recall": any(key[s.name] == answer for s, _ in candidates),
                     "llm": bool(chosen) and key[chosen[0].name] == answer, "asked": asked,
                     "prefilter_s": prefilter_s, "llm_s": llm_s})
    lines = ["| questions from | n | embeddings top-1 (baseline) | embeddings recall@3 | + values & fields top-1 | "
             "+ values & fields recall@3 | + LLM unless one leads | LLM asked | median s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for dataset in [*dict.fromkeys(r["dataset"] for r in rows), "all"]:
        part = [r for r in rows if dataset in ("all", r["dataset"])]
        n = len(part)
        columns = ("top1", "recall", "values_top1", "values_recall", "llm", "asked")
        share = [f"{sum(r[c] for r in part) / n:.1%}" for c in columns]
        lines.append(f"| {dataset} | {n} | {' | '.join(share)} | {statistics.median(r['llm_s'] for r in part):.1f} |")
    text = (f"# Source selection, {args.llm} LLM, {len(sources)} sources registered\n\n"
            "Trove chooses the prefilter's first (+ values & fields top-1) unless `source_llm_choice` is on.\n\n"
            f"date: {datetime.now().isoformat(timespec='seconds')}  \ncommand: `python -m bench.selection --llm "
            f"{args.llm} --per-dataset {args.per_dataset}`  \nsetup: {setup_s:.1f} s (ingest and descriptor embeddings "
            f"{embed_s:.1f} s, value index {setup_s - embed_s:.1f} s)"
            "\n\n" + "\n".join(lines) + "\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"selection-{args.llm}.md").write_text(text)
    (args.out / f"selection-{args.llm}.json").write_text(json.dumps(rows, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
