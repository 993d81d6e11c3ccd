"""The eval sets' own development questions, sampled, asked of the whole pipeline over a home that
holds every source at once; each answer judged by the values of the question's gold result.

    .venv/bin/python -m bench.sampled [--sets spider,sparql,movies,wtq] [--per-set 15] [--seed 50]
        [--work DIR] [--out bench/out]

bench.answers asks questions written here by reading the data; these are the benchmarks' own
(Spider, Spider4SPARQL, the movies graph's text2cypher set, WikiTableQuestions), as the unseen sets
that judge the project are. Each is asked of Trove over the bench.answers home (its disk and index,
`--work`), so routing and the choice among 20 databases, 19 RDF graphs, a property graph, 155 tables
and the documents are part of every question. Gold values: Spider's SQL run on its SQLite file (for
Spider4SPARQL too: the same questions, the same data), the movies set's stored result (its names
only, where its gold query returns counts or years beside them to rank by), WTQ's target.
A question is kept when its gold result has at most 6 rows of at most 3 values. Correct: every gold
value is in the answer (citation markers left out; numbers compared at the answer's precision).
Wrong with a citation: an answer with citations that is not correct. Writes sampled.md / sampled.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from bench.answers.disk import EVAL
from bench.sql import run_sql
from engine.scope import Scope

MAX_ROWS, MAX_VALUES = 6, 3
Value = str | int | float


@dataclass(frozen=True)
class Sampled:
    """One benchmark question with the values its gold result holds."""

    set: str
    question: str
    expect: tuple[Value, ...]
    gold: str  # the gold query, or for WTQ the table it asks
    place: str = ""  # the file or folder (under the home's disk) that holds the answer: `--scoped` asks there


def _small(rows: Sequence[Sequence[Value]]) -> bool:
    return bool(rows) and len(rows) <= MAX_ROWS and all(0 < len(r) <= MAX_VALUES for r in rows) and all(
        v is not None and not isinstance(v, (list, dict)) for r in rows for v in r)


def _flat(rows: Sequence[Sequence[Value]]) -> tuple[Value, ...]:
    return tuple(dict.fromkeys(v for r in rows for v in r))


def _spider_rows(db_id: str, sql: str) -> list[tuple] | None:
    """Spider's gold SQL run on its SQLite file, read-only (None when the file is missing or it fails)."""
    file = EVAL / "sql" / "spider" / "database" / db_id / f"{db_id}.sqlite"
    return run_sql(sql, file) if file.is_file() else None


def spider(rng: random.Random, n: int) -> list[Sampled]:
    dev = json.loads((EVAL / "sql" / "spider" / "dev.json").read_text(encoding="utf-8"))
    out: list[Sampled] = []
    for q in rng.sample(dev, len(dev)):
        if len(out) < n and (rows := _spider_rows(q["db_id"], q["query"])) is not None and _small(rows):
            out.append(Sampled("spider", q["question"], _flat(rows), q["query"], f"sql/spider/database/{q['db_id']}"))
    return out


def sparql(rng: random.Random, n: int) -> list[Sampled]:
    """Spider4SPARQL's questions, with the values of the Spider SQL asked in the same words of the same data."""
    sql = {(d["db_id"], d["question"]): d["query"]
           for d in json.loads((EVAL / "sql" / "spider" / "dev.json").read_text(encoding="utf-8"))}
    dev = json.loads((EVAL / "sparql" / "spider4sparql" / "dev.json").read_text(encoding="utf-8"))
    out: list[Sampled] = []
    for q in rng.sample(dev, len(dev)):
        gold = sql.get((q["kg_name"], q["question"]))
        if len(out) < n and gold and (rows := _spider_rows(q["kg_name"], gold)) is not None and _small(rows):
            out.append(Sampled("sparql", q["question"], _flat(rows), q["query"],
                               f"sparql/spider4sparql/kg/{q['kg_name']}_triples.ttl"))
    return out


def movies(rng: random.Random, n: int) -> list[Sampled]:
    dev = json.loads((EVAL / "cypher" / "movies" / "movies_eval.json").read_text(encoding="utf-8"))
    kept = [Sampled("movies", q["question"], _named(q["result"]), q["cypher"], "cypher/movies")
            for q in rng.sample(dev, len(dev)) if _small(q["result"])]
    return kept[:n]


def _named(rows: Sequence[Sequence[Value]]) -> tuple[Value, ...]:
    """The names a movies result gives (its titles, people), without the counts and years its gold
    query returns beside them to rank by; all of its values when it holds no name."""
    values = _flat(rows)
    return tuple(v for v in values if _as_number(v) is None) or values


def wtq(rng: random.Random, n: int) -> list[Sampled]:
    dev = json.loads((EVAL / "tables" / "wtq" / "questions.json").read_text(encoding="utf-8"))
    return [Sampled("wtq", q["utterance"], (q["targetValue"],), q["context"], _wtq_place(q["context"]))
            for q in rng.sample(dev, len(dev))][:n]


def _wtq_place(context: str) -> str:
    """Where the home's disk keeps a WTQ table ("csv/203-csv/381.csv" is tables/wtq/csv/csv__203-csv__381.csv)."""
    return f"tables/wtq/csv/{context.replace('/', '__')}"


SETS: dict[str, Callable[[random.Random, int], list[Sampled]]] = {
    "spider": spider, "sparql": sparql, "movies": movies, "wtq": wtq}

_MARKER = re.compile(r"\s*\[\d+\]")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d)")


