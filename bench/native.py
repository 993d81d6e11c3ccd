"""Execution accuracy of Trove's native query writing (SQL, Cypher, SPARQL) against a zero-shot
baseline in the same run, per dataset, with latency per question.

    .venv/bin/python -m bench.native [--datasets movies,spider,sparql,wtq] [--llm default] [--limit 40]

Datasets (../shared/eval): text2cypher movies on Kùzu (the graph loaded from movies.cypher by
Trove's own reader), Spider dev on the 19 rebuilt SQLite databases (queried in place), Spider4SPARQL
on Oxigraph (each kg loaded by Trove's RDF ingest), WikiTableQuestions (each CSV loaded by Trove's
table pipeline into DuckDB; denotation accuracy against targetValue).

Baseline: one zero-shot prompt with the question and the raw schema (CREATE TABLE / node and
relationship tables / class and predicate lists), no examples, no validation, no repair. Trove:
`engine.native.querying.write_and_run` with the source's descriptor, few-shot examples chosen per
question, the value index of its sources, validation on the engine and repair from its error (3
writes at most). Questions are taken evenly across each dataset (every n-th), the same for both
systems. Results match in any column order, as in Spider's own execution evaluation. Datasets not
run keep their results from the last run recorded in native-<llm>.json, so one dataset can be
re-measured alone.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from itertools import permutations
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from local_stores.quoting import duckdb_sql as duck

if TYPE_CHECKING:
    from engine.native.sources import Source

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT.parent / "shared" / "eval"
SPARQL_PREFIX = "PREFIX : <http://valuenet/ontop/>\n"


@dataclass
class Case:
    question: str
    source: Source
    gold: list[tuple] | None  # gold result rows (None when the gold query does not run here)
    ordered: bool = False
    denotation: list[str] | None = None  # WTQ: the answer values


# -- comparing results ---------------------------------------------------------------------------
def norm(value: object) -> object:
    """A cell compared loosely: numbers rounded, text lower-cased, graph nodes by their properties."""
    if isinstance(value, dict):
        return tuple(sorted((k, norm(v)) for k, v in value.items() if not k.startswith("_") and v is not None))
    if isinstance(value, (list, tuple)):
        return tuple(norm(v) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return round(float(value), 2)
    text = str(value).strip()
    try:
        return round(float(text.replace(",", "")), 2) if re.fullmatch(r"-?[\d,]*\.?\d+", text) else text.lower()
    except ValueError:
        return text.lower()


def same(pred: list[tuple] | None, case: Case) -> bool:
    if pred is None:
        return False
    if case.denotation is not None:  # WTQ: some column of the result holds exactly the answer values
        want = {norm(v) for v in case.denotation}
        return any({norm(v) for v in column} == want for column in zip(*pred, strict=False)) if pred else False
    if case.gold is None:
        return False
    p = [tuple(norm(v) for v in row) for row in pred]
    g = [tuple(norm(v) for v in row) for row in case.gold]
    if p and g and len(p[0]) == len(g[0]) <= 6:  # columns in any order, as Spider's own evaluation allows
        return any(_rows_equal([tuple(row[i] for i in order) for row in p], g, case.ordered)
                   for order in permutations(range(len(p[0]))))
    return _rows_equal(p, g, case.ordered)


def _rows_equal(pred: list[tuple], gold: list[tuple], ordered: bool) -> bool:
    return pred == gold if ordered else Counter(pred) == Counter(gold)


# -- datasets -------------------------------------------------------------------------------------
def _every(items: list, limit: int) -> list:
    if not limit or len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def movies(work: Path, stores, limit: int) -> list[Case]:  # noqa: ANN001
    from engine.ingest.graphs.load import load
    from engine.native.sources import Source

    folder = EVAL / "cypher" / "movies"
    descriptor = load(stores.graphs, "movies", folder / "movies.cypher")
    source = Source("movies", "graph", "kuzu", str(folder / "movies.cypher"), descriptor)
    out = []
    for q in _every(json.loads((folder / "movies_eval.json").read_text()), limit):
        ordered = bool(re.search(r"\border\s+by\b", q["cypher"], re.IGNORECASE))
        out.append(Case(q["question"], source, [tuple(r) for r in q["result"]], ordered))
    return out


def spider(work: Path, stores, limit: int) -> list[Case]:  # noqa: ANN001
    from engine.ingest.tables import describe_database
    from engine.native.sources import Source
    from local_stores import database_files

    folder = EVAL / "sql" / "spider"
    sources = {}
    out = []
    for q in _every([q for q in json.loads((folder / "dev.json").read_text())
                     if (folder / "database" / q["db_id"]).is_dir()], limit):
        db = next((folder / "database" / q["db_id"]).glob("*.sqlite"))
        if q["db_id"] not in sources:
            sources[q["db_id"]] = Source(q["db_id"], "database", "sqlite", str(db), describe_database(db))
        try:
            gold = database_files.execute(db, "sqlite", q["query"], 30, 10_000).rows
        except Exception:  # noqa: BLE001 (a gold query these rebuilt databases cannot run)
            gold = None
        ordered = bool(re.search(r"\border\s+by\b", q["query"], re.IGNORECASE))
        out.append(Case(q["question"], sources[q["db_id"]], gold, ordered))
    return out


def sparql(work: Path, stores, limit: int) -> list[Case]:  # noqa: ANN001
    from engine.ingest.rdf import load
    from engine.native.sources import Source

    folder = EVAL / "sparql" / "spider4sparql"
    files = {p.name.removesuffix("_triples.ttl").removesuffix(".ttl"): p for p in (folder / "kg").glob("*.ttl")}
    sources = {}
    out = []
    for q in _every([q for q in json.loads((folder / "dev.json").read_text()) if q["kg_name"] in files], limit):
        kg = q["kg_name"]
        if kg not in sources:
            sources[kg] = Source(kg, "rdf", "oxigraph", str(files[kg]), load(stores.rdf, kg, files[kg]))
        try:
            gold = stores.rdf.execute(kg, SPARQL_PREFIX + q["query"], 60, 10_000).rows
        except Exception:  # noqa: BLE001
            gold = None
        ordered = bool(re.search(r"\border\s+by\b", q["query"], re.IGNORECASE))
        out.append(Case(q["question"], sources[kg], gold, ordered))
    return out


def _named(name: str) -> Callable[[str | None], str]:
    """A table's name for every sheet of its file (a CSV has one)."""
    return lambda _sheet: name


