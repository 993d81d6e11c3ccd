"""Where an answer's time goes, per kind of question and per stage, beside llama.cpp's own limit.

    .venv/bin/python -m bench.latency [--llm default] [--limit N] [--out bench/out]

Indexes examples/ into a fresh home and asks its questions twice in one process: with the saved
prefix states (engine/runtimes/prefixes.py) and without them (the context's own prefix reuse only).
For each question it records every model call (engine/runtimes/calls.py): stage, prompt tokens
evaluated and reused, tokens generated, time to first token. The limit, measured in the same run
with the same model and threads: llama.cpp alone evaluating, from an empty context, as many new
prompt tokens and generating as many tokens as each of the question's calls did (an optimistic
limit: it pays no attention over the reused prefix, no sampling, no Python). A question's kind is
that of its expected source (text, table, graph, rdf, photo, video), and `llm-routed` when the
router consulted the LLM. Writes `latency.md` and `latency.json` under `--out`.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bench.pipeline import EXAMPLES, ROOT, judge, percentile

if TYPE_CHECKING:
    from engine.pipeline import Trove
    from engine.runtimes.llm import LLM

_KINDS = {".csv": "table", ".xlsx": "table", ".sqlite": "table", ".cypher": "graph", ".ttl": "rdf",
          ".jpg": "photo", ".mp4": "video"}


@dataclass
class Asked:
    question: str
    kind: str
    mode: str  # "prefix states" or "context only"
    correct: bool
    answer: str
    timings_ms: dict[str, float]
    calls: list[dict]
    limit_ms: float = 0.0
    limit_first_ms: float = 0.0


def kind_of(question: dict, routers: set[str]) -> str:
    if "llm" in routers:
        return "llm-routed"
    source = question.get("source", "")
    if source.startswith("media:") or source == "vault":
        return "photo" if "photo" in source else "text"
    return _KINDS.get(Path(source).suffix, "text" if source else "none")


def ask_all(trove: Trove, questions: list[dict], mode: str) -> list[Asked]:
    llm = trove.models.llm
    asked = []
    for q in questions:
        llm.calls.take()
        result = trove.ask(q["text"])
        data = result.to_dict()
        calls = [asdict(c) for c in llm.calls.take()]
        asked.append(Asked(q["text"], kind_of(q, {r.get("router", "") for r in data["routes"]}), mode,
                           judge(data, q), data["answer"], data["timings_ms"], calls))
        print(f"  {mode:13} {data['timings_ms']['total'] / 1000:6.1f} s  {q['text'][:70]}", file=sys.stderr,
              flush=True)
    return asked


def limit_s(llm: LLM, evaluated: int, generated: int, filler: list[int]) -> tuple[float, float]:
    """(prompt, decode) seconds llama.cpp alone takes for `evaluated` new tokens and `generated` tokens."""
    llama = llm.llama
    llama.reset()
    llama._ctx.kv_cache_seq_rm(-1, 0, -1)  # noqa: SLF001 - an empty context
    t0 = time.perf_counter()
    if evaluated:
        llama.eval((filler * (evaluated // len(filler) + 1))[:evaluated])
    t1 = time.perf_counter()
    for _ in range(max(0, generated - 1)):
        llama.eval([filler[0]])
    return t1 - t0, time.perf_counter() - t1


def add_limits(llm: LLM, asked: list[Asked]) -> None:
    """Each question's limit, and the limit of its first answer word (the calls before the answer's,
    then the answer's prompt)."""
    filler = llm.llama.tokenize(b" the rent was paid in May and the boiler serviced", add_bos=False)
    for a in asked:
        first_seen = False
        for call in a.calls:
            prompt, decode = limit_s(llm, call["prompt_tokens"] - call["reused_tokens"], call["generated_tokens"],
                                     filler)
            a.limit_ms += (prompt + decode) * 1000
            if not first_seen:
                a.limit_first_ms += prompt * 1000 + (decode * 1000 / max(1, call["generated_tokens"] - 1)
                                                     if call["stage"] == "generate" else decode * 1000)
                first_seen = call["stage"] == "generate"
    llm.llama.reset()


def _sum(calls: list[dict], key: str, stage: str | None = None) -> int:
    return sum(c[key] for c in calls if stage is None or c["stage"] == stage)


def _evaluated(calls: list[dict]) -> int:
    """Prompt tokens the calls evaluated (not reused from the KV cache)."""
    return _sum(calls, "prompt_tokens") - _sum(calls, "reused_tokens")


