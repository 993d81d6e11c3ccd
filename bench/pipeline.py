"""Ask latency per stage (p50/p95), answer accuracy on the example questions, and peak memory, for
the default and the fast LLM, in one run.

    .venv/bin/python -m bench.pipeline [--llms default,fast] [--repeat 1] [--out bench/out]

Each LLM runs in its own process (so peak RSS is that configuration's own) over examples/ and its
questions.toml. An answer is correct when it contains every `expect` string (or, for a question with
no answer in the files, when Trove says it found nothing) and, for answerable ones, cites the
expected file. Writes `pipeline.md` and `pipeline.json` under `--out`.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def judge(result: dict, question: dict) -> bool:
    answer = result["answer"].lower()
    if not question["expect"]:
        return not result["answered"]
    cites_source = any(c["source"].endswith(question["source"]) and c["kind"] == question.get("kind", c["kind"])
                       for c in result["citations"])
    return all(e.lower() in answer for e in question["expect"]) and cites_source


def worker(llm: str, repeat: int) -> dict:
    """Index the examples into a fresh home, ask every question `repeat` times; print one JSON."""
    from engine.pipeline import Trove
    from engine.settings import default_home, default_models_dir, load_settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(Path(tmp) / "home", models_dir=default_models_dir(default_home()), llm=llm)
        trove = Trove(settings)
        t0 = time.perf_counter()
        report = trove.index([EXAMPLES])
        index_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        trove.models.llm  # noqa: B018 - load the model, timed apart from the questions
        load_s = time.perf_counter() - t0
        with (EXAMPLES / "questions.toml").open("rb") as fh:
            questions = tomllib.load(fh)["question"]
        runs = []
        for _ in range(repeat):
            for q in questions:
                result = trove.ask(q["text"]).to_dict()
                runs.append({"question": q["text"], "correct": judge(result, q), "answer": result["answer"],
                             "timings_ms": result["timings_ms"], "unsupported": len(result["unsupported"])})
    return {"llm": llm, "model": trove.models.llm.name, "index_s": index_s, "items": report.items, "load_s": load_s,
            "runs": runs, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def summarise(res: dict) -> dict:
    stages = sorted({s for r in res["runs"] for s in r["timings_ms"]}, key=lambda s: (s == "total", s))
    per_stage = {s: [r["timings_ms"].get(s, 0.0) for r in res["runs"]] for s in stages}
    return {"llm": res["llm"], "model": res["model"],
            "accuracy": sum(r["correct"] for r in res["runs"]) / len(res["runs"]),
            "unsupported_sentences": sum(r["unsupported"] for r in res["runs"]),
            "p50_ms": {s: statistics.median(v) for s, v in per_stage.items()},
            "p95_ms": {s: percentile(v, 0.95) for s, v in per_stage.items()},
            "peak_rss_mb": res["peak_rss_mb"], "load_s": res["load_s"], "index_s": res["index_s"]}


def table(summaries: list[dict]) -> str:
    stages = [s for s in summaries[0]["p50_ms"]]
    head = "| LLM | accuracy | " + " | ".join(f"{s} p50 / p95 ms" for s in stages) + " | peak RSS MB | load s |"
    rule = "|---|---:|" + "---:|" * len(stages) + "---:|---:|"
    rows = [f"| {s['llm']} ({s['model']}) | {s['accuracy']:.0%} | "
            + " | ".join(f"{s['p50_ms'][st]:,.0f} / {s['p95_ms'][st]:,.0f}" for st in stages)
            + f" | {s['peak_rss_mb']:.0f} | {s['load_s']:.1f} |" for s in summaries]
    return "\n".join([head, rule, *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llms", default="default,fast")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeat)))
        return 0
    results = []
    for llm in args.llms.split(","):
        print(f"running {llm} …", file=sys.stderr, flush=True)
        proc = subprocess.run([sys.executable, "-m", "bench.pipeline", "--worker", llm, "--repeat",
                               str(args.repeat)], cwd=ROOT, capture_output=True, text=True, check=True)
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    summaries = [summarise(r) for r in results]
    command = "python -m bench.pipeline " + " ".join(argv if argv is not None else sys.argv[1:])
    text = (f"# Ask latency and accuracy on examples/\n\ndate: {datetime.now().isoformat(timespec='seconds')}  \n"
            f"command: `{command.strip()}`  \nquestions: examples/questions.toml x {args.repeat}\n\n"
            + table(summaries) + "\n")
    for r in results:
        text += f"\n{r['llm']}: indexed examples/ ({r['items']} items) in {r['index_s']:.1f} s\n"
        for run in r["runs"]:
            mark = "ok " if run["correct"] else "XX "
            text += f"- {mark} {run['question']} → {run['answer'][:150]}\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pipeline.md").write_text(text)
    (args.out / "pipeline.json").write_text(json.dumps({"summaries": summaries, "results": results}, indent=2))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