def wtq(work: Path, stores, limit: int) -> list[Case]:  # noqa: ANN001
    from engine.ingest import tables
    from engine.native.sources import Source

    folder = EVAL / "tables" / "wtq"
    out, sources = [], {}
    for q in _every(json.loads((folder / "questions.json").read_text()), limit):
        path = folder / "csv" / q["context"].replace("/", "__")
        if not path.exists():
            continue
        if path not in sources:
            name = "t_" + re.sub(r"\W", "_", path.stem)
            [info] = tables.load(stores.tables, _named(name), path)
            sources[path] = Source(name, "table", "duckdb", str(path), info.descriptor())
        answers = [a for a in str(q["targetValue"]).split("|") if a]
        out.append(Case(q["utterance"], sources[path], None, denotation=answers))
    return out


DATASETS: dict[str, Callable] = {"movies": movies, "spider": spider, "sparql": sparql, "wtq": wtq}


def stores_in(work: Path):  # noqa: ANN201 (engine.native.sources.Stores)
    """Trove's own stores for a benchmark's sources, under `work`."""
    from engine.native.sources import Stores
    from local_stores.graph_store import GraphStore
    from local_stores.rdf_store import RdfStore
    from local_stores.table_store import TableStore

    return Stores(TableStore(work / "tables.duckdb"), GraphStore(work / "graphs"), RdfStore(work / "rdf"))


# -- the zero-shot baseline -----------------------------------------------------------------------
def raw_schema(source) -> str:  # noqa: ANN001
    """The schema as a plain zero-shot prompt would give it: names and types, nothing more."""
    d = source.descriptor
    if source.language == "cypher":
        def fields(props: list[dict], hidden: list[str]) -> str:
            return ", ".join(f"{p['name']}: {p['type']}" for p in props if p["name"] not in hidden)

        nodes = [f"(:{label} {{{fields(n['properties'], n.get('hidden', []))}}})" for label, n in d["nodes"].items()]
        rels = [f"(:{a})-[:{r}" + (f" {{{fields(i['properties'], [])}}}" if i["properties"] else "") + f"]->(:{b})"
                for r, i in d["relationships"].items() for a, b in i["pairs"]]
        return "Node tables:\n" + "\n".join(nodes) + "\nRelationship tables:\n" + "\n".join(rels)
    if source.language == "sparql":
        prefixes = "\n".join(f"PREFIX {p}: <{iri}>" for p, iri in d.get("prefixes", {}).items())
        classes = "\n".join(c["iri"] for c in d.get("classes", []))
        preds = sorted({p["iri"] for c in d.get("classes", []) for p in c.get("predicates", [])}
                       | {p["iri"] for p in d.get("predicates", [])})
        return f"{prefixes}\nClasses:\n{classes}\nPredicates:\n" + "\n".join(preds)
    out = []
    for t in source.tables:
        cols = ",\n".join(f"  {duck.shown(c['name'])} {duck.shown_type(c['type'])}" for c in t.get("columns", []))
        out.append(f"CREATE TABLE {duck.shown(t['table'])} (\n{cols}\n);")
    return "\n".join(out)