def kind_table(asked: list[Asked]) -> str:
    rows = ["| kind | n | total p50 / p95 s | first words p50 / p95 s | limit p50 s | Trove / limit p50 | "
            "route / query / generate p50 s | prompt tokens evaluated / reused | generated |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind in sorted({a.kind for a in asked}):
        mine = [a for a in asked if a.kind == kind]
        total = [a.timings_ms["total"] / 1000 for a in mine]
        first = [a.timings_ms.get("first_token", a.timings_ms["total"]) / 1000 for a in mine]
        ratio = [a.timings_ms["total"] / a.limit_ms for a in mine if a.limit_ms]
        stages = " / ".join(f"{statistics.median([a.timings_ms.get(s, 0.0) for a in mine]) / 1000:.1f}"
                            for s in ("route", "query", "generate"))
        evaluated = statistics.mean([_evaluated(a.calls) for a in mine])
        reused = statistics.mean([_sum(a.calls, "reused_tokens") for a in mine])
        generated = statistics.mean([_sum(a.calls, "generated_tokens") for a in mine])
        rows.append(f"| {kind} | {len(mine)} | {statistics.median(total):.1f} / {percentile(total, 0.95):.1f} | "
                    f"{statistics.median(first):.1f} / {percentile(first, 0.95):.1f} | "
                    f"{statistics.median([a.limit_ms / 1000 for a in mine]):.1f} | "
                    f"{statistics.median(ratio) if ratio else 0:.2f} | {stages} | {evaluated:,.0f} / {reused:,.0f} | "
                    f"{generated:,.0f} |")
    return "\n".join(rows)


def stage_table(asked: list[Asked]) -> str:
    """Per stage, over all questions: calls, tokens, and the time to first token of its calls."""
    rows = ["| stage | calls | prompt tokens evaluated / reused (mean per call) | generated | call first token p50 s |"
            " call total p50 s |", "|---|---:|---:|---:|---:|---:|"]
    calls = [c for a in asked for c in a.calls]
    for stage in sorted({c["stage"] for c in calls}):
        mine = [c for c in calls if c["stage"] == stage]
        rows.append(f"| {stage or '(none)'} | {len(mine)} | "
                    f"{statistics.mean([c['prompt_tokens'] - c['reused_tokens'] for c in mine]):,.0f} / "
                    f"{statistics.mean([c['reused_tokens'] for c in mine]):,.0f} | "
                    f"{statistics.mean([c['generated_tokens'] for c in mine]):,.0f} | "
                    f"{statistics.median([c['first_token_s'] for c in mine]):.2f} | "
                    f"{statistics.median([c['total_s'] for c in mine]):.2f} |")
    return "\n".join(rows)


def modes_table(by_mode: dict[str, list[Asked]]) -> str:
    rows = ["| mode | accuracy | total p50 / p95 s | first words p50 / p95 s | prompt tokens evaluated per question |",
            "|---|---:|---:|---:|---:|"]
    for mode, asked in by_mode.items():
        total = [a.timings_ms["total"] / 1000 for a in asked]
        first = [a.timings_ms.get("first_token", a.timings_ms["total"]) / 1000 for a in asked]
        evaluated = statistics.mean([_evaluated(a.calls) for a in asked])
        rows.append(f"| {mode} | {sum(a.correct for a in asked)}/{len(asked)} | {statistics.median(total):.1f} / "
                    f"{percentile(total, 0.95):.1f} | {statistics.median(first):.1f} / {percentile(first, 0.95):.1f} "
                    f"| {evaluated:,.0f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=0, help="ask only the first N questions")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    from engine.pipeline import Trove
    from engine.settings import load_settings, user_models_dir

    with (EXAMPLES / "questions.toml").open("rb") as fh:
        questions = tomllib.load(fh)["question"][: args.limit or None]
    with tempfile.TemporaryDirectory() as tmp:
        trove = Trove(load_settings(Path(tmp) / "home", models_dir=user_models_dir(), llm=args.llm))
        trove.index([EXAMPLES])
        llm = trove.models.llm
        states = llm.prefixes
        by_mode = {"prefix states": ask_all(trove, questions, "prefix states")}
        held_mb = states.size / 2**20 if states else 0.0
        llm.prefixes = None
        llm.llama.reset()
        by_mode["context only"] = ask_all(trove, questions, "context only")
        llm.prefixes = states
        add_limits(llm, by_mode["prefix states"])
        same = sum(a.answer == b.answer for a, b in zip(*by_mode.values(), strict=True))
    command = "python -m bench.latency " + " ".join(argv if argv is not None else sys.argv[1:])
    asked = by_mode["prefix states"]
    text = (f"# Ask latency per kind and stage, beside llama.cpp's limit\n\n"
            f"date: {datetime.now().isoformat(timespec='seconds')}  \ncommand: `{command.strip()}`  \n"
            f"model: {llm.name}, {trove.settings.threads} threads  \nquestions: examples/questions.toml "
            f"({len(questions)})\n\n## Per kind (with prefix states)\n\n{kind_table(asked)}\n\n"
            f"## Per stage (with prefix states)\n\n{stage_table(asked)}\n\n## Prefix states on and off\n\n"
            f"{modes_table(by_mode)}\n\nthe same answer word for word: {same}/{len(questions)}; prefix states "
            f"held: {held_mb:.0f} MB; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latency.md").write_text(text)
    (args.out / "latency.json").write_text(json.dumps({m: [asdict(a) for a in v] for m, v in by_mode.items()},
                                                      indent=2))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
