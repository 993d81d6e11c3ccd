"""Follow-ups in conversations: Trove against the ceiling and the baseline, in one run.

    .venv/bin/python -m bench.conversations [--llm llm] [--parts conversations,scope] [--limit 0]
        [--only TEXT[,TEXT]] [--sets a,b] [--resume] [--reindex] [--work DIR] [--out bench/out]

Every conversation of bench/conversations/*.toml is asked over its home: `eval` is bench.answers'
disk and home (real data from ../shared/eval, everything in one home; shared with that bench under
`--work`), `examples` the bundled folder. Each first turn is asked once; each follow-up three ways:
`trove` (in the conversation: rewritten from the turns before it), `standalone` (the question
written by hand to stand alone: the ceiling) and `typed` (the follow-up as typed, alone: the
baseline). Scored with bench.answers' judge (values and citation); the rewrite is scored against the
hand-written question. `--limit N` keeps at most N conversations of each set (spread over it).
`--resume` keeps the conversations `--out` already logged and asks the rest (the whole set takes
longer than one sitting); each row says the commit it was asked at.
The `scope` part (bench/conversations/scoped.py) asks the questions of scoped.toml inside each of two
similar folders and unscoped, over its own home under `--work`. The `rewrites` part
(bench/conversations/rewrites.py) scores the rewrite alone over every conversation chosen, after the
turns before it as they should have gone, under each rewrite policy (only the LLM is loaded).
Writes conversations.md / .json, scope.md / .json and rewrites.md / .json under `--out`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from bench.answers import __main__ as answers
from bench.answers.judging import judge
from bench.conversations import rewrites, scoped
from bench.conversations.sets import EXAMPLES, FOLLOWS, Talk, Turn, load, rewrite_ok

CONDITIONS = ("trove", "standalone", "typed")
TARGETS = {"of_ceiling": 0.85, "over_typed": 0.30}


def pick(talks: list[Talk], limit: int, only: str | None) -> list[Talk]:
    chosen = [t for t in talks if not only or any(part in t.id for part in only.split(","))]
    if not limit:
        return chosen
    out = []
    for name in sorted({t.set for t in chosen}):
        of_set = [t for t in chosen if t.set == name]
        step = max(1, len(of_set) / limit)
        out += [of_set[int(i * step)] for i in range(min(limit, len(of_set)))]
    return out


def of_sets(talks: list[Talk], sets: str | None) -> list[Talk]:
    """The conversations of the comma-separated `sets` (all of them when None), in the order given:
    a run over some sets asks what the whole run asks of them."""
    return [t for t in talks if not sets or t.set in sets.split(",")]


def open_homes(talks: list[Talk], work: Path, llm: str, reindex: bool) -> dict:
    """One Trove per home the conversations use."""
    from engine.pipeline import Trove
    from engine.settings import default_home, default_models_dir, load_settings

    troves = {}
    if any(t.home == "eval" for t in talks):
        named = answers.load_questions() + [turn.question() for t in talks for turn in t.turns if t.home == "eval"]
        troves["eval"] = answers.open_home(work, llm, reindex, named)
    if any(t.home == "examples" for t in talks):
        settings = load_settings(work / "home-examples", models_dir=default_models_dir(default_home()), llm=llm)
        shared = troves["eval"].models if "eval" in troves else None  # one copy of each model, one KV cache
        trove = Trove(settings, models=shared)
        trove.index([EXAMPLES])
        troves["examples"] = trove
    return troves


def asked(trove, text: str, conversation=None) -> tuple[dict, float]:  # noqa: ANN001
    """The answer object and its seconds; a failure is an answer that says so (the run goes on)."""
    t0 = time.perf_counter()
    try:
        result = trove.ask(text, conversation=conversation).to_dict()
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)  # the run goes on; where it failed is in its log
        result = {"answer": f"ERROR {type(exc).__name__}: {exc}", "citations": [], "answered": False,
                  "general": False, "unsupported": [], "routes": [], "queries": [], "timings_ms": {}}
    return result, time.perf_counter() - t0


def row(talk: Talk, n: int, turn: Turn, condition: str, result: dict, seconds: float) -> dict:
    verdict = judge(result, turn.question())
    out: dict = {"id": talk.id, "set": talk.set, "turn": n, "follow": turn.follow, "condition": condition,
                 "text": turn.text, "standalone": turn.standalone, "seconds": seconds, "verdict": verdict.as_dict(),
                 "result": result}
    if condition == "trove" and turn.follow:
        out["asked_as"] = result.get("asked_as", turn.text)
        out["rewrite_ok"] = rewrite_ok(turn, out["asked_as"])
        out["rewrite_s"] = result.get("timings_ms", {}).get("rewrite", 0.0) / 1000
    return out


def converse(trove, talk: Talk) -> list[dict]:  # noqa: ANN001
    """The conversation's turns asked each way; the first turn once (it is the same in each)."""
    from engine.conversations import Conversation

    conversation = Conversation()
    rows = []
    for n, turn in enumerate(talk.turns, start=1):
        result, seconds = asked(trove, turn.text, conversation)
        rows.append(row(talk, n, turn, "trove" if turn.follow else "first", result, seconds))
        if turn.follow:
            for condition, text in (("standalone", turn.standalone), ("typed", turn.text)):
                result, seconds = asked(trove, text)
                rows.append(row(talk, n, turn, condition, result, seconds))
    return rows