def _plain(answer: str) -> str:
    """The answer as values are looked for in it: no citation markers, one space, dates as ISO with a space."""
    return " ".join(_DATE_TIME.sub(r"\1 \2", _MARKER.sub("", answer)).split()).lower()


def found(value: Value, answer: str) -> bool:
    """Whether `answer` states `value`: a number at the answer's own precision (28.86 for
    28.8623…), a text as whole words, ignoring case."""
    text = _plain(answer)
    number = _as_number(value)
    if number is not None:
        return any(_same_number(number, written) for written in _NUMBER.findall(text))
    wanted = " ".join(_DATE_TIME.sub(r"\1 \2", str(value)).split()).lower()
    return bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", text) is not None


def _as_number(value: Value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def _same_number(number: float, written: str) -> bool:
    plain = written.replace(",", "")
    decimals = len(plain.partition(".")[2])
    return round(number, decimals) == float(plain)


def judge(sampled: Sampled, result: dict) -> dict[str, bool]:
    correct = all(found(v, result.get("answer", "")) for v in sampled.expect)
    return {"correct": correct, "not_found": not result.get("answered", True),
            "wrong_cited": not correct and bool(result.get("citations"))}


def ask(trove, sampled: Sampled, disk: Path | None = None) -> dict:  # noqa: ANN001 (Trove)
    """Ask one question; with `disk` (the home's folder of files), inside the file that holds its answer."""
    t0 = time.perf_counter()
    try:
        scope = Scope(paths=(str(disk / sampled.place),)) if disk is not None and sampled.place else None
        result = trove.ask(sampled.question, scope=scope).to_dict()
    except Exception as exc:  # noqa: BLE001 - a failed question is scored, the run goes on
        result = {"answer": f"ERROR {type(exc).__name__}: {exc}", "citations": [], "answered": False, "queries": []}
    seconds = time.perf_counter() - t0
    return {**asdict(sampled), "seconds": seconds, "verdict": judge(sampled, result), "answer": result["answer"],
            "sources": sorted({c["source"] for c in result.get("citations", [])}),
            "queries": result.get("queries", []), "timings_ms": result.get("timings_ms", {})}


def summarise(rows: list[dict]) -> dict:
    def share(of: list[dict], key: str) -> float:
        return sum(r["verdict"][key] for r in of) / len(of) if of else 0.0
    seconds = [r["seconds"] for r in rows]
    return {"n": len(rows), "correct": share(rows, "correct"), "wrong_cited": share(rows, "wrong_cited"),
            "not_found": share(rows, "not_found"), "seconds_p50": statistics.median(seconds) if seconds else 0.0}


def render(rows: list[dict], command: str, llm: str) -> str:
    sets = sorted({r["set"] for r in rows}, key=list(SETS).index)
    lines = [f"# The benchmarks' own questions, sampled\n\ndate: {datetime.now().isoformat(timespec='seconds')}  ",
             f"command: `{command}`  \nLLM: {llm}; questions: {len(rows)}\n",
             "| set | n | correct | wrong with a citation | not found | seconds p50 |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, of in [(s, [r for r in rows if r["set"] == s]) for s in sets] + [("all", rows)]:
        s = summarise(of)
        lines.append(f"| {name} | {s['n']} | {s['correct']:.0%} | {s['wrong_cited']:.0%} | {s['not_found']:.0%} | "
                     f"{s['seconds_p50']:.1f} |")
    lines += ["", "| set | question | expected | answer | |", "|---|---|---|---|---|"]
    for r in rows:
        mark = "ok" if r["verdict"]["correct"] else "wrong, cited" if r["verdict"]["wrong_cited"] else "no answer"
        answer = " ".join(r["answer"].split())[:160].replace("|", "/")
        expected = ", ".join(map(str, r["expect"]))[:80].replace("|", "/")
        lines.append(f"| {r['set']} | {r['question'].replace('|', '/')} | {expected} | {answer} | {mark} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--per-set", type=int, default=15)
    parser.add_argument("--seed", type=int, default=50)
    parser.add_argument("--llm", default="llm")
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "trove" / "bench-answers")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument("--scoped", action="store_true",
                        help="ask each question inside the file that holds its answer (no source choice)")
    args = parser.parse_args(argv)
    unknown = [s for s in args.sets.split(",") if s not in SETS]
    if unknown:
        raise SystemExit(f"unknown set(s) {', '.join(unknown)}: choose from {', '.join(SETS)}")
    if not EVAL.is_dir():
        raise SystemExit(f"{EVAL}: the shared eval data is not here; bench.sampled needs it")
    questions = [q for s in args.sets.split(",") for q in SETS[s](random.Random(args.seed), args.per_set)]
    from bench.answers.__main__ import load_questions, open_home

    trove = open_home(args.work, args.llm, False, load_questions())
    rows = []
    for i, sampled in enumerate(questions, start=1):
        rows.append(row := ask(trove, sampled, args.work / "disk" if args.scoped else None))
        mark = "ok" if row["verdict"]["correct"] else "XX"
        print(f"[{i}/{len(questions)}] {mark} {sampled.set}: {sampled.question[:80]!r} ({row['seconds']:.0f} s): "
              f"{row['answer'][:120]!r}", file=sys.stderr, flush=True)
    command = "python -m bench.sampled " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = render(rows, command.strip(), trove.models.llm.name)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sampled.md").write_text(text, encoding="utf-8")
    (args.out / "sampled.json").write_text(json.dumps({"command": command, "rows": rows}, indent=1, default=str),
                                           encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
