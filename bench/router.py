"""Router accuracy: exact label set and per-label F1 on the router mix and on the held-out split of
every set, with latency per router, in one run.

    .venv/bin/python -m bench.router [--routers rule,trained,llm,ensemble,ensemble-blind] [--llm default] [--limit 0]

Every label counts as available (the corpora all exist), as in the benchmark's setting. The rule
router is the baseline the trained one replaces. The ensemble sees the structured sources the sets'
questions are about, registered as in bench.selection (GeoQuery, the WikiTableQuestions tables, the
movies graph, the Spider4SPARQL graphs; not Spider's SQL databases: they hold the very data of the
Spider4SPARQL graphs, so either kind would answer those questions); `ensemble-blind` is the same
ensemble without them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def f1(pairs: list[tuple[set[str], set[str]]], label: str) -> float:
    tp = sum(1 for gold, pred in pairs if label in gold and label in pred)
    fp = sum(1 for gold, pred in pairs if label not in gold and label in pred)
    fn = sum(1 for gold, pred in pairs if label in gold and label not in pred)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def ensemble_sweep(results: dict[str, dict], levels: list[float]) -> dict[str, dict]:
    """The ensemble at several confidence levels, from the trained and LLM routers' own answers to the
    same questions (the ensemble asks the LLM exactly when the trained router's top probability is below
    the level): its accuracy, the share of questions sent to the LLM and the latency that follows."""
    if "trained" not in results or "llm" not in results:
        return {}
    out: dict[str, dict] = {}
    for level in levels:
        per_set = {}
        for set_name, trained in results["trained"].items():
            llm = results["llm"][set_name]
            use_llm = [p < level for p in trained["top"]]
            pairs = [llm["pairs"][i] if asked else trained["pairs"][i] for i, asked in enumerate(use_llm)]
            times = [t + (llm["times"][i] if asked else 0.0) for i, (t, asked) in enumerate(zip(trained["times"],
                                                                                             use_llm, strict=True))]
            per_set[set_name] = {"n": len(pairs), "exact": sum(g == p for g, p in pairs) / max(len(pairs), 1),
                                 "f1": {}, "ms": statistics.median(times), "mean_ms": statistics.mean(times),
                                 "llm_share": sum(use_llm) / max(len(use_llm), 1), "times": times, "top": [],
                                 "pairs": pairs}
        out[f"ensemble@{level:g}"] = per_set
    return out


def source_nearness(embedder, work: Path):  # noqa: ANN001, ANN201
    """The ensemble's source evidence over the benchmark sources (bench.selection's, less Spider's SQL)."""
    from bench.native import stores_in
    from bench.selection import register
    from engine.native import selection
    from engine.routing.nearness import by_label

    t0 = time.perf_counter()
    sources, _ = register(stores_in(work), spider_sql=False)
    index = selection.SourceIndex(embedder)
    index.refresh(sources)
    print(f"{len(sources)} sources registered in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return lambda vector: by_label(index.nearest_per_kind(vector))


def build_router(name: str, models: Models, settings: Settings):  # noqa: ANN201
    """The router called `name` (`ensemble-blind`: the ensemble, given no source nearness)."""
    from engine.routing import make_router

    return make_router(name.removesuffix("-blind"), models, settings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--routers", default="rule,trained,llm,ensemble,ensemble-blind")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=0, help="held-out questions per set (0 = all)")
    parser.add_argument("--confident", default="0.5,0.6,0.7,0.8,0.9",
                        help="ensemble levels simulated from the trained and LLM answers (needs both routers)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    from engine.routing.training import dataset

    if not dataset.EVAL.exists():
        print(f"{dataset.EVAL} is absent: nothing to measure")
        return 0
    from engine.models import ModelManager
    from engine.models.loaded import Models
    from engine.routing.base import RouteRequest
    from engine.routing.labels import ORDER
    from engine.settings import default_home, default_models_dir, load_settings

    settings = load_settings(default_home(), llm=args.llm, llm_context=2048, threads=2)
    models = Models(ModelManager(default_models_dir(default_home())), settings)  # the LLM loads when first asked
    embedder = models.embedder

    nearness = source_nearness(embedder, args.out / "router-work") if "ensemble" in args.routers else None
    _, held, mix = dataset.splits()
    by_set: dict[str, list] = {}
    for e in held:
        by_set.setdefault(e.dataset, []).append(e)
    sets = {"router_mix": mix, **{k: v[: args.limit or None] for k, v in sorted(by_set.items())}}
    available = set(ORDER)
    results: dict[str, dict] = {}
    for name in args.routers.split(","):
        router = build_router(name, models, settings)
        near = None if name.endswith("-blind") else nearness
        results[name] = {}
        for set_name, examples in sets.items():
            pairs, times, top = [], [], []
            deciders: Counter[str] = Counter()
            for e in tqdm(examples, file=sys.stderr, desc=f"{name} / {set_name}"):
                t0 = time.perf_counter()
                vector = embedder.embed_one(e.question)  # timed: the trained router's input is part of routing
                request = RouteRequest(e.question, frozenset(available), vector, near(vector) if near else {})
                routes = router.route(request)
                times.append((time.perf_counter() - t0) * 1000)
                pairs.append((set(e.labels), {r.label for r in routes}))
                deciders.update({r.router for r in routes})
                if name == "trained":
                    top.append(max(router.probabilities(vector).values()))
            results[name][set_name] = {"n": len(pairs), "exact": sum(g == p for g, p in pairs) / max(len(pairs), 1),
                                       "f1": {label: f1(pairs, label) for label in ORDER
                                              if any(label in g for g, _ in pairs)},
                                       "ms": statistics.median(times), "times": times, "top": top,
                                       "llm_share": deciders["llm"] / max(len(pairs), 1),
                                       "sources_share": deciders["sources"] / max(len(pairs), 1),
                                       "pairs": [[sorted(g), sorted(p)] for g, p in pairs]}
    results.update(ensemble_sweep(results, [float(c) for c in args.confident.split(",") if c]))
    lines = ["| router | " + " | ".join(sets) + " | median ms (mix) | mean ms (mix) | LLM asked (mix) "
             "| sources decided (mix) |", "|---" * (len(sets) + 5) + "|"]
    for name, per_set in results.items():
        mix_row = per_set["router_mix"]
        shares = [mix_row.get("llm_share"), mix_row.get("sources_share")]
        lines.append(f"| {name} | " + " | ".join(f"{r['exact']:.1%}" for r in per_set.values())
                     + f" | {mix_row['ms']:.1f} | {statistics.mean(mix_row['times']):.1f} | "
                     + " | ".join(f"{share:.0%}" if share is not None else "–" for share in shares) + " |")
    f1_lines = ["| router | " + " | ".join(ORDER) + " |", "|---" * (len(ORDER) + 1) + "|"]
    for name, per_set in results.items():
        pairs = [(set(g), set(p)) for r in per_set.values() for g, p in r["pairs"]]
        f1_lines.append(f"| {name} | " + " | ".join(
            f"{f1(pairs, label):.2f}" if any(label in g for g, _ in pairs) else "–" for label in ORDER) + " |")
    confusion = Counter((tuple(g), tuple(p)) for r in results.get("trained", {}).values() for g, p in r["pairs"])
    text = (f"# Router accuracy (exact label set), {datetime.now().isoformat(timespec='seconds')}\n\n"
            f"command: `python -m bench.router --routers {args.routers} --llm {args.llm} --limit {args.limit}`  \n"
            f"questions: " + ", ".join(f"{k} {len(v)}" for k, v in sets.items()) + "\n\n" + "\n".join(lines)
            + "\n\nPer-label F1, all sets together:\n\n" + "\n".join(f1_lines) + "\n")
    if confusion:
        text += "\nMost frequent confusions of the trained router (gold -> predicted):\n\n" + "\n".join(
            f"- {'+'.join(g)} -> {'+'.join(p)}: {n}" for (g, p), n in confusion.most_common(12) if g != p) + "\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "router.md").write_text(text)
    (args.out / "router.json").write_text(json.dumps(results, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