def run(troves: dict, talks: list[Talk], log: Path, resume: bool = False) -> list[dict]:
    """Each conversation asked and logged as it ends; with `resume`, those `log` already holds are
    kept and not asked again (a whole run takes longer than one sitting)."""
    logged = done_rows(log) if resume else []
    rows = [r for talk in talks for r in whole(logged, talk)]
    done = {r["id"] for r in rows}
    commit = code_commit()
    with log.open("a" if resume else "w", encoding="utf-8") as out:
        if resume and log.stat().st_size and not log.read_bytes().endswith(b"\n"):
            out.write("\n")  # after the half line a cut run left
        for i, talk in enumerate(talks, start=1):
            if talk.id in done:
                continue
            got = [{**r, "commit": commit} for r in converse(troves[talk.home], talk)]
            out.write("".join(json.dumps(r) + "\n" for r in got))  # one write: a cut run leaves whole ones
            out.flush()
            rows += got
            marks = " ".join(f"{r['condition'][:2]}{'✓' if r['verdict']['correct'] else '✗'}" for r in got)
            print(f"[{i}/{len(talks)}] {talk.id}: {marks}", file=sys.stderr, flush=True)
    return rows


def done_rows(log: Path) -> list[dict]:
    """The rows an earlier run logged; a line a cut run left half-written is passed over."""
    if not log.is_file():
        return []
    rows = []
    with log.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


def whole(logged: list[dict], talk: Talk) -> list[dict]:
    """The last complete set of rows `logged` holds for `talk` (its first turn once, each follow-up
    three ways), or none: a conversation logged in part is asked again."""
    expected = sum(3 if turn.follow else 1 for turn in talk.turns)
    of_talk = [r for r in logged if r["id"] == talk.id]
    return of_talk[-expected:] if len(of_talk) >= expected else []


def code_commit() -> str:
    """The commit the run asks with ("" outside a git checkout): a resumed run says which it spans."""
    try:
        found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=answers.HERE.parent.parent,
                               capture_output=True, text=True, check=False, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout.strip()


def rate(rows: list[dict], key: str) -> float:
    return sum(bool(r["verdict"][key]) for r in rows) / len(rows) if rows else 0.0