def zero_shot(llm, case: Case, stores) -> tuple[str, list[tuple] | None]:  # noqa: ANN001
    from engine.native.kinds import open_store
    from engine.native.writers import writer_for

    source = case.source
    language = {"sql": f"{source.dialect} SQL", "cypher": "Cypher (Kùzu)", "sparql": "SPARQL"}[source.language]
    reply = llm.chat([{"role": "user", "content": f"{raw_schema(source)}\n\nWrite one {language} query that "
                                                  f"answers: {case.question}"}], max_tokens=220)
    query = writer_for(source.language).extract(reply)
    try:
        return query, [tuple(r) for r in open_store(source, stores).execute(query, 10, 1000).rows]
    except Exception:  # noqa: BLE001 (the baseline has no validation or repair)
        return query, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="movies,spider,sparql,wtq")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=40, help="questions per dataset (0 = all)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    if not EVAL.exists():
        print(f"{EVAL} is absent: nothing to measure")
        return 0
    from engine.models import ModelManager
    from engine.native import values
    from engine.native.examples import ExamplePicker
    from engine.native.querying import write_and_run
    from engine.native.writers import writer_for
    from engine.runtimes.llm import LLM
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.settings import default_home, default_models_dir
    from local_stores.sqlite_db import Database
    from local_stores.value_index import ValueIndex

    manager = ModelManager(default_models_dir(default_home()))
    llm = LLM.from_manager(manager, args.llm, n_ctx=4096)
    embedder = TextEmbedder.from_manager(manager)
    picker = ExamplePicker(embedder)
    work = args.out / "native-work"
    stores = stores_in(work)
    summary, details = [], {}
    for name in args.datasets.split(","):
        t0 = time.perf_counter()
        cases = DATASETS[name](work, stores, args.limit)
        held = ValueIndex(Database(work / "values.sqlite"))  # what Trove's value index tells a query writer
        values.refresh(held, list({c.source.name: c.source for c in cases}.values()), stores)
        setup_s = time.perf_counter() - t0
        rows = []
        for case in tqdm(cases, file=sys.stderr, desc=f"{name} ({args.llm})"):
            t0 = time.perf_counter()
            zs_query, zs_rows = zero_shot(llm, case, stores)
            zs_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            examples = picker.pick(writer_for(case.source.language).EXAMPLES, case.question, 3, case.source.engine)
            outcome = write_and_run(llm, case.question, case.source, stores, 3, 10, 1000, examples, held)
            tr_s = time.perf_counter() - t0
            tr_rows = [tuple(r) for r in outcome.result.rows] if outcome.result else None
            rows.append({"question": case.question, "source": case.source.name, "gold_runs": case.gold is not None,
                         "zero_shot": {"query": zs_query, "ok": same(zs_rows, case), "runs": zs_rows is not None,
                                       "s": zs_s},
                         "trove": {"query": outcome.query, "ok": same(tr_rows, case), "runs": outcome.ok,
                                   "tries": len(outcome.attempts), "s": tr_s}})
        details[name] = rows
        n = len(rows)
        for key, label in (("zero_shot", "zero-shot"), ("trove", "Trove")):
            ok = sum(r[key]["ok"] for r in rows)
            runs = sum(r[key]["runs"] for r in rows)
            summary.append(f"| {name} | {label} | {ok}/{n} = {ok / max(n, 1):.1%} | {1 - runs / max(n, 1):.1%} | "
                           f"{statistics.median(r[key]['s'] for r in rows):.1f} | {setup_s:.1f} |")
        print(summary[-2] + "\n" + summary[-1], file=sys.stderr)
    table = "\n".join(["| dataset | system | execution accuracy | not executing | median s/question | setup s |",
                       "|---|---|---:|---:|---:|---:|", *summary])
    stamp = datetime.now().isoformat(timespec="seconds")
    text = (f"# Native query writing, {args.llm} LLM\n\ndate: {stamp}  \ncommand: `python -m bench.native "
            f"--datasets {args.datasets} --llm {args.llm} --limit {args.limit}`\n\n{table}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    recorded = args.out / f"native-{args.llm}.json"
    kept = {k: v for k, v in (json.loads(recorded.read_text()) if recorded.is_file() else {}).items()
            if k not in details}
    if kept:
        text += f"\nKept from the earlier run in {recorded.name}: {', '.join(kept)}.\n"
    (args.out / f"native-{args.llm}.md").write_text(text)
    recorded.write_text(json.dumps({**kept, **details}, indent=1, default=str))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
