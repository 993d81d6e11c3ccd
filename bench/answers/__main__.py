"""Trove against a plain baseline on a development set over real data nobody here wrote.

    .venv/bin/python -m bench.answers [--llm default] [--systems trove,baseline] [--limit 0]
        [--only TEXT] [--unseen-by N] [--reindex] [--work DIR] [--out bench/out]

The data of ../shared/eval is copied onto a disk under `--work` (default ~/.cache/trove/bench-answers)
and indexed into one home there (kept between runs; `--reindex` starts it afresh, which a change to
ingest needs). Every question of bench/answers/questions/*.toml is asked of each system; `--limit N`
keeps at most N questions of each kind (spread over the set) for a quick look, `--only` those whose id
contains TEXT (or one of TEXT,TEXT,...), `--unseen-by N` leaves out those `--limit N` asks (`--limit 14
--unseen-by 7`: seven others of each kind, a check of fixes read from the `--limit 7` look on questions
they were not read from); `--routes-only` routes every question and answers none (where routing sends each kind of
question, in seconds). Per kind: correct (values and citation), wrong with a citation, unsupported
claims, seconds per question; "not found" precision and recall. Writes answers.md / answers.json under `--out`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import sys
import time
import tomllib
import traceback
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from bench.answers import baseline, disk, routes
from bench.answers.judging import Verdict, judge, sources

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions"
KINDS = ("fact", "date", "number", "list", "aggregate", "find", "count", "moment", "cross", "general",
         "unanswerable")
TARGETS = {"correct": 0.85, "kind": 0.75, "wrong_cited": 0.03, "unsupported": 0.05, "not_found": 0.90,
           "margin": 0.20}


def load_questions() -> list[dict]:
    """Every question of questions/*.toml, checked: unique ids, known kinds, sources that exist."""
    questions: list[dict] = []
    seen: set[str] = set()
    for path in sorted(QUESTIONS.glob("*.toml")):
        with path.open("rb") as fh:
            for q in tomllib.load(fh).get("question", []):
                q["set"] = path.stem
                problem = _problem(q, seen)
                if problem:
                    raise SystemExit(f"{path.name}: question {q.get('id', '?')}: {problem}")
                seen.add(q["id"])
                questions.append(q)
    return questions


def _problem(q: dict, seen: set[str]) -> str | None:
    if q.get("id") in seen:
        return "the id is used twice"
    if q.get("kind") not in KINDS:
        return f"unknown kind {q.get('kind')!r}"
    missing = [s for s in sources(q) if not (disk.EVAL / s).is_file() and not s.startswith("text/")]
    return f"no such file under eval: {missing[0]}" if missing else None


def pick(questions: list[dict], limit: int, only: str | None, unseen_by: int = 0) -> list[dict]:
    """At most `limit` questions of each kind, spread over the set (all: 0), of those whose id holds
    `only` (or one of its comma-separated parts), less those `limit=unseen_by` picks (the questions a
    quick look did not ask)."""
    chosen = [q for q in questions if not only or any(part in q["id"] for part in only.split(","))]
    seen = {q["id"] for q in pick(questions, unseen_by, only)} if unseen_by else set()
    if limit:
        spread = []
        for kind in KINDS:
            of_kind = [q for q in chosen if q["kind"] == kind]
            step = max(1, len(of_kind) / limit)
            spread += [of_kind[int(i * step)] for i in range(min(limit, len(of_kind)))]
        chosen = spread
    return [q for q in chosen if q["id"] not in seen]


def open_home(work: Path, llm: str, reindex: bool, questions: list[dict]):  # noqa: ANN201 (Trove)
    from engine.pipeline import Trove
    from engine.settings import default_home, default_models_dir, load_settings

    home = work / "home"
    if reindex and home.exists():
        shutil.rmtree(home)
    folders = disk.build(work / "disk", [s for q in questions for s in sources(q)])
    trove = Trove(load_settings(home, models_dir=default_models_dir(default_home()), llm=llm))
    t0 = time.perf_counter()
    report = trove.index(folders)
    print(f"indexed {report.items} new items in {time.perf_counter() - t0:.0f} s; "
          f"{report.failed} files failed", file=sys.stderr, flush=True)
    return trove


def ask(trove, system: str, question: str) -> dict:  # noqa: ANN001
    try:
        if system == "baseline":
            return baseline.ask(trove, question)
        return trove.ask(question).to_dict()
    except Exception as exc:  # noqa: BLE001 - a failed question is scored, the run goes on
        traceback.print_exc(file=sys.stderr)  # where it failed is in the run's log
        return {"answer": f"ERROR {type(exc).__name__}: {exc}", "citations": [], "answered": False,
                "general": False, "unsupported": [], "routes": [], "queries": [], "timings_ms": {}}


def run(trove, systems: list[str], questions: list[dict], log: Path) -> list[dict]:  # noqa: ANN001
    runs = []
    with log.open("w", encoding="utf-8") as out:
        for system in systems:
            for i, q in enumerate(questions, start=1):
                t0 = time.perf_counter()
                result = ask(trove, system, q["text"])
                seconds = time.perf_counter() - t0
                verdict = judge(result, q)
                row = {"system": system, "id": q["id"], "kind": q["kind"], "set": q["set"], "question": q["text"],
                       "expect": q.get("expect", []), "source": q.get("source", ""), "seconds": seconds,
                       "verdict": verdict.as_dict(), "result": result}
                runs.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
                mark = "ok" if verdict.correct else "XX"
                print(f"[{system} {i}/{len(questions)}] {mark} {q['id']} ({seconds:.1f} s): "
                      f"{result['answer'][:120]!r}", file=sys.stderr, flush=True)
    return runs


def rate(rows: list[dict], key: str) -> float:
    return sum(r["verdict"][key] for r in rows) / len(rows) if rows else 0.0


def summarise(rows: list[dict]) -> dict:
    """Scores of one system over `rows`: overall, per kind, and "not found" precision/recall."""
    answered = [r for r in rows if r["result"].get("answered")]
    said = [r for r in rows if r["verdict"]["said_not_found"]]
    unanswerable = [r for r in rows if r["kind"] == "unanswerable"]
    seconds = [r["seconds"] for r in rows]
    return {
        "n": len(rows), "correct": rate(rows, "correct"), "values_ok": rate(rows, "values_ok"),
        "wrong_cited": rate(rows, "wrong_cited"), "unsupported": rate(answered, "unsupported_claim"),
        "not_found_precision": (sum(r["kind"] == "unanswerable" for r in said) / len(said)) if said else 0.0,
        "not_found_recall": rate(unanswerable, "correct"),
        "seconds_p50": statistics.median(seconds) if seconds else 0.0,
        "seconds_p95": sorted(seconds)[int(0.95 * (len(seconds) - 1))] if seconds else 0.0,
        "kinds": {k: {"n": len(of), "correct": rate(of, "correct"), "wrong_cited": rate(of, "wrong_cited")}
                  for k in KINDS if (of := [r for r in rows if r["kind"] == k])},
        "sets": {s: {"n": len(of), "correct": rate(of, "correct")}
                 for s in sorted({r["set"] for r in rows}) if (of := [r for r in rows if r["set"] == s])},
    }


def render(summaries: dict[str, dict], runs: list[dict], command: str, llm: str) -> str:
    systems = list(summaries)
    lines = [f"# Answers on files nobody here wrote\n\ndate: {datetime.now().isoformat(timespec='seconds')}  ",
             f"command: `{command}`  \nLLM: {llm}; questions: {summaries[systems[0]]['n']}\n",
             "| | " + " | ".join(systems) + " |", "|---|" + "---:|" * len(systems)]
    for key, name in (("correct", "correct (values + citation)"), ("values_ok", "values right"),
                      ("wrong_cited", "wrong with a citation"), ("unsupported", "unsupported claims (of answered)"),
                      ("not_found_recall", "unanswerable said not found"),
                      ("not_found_precision", "\"not found\" precision")):
        lines.append(f"| {name} | " + " | ".join(f"{summaries[s][key]:.0%}" for s in systems) + " |")
    lines.append("| seconds p50 / p95 | " + " | ".join(
        f"{summaries[s]['seconds_p50']:.1f} / {summaries[s]['seconds_p95']:.1f}" for s in systems) + " |")
    lines += ["", "| kind | n | " + " | ".join(f"{s} correct" for s in systems) + " |",
              "|---|---:|" + "---:|" * len(systems)]
    first = summaries[systems[0]]["kinds"]
    for kind, of in first.items():
        lines.append(f"| {kind} | {of['n']} | " + " | ".join(
            f"{summaries[s]['kinds'].get(kind, {}).get('correct', 0):.0%}" for s in systems) + " |")
    lines += ["", "| set | n | " + " | ".join(f"{s} correct" for s in systems) + " |",
              "|---|---:|" + "---:|" * len(systems)]
    for name, of in summaries[systems[0]]["sets"].items():
        lines.append(f"| {name} | {of['n']} | " + " | ".join(
            f"{summaries[s]['sets'].get(name, {}).get('correct', 0):.0%}" for s in systems) + " |")
    lines += ["", *targets(summaries), "", "## Wrong answers", ""]
    for r in runs:
        if not r["verdict"]["correct"]:
            why = _why(Verdict(**r["verdict"]))
            lines.append(f"- {r['system']} `{r['id']}` ({why}): {r['question']} → {r['result']['answer'][:200]!r}")
    return "\n".join(lines) + "\n"


def targets(summaries: dict[str, dict]) -> list[str]:
    """The issue's bar, checked on this run (Trove, and its margin over the same-run baseline)."""
    if "trove" not in summaries:
        return []
    t = summaries["trove"]
    b = summaries.get("baseline")
    checks = [("correct overall ≥ 85 %", t["correct"] >= TARGETS["correct"]),
              ("every kind ≥ 75 %", all(k["correct"] >= TARGETS["kind"] for k in t["kinds"].values())),
              ("wrong with a citation ≤ 3 %", t["wrong_cited"] <= TARGETS["wrong_cited"]),
              ("unsupported claims ≤ 5 %", t["unsupported"] <= TARGETS["unsupported"]),
              ("unanswerable said not found ≥ 90 %", t["not_found_recall"] >= TARGETS["not_found"])]
    if b:
        checks.append(("≥ 20 points ahead of the baseline", t["correct"] - b["correct"] >= TARGETS["margin"]))
    return ["| target | met |", "|---|---|", *(f"| {name} | {'yes' if ok else 'no'} |" for name, ok in checks)]


def _why(v: Verdict) -> str:
    if v.said_not_found:
        return "said not found"
    if not v.values_ok:
        return "values wrong" + ("" if v.citation_ok else ", citation wrong")
    return "citation wrong"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="llm")
    parser.add_argument("--systems", default="trove,baseline")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--only", default=None)
    parser.add_argument("--unseen-by", type=int, default=0, metavar="N",
                        help="leave out the questions --limit N would ask")
    parser.add_argument("--reindex", action="store_true")
    parser.add_argument("--routes-only", action="store_true", help="route every question, answer none")
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "trove" / "bench-answers")
    parser.add_argument("--out", type=Path, default=HERE.parent / "out")
    args = parser.parse_args(argv)
    every = load_questions()
    questions = pick(every, args.limit, args.only, args.unseen_by)
    if not questions:
        raise SystemExit("no questions chosen")
    trove = open_home(args.work, args.llm, args.reindex, every)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.routes_only:
        text = routes.run(trove, questions)
        (args.out / "answers-routes.md").write_text(text, encoding="utf-8")
        print(text)
        return 0
    systems = args.systems.split(",")
    runs = run(trove, systems, questions, args.out / "answers.jsonl")
    summaries = {s: summarise([r for r in runs if r["system"] == s]) for s in systems}
    command = "python -m bench.answers " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = render(summaries, runs, command.strip(), trove.models.llm.name)
    write_outputs(args.out, "answers", text, {"command": command, "summaries": summaries, "runs": runs})
    return 0


def write_outputs(out: Path, stem: str, text: str, data: dict) -> None:
    """A run's report as `stem`.md and its data as `stem`.json under `out`; the report printed."""
    (out / f"{stem}.md").write_text(text, encoding="utf-8")
    (out / f"{stem}.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