def summarise(rows: list[dict]) -> dict:
    """Per condition over the follow-ups: correct, wrong with a citation, seconds; Trove's rewrites."""
    follow_ups = [r for r in rows if r["follow"]]
    out: dict = {"first": {"n": sum(r["condition"] == "first" for r in rows),
                           "correct": rate([r for r in rows if r["condition"] == "first"], "correct")}}
    for condition in CONDITIONS:
        of = [r for r in follow_ups if r["condition"] == condition]
        seconds = sorted(r["seconds"] for r in of)
        out[condition] = {
            "n": len(of), "correct": rate(of, "correct"), "wrong_cited": rate(of, "wrong_cited"),
            "seconds_p50": statistics.median(seconds) if seconds else 0.0,
            "seconds_p95": seconds[int(0.95 * (len(seconds) - 1))] if seconds else 0.0,
            "follows": {f: {"n": len(k), "correct": rate(k, "correct")}
                        for f in FOLLOWS if (k := [r for r in of if r["follow"] == f])},
            "sets": {s: {"n": len(k), "correct": rate(k, "correct")}
                     for s in sorted({r["set"] for r in of}) if (k := [r for r in of if r["set"] == s])},
        }
    trove = [r for r in follow_ups if r["condition"] == "trove"]
    out["rewrite"] = {"correct": sum(r["rewrite_ok"] for r in trove) / len(trove) if trove else 0.0,
                      "changed": sum(r["asked_as"] != r["text"] for r in trove) / len(trove) if trove else 0.0,
                      "seconds_p50": statistics.median([r["rewrite_s"] for r in trove]) if trove else 0.0}
    return out


def header(title: str, command: str, llm: str) -> list[str]:
    return [f"# {title}\n\ndate: {datetime.now().isoformat(timespec='seconds')}  ",
            f"command: `{command}`  \nLLM: {llm}\n"]


def render_follow_ups(summary: dict, rows: list[dict]) -> list[str]:
    t, s, b = (summary[c] for c in CONDITIONS)
    first = summary["first"]
    commits = sorted({r.get("commit", "") for r in rows} - {""})
    lines = [f"Follow-ups: {t['n']}; first turns: {first['n']} ({first['correct']:.0%} correct)"
             + (f"; asked at {', '.join(commits)} (a resumed run)" if len(commits) > 1 else "") + "\n",
             "| follow-ups | trove (rewritten) | standalone by hand (ceiling) | as typed (baseline) |",
             "|---|---:|---:|---:|",
             f"| correct (values + citation) | {t['correct']:.0%} | {s['correct']:.0%} | {b['correct']:.0%} |",
             f"| wrong with a citation | {t['wrong_cited']:.0%} | {s['wrong_cited']:.0%} | {b['wrong_cited']:.0%} |",
             f"| seconds p50 / p95 | {t['seconds_p50']:.1f} / {t['seconds_p95']:.1f} | "
             f"{s['seconds_p50']:.1f} / {s['seconds_p95']:.1f} | {b['seconds_p50']:.1f} / {b['seconds_p95']:.1f} |",
             "", f"Rewrites: {summary['rewrite']['correct']:.0%} say what the hand-written question says; "
                 f"{summary['rewrite']['changed']:.0%} of follow-ups were rewritten; "
                 f"rewrite {summary['rewrite']['seconds_p50']:.1f} s p50.", "",
             "| follow | n | trove | ceiling | baseline |", "|---|---:|---:|---:|---:|"]
    for follow, of in t["follows"].items():
        lines.append(f"| {follow} | {of['n']} | {of['correct']:.0%} | {s['follows'][follow]['correct']:.0%} | "
                     f"{b['follows'][follow]['correct']:.0%} |")
    lines += ["", "| set | n | trove | ceiling | baseline |", "|---|---:|---:|---:|---:|"]
    for name, of in t["sets"].items():
        lines.append(f"| {name} | {of['n']} | {of['correct']:.0%} | {s['sets'][name]['correct']:.0%} | "
                     f"{b['sets'][name]['correct']:.0%} |")
    ratio = t["correct"] / s["correct"] if s["correct"] else 0.0
    near = "yes" if ratio >= TARGETS["of_ceiling"] else "no"
    lines += ["", "| target | this run | met |", "|---|---:|---|",
              f"| ≥ 85 % of the standalone ceiling | {ratio:.0%} | {near} |",
              f"| ≥ 30 points over the as-typed baseline | {100 * (t['correct'] - b['correct']):+.0f} | "
              f"{'yes' if t['correct'] - b['correct'] >= TARGETS['over_typed'] else 'no'} |", "",
              "## Follow-ups Trove got wrong", ""]
    for r in rows:
        if r["condition"] == "trove" and not r["verdict"]["correct"]:
            lines.append(f"- `{r['id']}` turn {r['turn']} ({r['follow']}): {r['text']!r} asked as {r['asked_as']!r}"
                         f"{'' if r['rewrite_ok'] else ' (rewrite off)'} → {r['result']['answer'][:160]!r}")
    return lines + [""]


