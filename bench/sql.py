"""Execution accuracy of Trove's SQL writing on GeoQuery, against a zero-shot baseline in the same run.

    .venv/bin/python -m bench.sql [--split dev] [--llm default] [--limit N] [--out bench/out]

Baseline: one zero-shot prompt with the question and the raw schema (CREATE TABLE from the database),
no examples, no validation, no repair. Trove: `engine.native.querying.write_and_run` on the same
database registered as a source (descriptor with types, keys, sample values and category lists;
few-shot examples; EXPLAIN validation; repair from the engine's error, 3 writes at most), run through
the read-only executor. Correct = the result multiset equals the gold query's on the same database
(column order counts; row order counts when the gold query has ORDER BY).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
GEO = ROOT.parent / "shared" / "eval" / "sql" / "geoquery"
DB = GEO / "geography-db.added-in-2020.sqlite"


def fill(template: str, variables: dict[str, str]) -> str:
    for name, value in sorted(variables.items(), key=lambda kv: -len(kv[0])):
        template = template.replace(name, value)
    return template


def questions(split: str) -> list[dict]:
    out = []
    for entry in json.loads((GEO / "geography.json").read_text()):
        gold = min(entry["sql"], key=len)
        for s in entry["sentences"]:
            if s["question-split"] == split:
                out.append({"question": fill(s["text"], s["variables"]), "gold": fill(gold, s["variables"])})
    return out


def run_sql(sql: str, db: Path = DB) -> list[tuple] | None:
    """The rows of `sql` on the SQLite file `db` (GeoQuery's by default), read-only; None when it fails."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.text_factory = lambda b: b.decode("utf-8", "replace")  # a few Spider values are not UTF-8
    try:
        return con.execute(sql).fetchall()
    except sqlite3.Error:
        return None
    finally:
        con.close()


def same(pred: list[tuple] | None, gold: list[tuple] | None, ordered: bool) -> bool:
    if pred is None or gold is None:
        return False
    norm = [tuple(str(v).lower() for v in row) for row in pred]
    gnorm = [tuple(str(v).lower() for v in row) for row in gold]
    return norm == gnorm if ordered else Counter(norm) == Counter(gnorm)


def raw_schema() -> str:
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    try:
        return "\n".join(r[0] for r in con.execute("SELECT sql FROM sqlite_master WHERE type = 'table'") if r[0])
    finally:
        con.close()


def zero_shot(llm, question: str, schema: str) -> str:  # noqa: ANN001
    from engine.native.writers.sql import extract

    reply = llm.chat([{"role": "user", "content": f"{schema}\n\nWrite one SQLite query that answers: {question}"}],
                     max_tokens=200)
    return extract(reply)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    if not DB.exists():
        print(f"{DB} is absent: nothing to measure")
        return 0
    from bench.native import stores_in
    from engine.ingest.tables import describe_database
    from engine.models import ModelManager
    from engine.native.querying import write_and_run
    from engine.native.sources import Source
    from engine.runtimes.llm import LLM
    from engine.settings import default_home, default_models_dir

    llm = LLM.from_manager(ModelManager(default_models_dir(default_home())), args.llm, n_ctx=4096)
    source = Source("geography", "database", "sqlite", str(DB), describe_database(DB))
    store = stores_in(args.out / "unused")
    schema = raw_schema()
    qs = questions(args.split)[: args.limit or None]
    rows = []
    for q in tqdm(qs, file=sys.stderr, desc=f"GeoQuery {args.split} ({args.llm})"):
        gold = run_sql(q["gold"])
        ordered = bool(re.search(r"\border\s+by\b", q["gold"], re.IGNORECASE))
        t0 = time.perf_counter()
        zs_sql = zero_shot(llm, q["question"], schema)
        zs_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        outcome = write_and_run(llm, q["question"], source, store, max_tries=3)
        tr_s = time.perf_counter() - t0
        tr_rows = [tuple(r) for r in outcome.result.rows] if outcome.result else None
        rows.append({"question": q["question"], "gold": q["gold"],
                     "zero_shot": {"sql": zs_sql, "ok": same(run_sql(zs_sql), gold, ordered),
                                   "runs": run_sql(zs_sql) is not None, "s": zs_s},
                     "trove": {"sql": outcome.query, "ok": same(tr_rows, gold, ordered), "runs": outcome.ok,
                               "tries": len(outcome.attempts), "s": tr_s}})
    n = len(rows)

    def line(key: str, label: str) -> str:
        ok = sum(r[key]["ok"] for r in rows)
        runs = sum(r[key]["runs"] for r in rows)
        return (f"| {label} | {ok}/{n} = {ok / n:.1%} | {1 - runs / n:.1%} | "
                f"{statistics.median(r[key]['s'] for r in rows):.1f} |")

    table = "\n".join(["| system | execution accuracy | not executing | median s/question |", "|---|---:|---:|---:|",
                       line("zero_shot", "zero-shot (question + raw schema)"),
                       line("trove", "Trove (descriptor, few-shot, EXPLAIN, repair)")])
    stamp = datetime.now().isoformat(timespec="seconds")
    text = (f"# GeoQuery SQL, {args.split} split, {args.llm} LLM\n\ndate: {stamp}"
            f"  \ncommand: `python -m bench.sql --split {args.split} --llm {args.llm}`  \nquestions: {n}\n\n{table}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"sql-geoquery-{args.split}-{args.llm}.md").write_text(text)
    (args.out / f"sql-geoquery-{args.split}-{args.llm}.json").write_text(json.dumps(rows, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