def rewrite_all(talks: list[Talk], llm: str, out: Path, command: str) -> None:
    """The `rewrites` part: the rewrite alone under each policy, with the LLM loaded by itself."""
    from engine.models import ModelManager
    from engine.models.loaded import Models
    from engine.settings import default_home, default_models_dir, load_settings

    settings = load_settings(default_home(), llm=llm)
    model = Models(ModelManager(default_models_dir(default_home())), settings).llm
    rows = rewrites.run(model, talks)
    summary = rewrites.summarise(rows)
    text = "\n".join(header("Rewrites of follow-ups, by policy", command, model.name) +
                     rewrites.render(summary, rows)) + "\n"
    answers.write_outputs(out, "rewrites", text, {"command": command, "summary": summary, "rows": rows})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="llm")
    parser.add_argument("--parts", default="conversations,scope")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--only", default=None)
    parser.add_argument("--sets", default=None,
                        help="only the conversations of these sets (comma-separated), picked as in the whole run")
    parser.add_argument("--reindex", action="store_true")
    parser.add_argument("--resume", action="store_true",
                        help="keep the conversations --out's conversations.jsonl already holds; ask the rest")
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "trove" / "bench-answers")
    parser.add_argument("--out", type=Path, default=answers.HERE.parent / "out")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    chosen = of_sets(pick(load(), args.limit, args.only), args.sets)
    talks = chosen if "conversations" in parts else []
    if not chosen and parts & {"conversations", "rewrites"}:
        raise SystemExit("no conversations chosen")
    args.out.mkdir(parents=True, exist_ok=True)
    command = ("python -m bench.conversations " + shlex.join(argv if argv is not None else sys.argv[1:])).strip()
    if "rewrites" in parts:
        rewrite_all(chosen, args.llm, args.out, command)
    troves = open_homes(talks, args.work, args.llm, args.reindex) if talks else {}
    shared = next(iter(troves.values())).models if troves else None
    if talks:  # each part writes its own report: conversations.md, scope.md (and their .json)
        rows = run(troves, talks, args.out / "conversations.jsonl", args.resume)
        summary = summarise(rows)
        assert shared is not None  # troves has a Trove per home the talks use
        text = "\n".join(header("Follow-ups in conversations", command, shared.llm.name) +
                         render_follow_ups(summary, rows)) + "\n"
        answers.write_outputs(args.out, "conversations", text, {"command": command, "summary": summary, "rows": rows})
    if "scope" in parts:
        trove = scoped.open_home(args.work, args.llm, args.reindex, shared)
        rows = scoped.run(trove, args.work / "scope-disk", scoped.load()[1])
        summary = scoped.summarise(rows)
        text = "\n".join(header("Scoped questions", command, trove.models.llm.name) +
                         scoped.render(summary, rows)) + "\n"
        answers.write_outputs(args.out, "scope", text, {"command": command, "summary": summary, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
