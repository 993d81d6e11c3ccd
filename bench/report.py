"""One report of every benchmark, each next to its same-run baseline: `bench/REPORT.md` and small PNG
plots in `bench/report/`, assembled from the results the bench scripts write under `--out`.

    .venv/bin/python -m bench.report [--run none|missing|all] [--out bench/out]

--run none (default): only assemble what is there; a benchmark without results gets a section that
  names the command producing them (no figure is ever filled in by hand).
--run missing: first run the bench commands whose result files are missing, then assemble.
--run all: rerun every bench command first. On 2 cores that is many hours (about 6-8 h in all; the
  longest are bench.router with the LLM and ensemble routers, bench.native with the default LLM, and
  bench.routing_e2e); each command's rough duration is in BENCHES below and in the report.

The commands are those of bench/RESULTS.md, plus the benchmarks
added since. Plots need matplotlib, a bench-only dependency (`pip install matplotlib`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "bench" / "REPORT.md"
PLOTS = ROOT / "bench" / "report"
DPI = 100


@dataclass(frozen=True)
class Bench:
    key: str
    title: str
    outputs: tuple[str, ...]  # result files under --out; missing when any of them is absent
    args: tuple[str, ...]  # python -m ...
    duration: str  # on 2 cores, roughly
    recorded: str = ""  # the section of bench/RESULTS.md with earlier figures, if any

    @property
    def command(self) -> str:
        return ".venv/bin/python -m " + " ".join(self.args)


BENCHES: tuple[Bench, ...] = (
    Bench("retrieval", "Document search: Cranfield and CISI", ("retrieval.json",),
          ("bench.retrieval", "--datasets", "cranfield,cisi"), "6 min", "§1-2"),
    Bench("pipeline", "Ask latency and accuracy on examples/", ("pipeline.json",),
          ("bench.pipeline", "--llms", "default,fast"), "25-40 min", "§3"),
    Bench("latency", "Where an answer's time goes: per kind and stage, beside llama.cpp's limit", ("latency.md",),
          ("bench.latency",), "25-30 min", "§22"),
    Bench("sql", "SQL answers: GeoQuery execution accuracy", ("sql-geoquery-dev-default.json",),
          ("bench.sql", "--split", "dev", "--llm", "default"), "20 min", "§4"),
    Bench("native-default", "Native queries, default LLM: Cypher, Spider SQL, SPARQL, WTQ", ("native-default.json",),
          ("bench.native", "--datasets", "movies,spider,sparql,wtq", "--llm", "default", "--limit", "15"),
          "60-90 min", "§5, §16, §18"),
    Bench("native-fast", "Native queries, fast LLM", ("native-fast.json",),
          ("bench.native", "--datasets", "movies,spider,sparql,wtq", "--llm", "fast", "--limit", "8"),
          "15 min alone", "§5, §18"),
    Bench("selection-none", "Source selection: embedding prefilter (+ values), 196 sources", ("selection-none.json",),
          ("bench.selection", "--llm", "none", "--per-dataset", "40"), "5 min", "§6, §19"),
    Bench("selection-default", "Source selection: prefilter, the LLM choosing beside it", ("selection-default.json",),
          ("bench.selection", "--llm", "default", "--per-dataset", "15"), "15 min", "§6, §19, §24"),
    Bench("router", "Routing: router accuracy", ("router.json",),
          ("bench.router", "--routers", "rule,trained,llm,ensemble,ensemble-blind", "--llm", "default", "--limit",
           "40"),
          "30-60 min (the LLM router reads every question)", "§7"),
    Bench("detection", "Object detection on COCO128", ("detection.json",), ("bench.detection",), "3 min", "§8"),
    Bench("scenes", "Scene cuts and video reading", ("scenes.json",), ("bench.scenes",), "1 min", "§9"),
    Bench("photos", "Photos: text -> photo retrieval on COCO-mini, ingest throughput", ("photos.json",),
          ("bench.photos",), "5-10 min", "§10"),
    Bench("grounding", "Element grounding (GranuRAG): setting A vs C", ("grounding.json",),
          ("bench.grounding", "--settings", "A,C", "--llm", "default"), "20-30 min"),
    Bench("routing_e2e", "Routing end to end, and latency against corpus size", ("routing_e2e.json",),
          ("bench.routing_e2e", "--llm", "default"), "45-60 min (part e2e ~40 min, part scale ~10 min)"),
    Bench("scale", "A whole disk: index, re-index and search on a folder of N real files", ("scale.md",),
          ("bench.scale", "--files", "1000"), "10 min (20,000 files: hours)", "§23"),
    Bench("injection", "Prompt injection planted in real files, beside the clean copies", ("injection.md",),
          ("bench.injection",), "25-30 min", "§27"),
)


# -- running -----------------------------------------------------------------------------------
def missing(bench: Bench, out: Path) -> bool:
    return any(not (out / name).is_file() for name in bench.outputs)


def run_benches(mode: str, out: Path) -> dict[str, str]:
    """Run the bench commands (`missing` ones, or `all`); returns key -> what happened."""
    status: dict[str, str] = {}
    todo = [b for b in BENCHES if mode == "all" or missing(b, out)]
    for i, bench in enumerate(todo, 1):
        cmd = [sys.executable, "-m", *bench.args, "--out", str(out)]
        print(f"[{i}/{len(todo)}] {' '.join(cmd[1:])}  (about {bench.duration})", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, check=False)
        took = time.perf_counter() - t0
        status[bench.key] = (f"ran in {took / 60:.0f} min" if proc.returncode == 0
                             else f"FAILED (exit {proc.returncode} after {took / 60:.0f} min)")
        print(f"    {status[bench.key]}", file=sys.stderr, flush=True)
    return status


# -- plotting ----------------------------------------------------------------------------------
def pyplot():  # noqa: ANN201 (matplotlib.pyplot)
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("bench.report draws its plots with matplotlib, a bench-only dependency: "
                         ".venv/bin/pip install matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bars(path: Path, groups: list[str], series: dict[str, list[float | None]], title: str, ylabel: str,
         percent: bool = False, ylim: tuple[float, float] | None = None, baseline: str | None = None,
         log: bool = False) -> None:
    """A grouped bar chart: one group per x label, one bar per series; the baseline series hatched."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(groups) + 2.5), 3.4), dpi=DPI)
    n = max(len(series), 1)
    width = 0.8 / n
    for j, (name, values) in enumerate(series.items()):
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(groups))]
        ys = [v if v is not None else 0.0 for v in values]
        rects = ax.bar(xs, ys, width, label=name, hatch="//" if name == baseline else None,
                       edgecolor="black" if name == baseline else None, linewidth=0.5)
        for rect, v in zip(rects, values, strict=True):
            if v is None:
                continue
            label = f"{v:.0%}" if percent else (f"{v:.2f}" if abs(v) < 10 else f"{v:,.0f}")
            ax.annotate(label, (rect.get_x() + rect.get_width() / 2, rect.get_height()), ha="center", va="bottom",
                        fontsize=6, xytext=(0, 1), textcoords="offset points")
    ax.set_xticks(range(len(groups)), groups, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    if log:
        ax.set_yscale("log")
    if ylim:
        ax.set_ylim(*ylim)
    if percent:
        ax.yaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, frameon=False, ncols=min(n, 3), loc="upper left", bbox_to_anchor=(0, -0.12))
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def heatmap(path: Path, matrix: list[list[int]], rows: list[str], cols: list[str], title: str) -> None:
    """Row-normalised colours, raw counts written in the cells."""
    plt = pyplot()
    import numpy as np

    counts = np.array(matrix, dtype=float)
    shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(0.45 * len(cols) + 2.2, 0.4 * len(rows) + 1.4), dpi=DPI)
    ax.imshow(shares, cmap="Blues", vmin=0, vmax=1)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if counts[i, j]:
                ax.text(j, i, f"{counts[i, j]:.0f}", ha="center", va="center", fontsize=6,
                        color="white" if shares[i, j] > 0.5 else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_xlabel("predicted", fontsize=8)
    ax.set_ylabel("gold", fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def lines(path: Path, xs: list[float], panels: list[tuple[str, dict[str, list[float | None]], str | None]],
          xlabel: str, ylabel: str) -> None:
    """Log-log line plots side by side: (title, series, the series a dotted linear-growth reference starts from)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), dpi=DPI, squeeze=False)
    for ax, (title, series, reference) in zip(axes[0], panels, strict=True):
        for name, ys in series.items():
            pts = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None and y > 0]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, linewidth=1, label=name)
        start = series.get(reference, [None])[0] if reference else None
        if start and len(xs) > 1:
            ax.plot(xs, [start * x / xs[0] for x in xs], linestyle=":", color="grey", linewidth=1,
                    label=f"linear growth from {reference}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


# -- sections ----------------------------------------------------------------------------------
def load(out: Path, name: str) -> Any:  # parsed JSON
    return json.loads((out / name).read_text(encoding="utf-8"))


def pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


_REPORT_DIR = [REPORT.parent]  # where the report is written: plot links are relative to it


def image(plots: Path, name: str, alt: str) -> str:
    return f"![{alt}]({Path(os.path.relpath(plots / name, _REPORT_DIR[0])).as_posix()})\n"


def md_table(head: list[str], rows: list[list[str]], align: str = "") -> str:
    align = align or "|---" + "|---:" * (len(head) - 1) + "|"
    return "\n".join(["| " + " | ".join(head) + " |", align, *("| " + " | ".join(r) + " |" for r in rows)]) + "\n"


def sec_retrieval(out: Path, plots: Path) -> str:
    data = load(out, "retrieval.json")
    sets = data["datasets"]
    systems = [s for s in next(iter(sets.values()))["systems"] if not s.strip().startswith("ablation")]
    rows = [[name, str(res["docs"]), str(res["queries"])]
            + [f"{res['systems'][s]['ndcg10']:.3f}" for s in systems] for name, res in sets.items()]
    text = (f"command: `{data['command']}` ({data['machine']['date']}); baseline: {data['baseline']} "
            "in the same run\n\n"
            + md_table(["dataset", "docs", "queries", *(f"NDCG@10 {s}" for s in systems)], rows))
    ratio = {name: res["systems"]["trove-hybrid"]["ratio_to_baseline"] for name, res in sets.items()
             if "trove-hybrid" in res["systems"]}
    text += "\nTrove hybrid / BM25: " + ", ".join(f"{k} ×{v:.2f}" for k, v in ratio.items()) + "\n\n"
    bars(plots / "retrieval.png", list(sets), {s: [res["systems"][s]["ndcg10"] for res in sets.values()]
                                                for s in systems},
         "Document search: NDCG@10 (BM25 = baseline)", "NDCG@10", baseline=data["baseline"])
    return text + image(plots, "retrieval.png", "NDCG@10 per system")


def sec_pipeline(out: Path, plots: Path) -> str:
    data = load(out, "pipeline.json")
    sums = data["summaries"]
    rows = [[f"{s['llm']} ({s['model']})", pct(s["accuracy"]), f"{s['p50_ms'].get('total', 0):,.0f}",
             f"{s['p95_ms'].get('total', 0):,.0f}", f"{s['p50_ms'].get('generate', 0):,.0f}",
             f"{s['peak_rss_mb']:.0f}", str(s.get("unsupported_sentences", "–"))] for s in sums]
    text = ("No separate baseline: the default and the fast LLM side by side, same questions, same run.\n\n"
            + md_table(["LLM", "accuracy", "total p50 ms", "total p95 ms", "generate p50 ms", "peak RSS MB",
                        "unsupported sentences"], rows))
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.0), dpi=DPI)
    names = [s["llm"] for s in sums]
    axes[0].bar(names, [s["accuracy"] for s in sums], color="tab:blue")
    axes[0].set_title("accuracy on examples/questions.toml", fontsize=8)
    axes[0].set_ylim(0, 1)
    axes[1].bar(names, [s["p50_ms"].get("total", 0) / 1000 for s in sums], color="tab:orange")
    axes[1].set_title("ask total p50, s", fontsize=8)
    for ax in axes:
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    fig.savefig(plots / "pipeline.png", dpi=DPI)
    plt.close(fig)
    return text + "\n" + image(plots, "pipeline.png", "accuracy and latency per LLM")


def _native_rows(rows: list[dict]) -> tuple[float, float, int]:
    n = max(len(rows), 1)
    return sum(r["zero_shot"]["ok"] for r in rows) / n, sum(r["trove"]["ok"] for r in rows) / n, len(rows)


def sec_native(out: Path, plots: Path, llm: str) -> str:
    groups: list[str] = []
    zs: list[float | None] = []
    tr: list[float | None] = []
    table: list[list[str]] = []
    if llm == "default" and (out / "sql-geoquery-dev-default.json").is_file():
        z, t, n = _native_rows(load(out, "sql-geoquery-dev-default.json"))
        groups.append("GeoQuery SQL")
        zs.append(z)
        tr.append(t)
        table.append(["GeoQuery (SQL, bench.sql)", str(n), pct(z), pct(t)])
    name = f"native-{llm}.json"
    if (out / name).is_file():
        for dataset, rows in load(out, name).items():
            z, t, n = _native_rows(rows)
            groups.append({"movies": "movies Cypher", "spider": "Spider SQL", "sparql": "Spider4SPARQL",
                           "wtq": "WTQ"}.get(dataset, dataset))
            zs.append(z)
            tr.append(t)
            med = statistics.median(r["trove"]["s"] for r in rows) if rows else 0.0
            table.append([f"{dataset} (median {med:.0f} s/question for Trove)", str(n), pct(z), pct(t)])
    if not groups:
        return ""
    bars(plots / f"native-{llm}.png", groups, {"zero-shot (baseline)": zs, "Trove": tr},
         f"Execution accuracy, {llm} LLM", "execution accuracy", percent=True, ylim=(0, 1),
         baseline="zero-shot (baseline)")
    return (md_table(["dataset", "questions", "zero-shot (baseline)", "Trove"], table) + "\n"
            + image(plots, f"native-{llm}.png", f"execution accuracy, {llm} LLM"))


def sec_sql(out: Path, plots: Path) -> str:
    return sec_native(out, plots, "default") if not (out / "native-default.json").is_file() else \
        "Shown with the native queries of the default LLM below.\n"


def sec_selection(out: Path, plots: Path, llm: str) -> str:
    rows = load(out, f"selection-{llm}.json")
    datasets = [*dict.fromkeys(r["dataset"] for r in rows), "all"]
    columns = {"embeddings top-1 (baseline)": "top1", "embeddings recall@3": "recall"}
    fields = "asked" in rows[0]  # runs since the field words (§24): Trove takes the prefilter's first
    if "values_top1" in rows[0]:  # runs since the value index
        named = "+ values & fields" if fields else "+ values"
        columns |= {f"{named} top-1" + (" (Trove)" if fields else ""): "values_top1",
                    f"{named} recall@3": "values_recall"}
    if llm != "none":
        columns["LLM picks from the 3 unless one leads" if fields else "Trove (LLM picks from the 3)"] = "llm"
    series: dict[str, list[float | None]] = {name: [] for name in columns}
    table = []
    for d in datasets:
        part = [r for r in rows if d in ("all", r["dataset"])]
        n = len(part)
        vals = [sum(r[field] for r in part) / n for field in columns.values()]
        for name, v in zip(series, vals, strict=True):
            series[name].append(v)
        table.append([d, str(n), *map(pct, vals)])
    bars(plots / f"selection-{llm}.png", datasets, series,
         f"Source selection ({'prefilter only' if llm == 'none' else llm + ' LLM'})", "accuracy", percent=True,
         ylim=(0, 1.08), baseline="embeddings top-1 (baseline)")
    return (md_table(["questions from", "n", *series], table) + "\n"
            + image(plots, f"selection-{llm}.png", "source selection accuracy"))


def confusion_of(block: dict, order: list[str]) -> list[list[int]]:
    """Rows gold, columns predicted: from the JSON's `confusion` or, for older files, from its pairs."""
    if "confusion" in block:
        return block["confusion"]["matrix"]
    index = {label: i for i, label in enumerate(order)}
    matrix = [[0] * len(order) for _ in order]
    for gold, pred in block["pairs"]:
        for g in gold:
            for p in pred:
                matrix[index[g]][index[p]] += 1
    return matrix


def sec_router(out: Path, plots: Path) -> str:
    from engine.routing.labels import ORDER

    data = load(out, "router.json")
    routers = list(data)
    sets = list(next(iter(data.values())))
    asked = {"rule": 0.0, "trained": 0.0, "llm": 1.0}
    table = [[r, *(pct(data[r][s]["exact"]) for s in sets), f"{data[r]['router_mix']['ms']:.1f}",
              pct(asked.get(r, data[r]["router_mix"].get("llm_share")))] for r in routers]
    text = ("Exact label-set accuracy; the rule router is the keyword baseline. Every label counts as available. "
            "The ensemble also sees the structured sources the sets ask about (GeoQuery, the WTQ tables, the movies "
            "graph, the Spider4SPARQL graphs) as routing evidence; `ensemble-blind` is the same ensemble without "
            "them. `ensemble@c` rows (when present) are the ensemble at confidence level c, simulated from the "
            "trained and LLM routers' answers to the same questions.\n\n"
            + md_table(["router", *(f"{s} ({data[routers[0]][s]['n']})" for s in sets), "median ms (mix)",
                        "LLM asked (mix)"], table))
    shown = [r for r in routers if "@" not in r]  # the routers themselves; the simulated levels stay in the table
    bars(plots / "router.png", sets, {r: [data[r][s]["exact"] for s in sets] for r in shown},
         "Router accuracy (exact label set); rule = baseline", "accuracy", percent=True, ylim=(0, 1.08),
         baseline="rule" if "rule" in routers else None)
    text += "\n" + image(plots, "router.png", "router accuracy per set")
    if "trained" in data and "router_mix" in data["trained"]:
        block = data["trained"]["router_mix"]
        order = block.get("confusion", {}).get("labels", list(ORDER))
        matrix = confusion_of(block, order)
        keep = [i for i, label in enumerate(order) if any(matrix[i]) or any(row[i] for row in matrix)]
        heatmap(plots / "router_confusion.png", [[matrix[i][j] for j in keep] for i in keep],
                [order[i] for i in keep], [order[j] for j in keep],
                f"Trained router on router_mix ({block['n']} questions)")
        text += ("\nConfusion of the trained router on router_mix (rows: gold labels; columns: predicted labels; "
                 "a question with several labels counts in each of its (gold, predicted) cells):\n\n"
                 + image(plots, "router_confusion.png", "confusion matrix, trained router"))
    return text


def sec_detection(out: Path, plots: Path) -> str:
    data = load(out, "detection.json")
    names = list(data)
    table = [[n, f"{r['map']:.3f}", f"{r['recall_all']:.3f}", f"{r['precision_all']:.3f}", f"{r['threshold']:.2f}",
              f"{r['ms_median']:.1f}"] for n, r in data.items()]
    bars(plots / "detection.png", ["mAP@0.5", "recall (all)", "precision (all)"],
         {n: [data[n]["map"], data[n]["recall_all"], data[n]["precision_all"]] for n in names},
         "Object detection on COCO128 (each detector's own threshold)", "score", ylim=(0, 1))
    return ("The two COCO-80 detectors against each other (no other baseline in this run).\n\n"
            + md_table(["detector", "mAP@0.5", "recall", "precision", "threshold", "ms/photo"], table) + "\n"
            + image(plots, "detection.png", "detection scores"))


def sec_scenes(out: Path, plots: Path) -> str:
    data = load(out, "scenes.json")
    totals = data["totals"]
    table = [[d, f"{t['precision']:.2f}", f"{t['recall']:.2f}", str(t["tp"]), str(t["fp"]), str(t["fn"])]
             for d, t in totals.items()]
    speed = [[s["video"], f"{s['duration_s']:.1f}", f"{s['decode_s']:.2f}", f"{s['rtf']['adaptive']:.3f}",
              f"{s['rtf']['content']:.3f}"] for s in data["speed"]]
    bars(plots / "scenes.png", ["precision", "recall"], {d: [t["precision"], t["recall"]] for d, t in totals.items()},
         "Scene cuts vs PySceneDetect goldens (±2 frames)", "score", ylim=(0, 1.1))
    return ("Cut agreement with PySceneDetect's own golden outputs (the reference), per detector:\n\n"
            + md_table(["detector", "precision", "recall", "tp", "fp", "fn"], table)
            + "\nSpeed (real-time factor = processing s / video s; decoding alone is the floor):\n\n"
            + md_table(["video", "video s", "decode only s", "RTF adaptive", "RTF content"], speed) + "\n"
            + image(plots, "scenes.png", "scene cut agreement"))


def sec_photos(out: Path, plots: Path) -> str:
    data = load(out, "photos.json")
    if "retrieval" not in data:
        return "photos.json holds no retrieval results.\n"
    res = data["retrieval"]
    systems = res["systems"]
    table = [[n, f"{s['recall']['1']:.3f}", f"{s['recall']['5']:.3f}", f"{s['recall']['10']:.3f}", f"{s['mrr']:.3f}"]
             for n, s in systems.items()]
    rnd = res["random"]
    table.append(["(random order, expected)", f"{rnd['recall']['1']:.3f}", f"{rnd['recall']['5']:.3f}",
                  f"{rnd['recall']['10']:.3f}", f"{rnd['mrr']:.3f}"])
    baseline = next((n for n in systems if n.startswith("baseline")), None)
    bars(plots / "photos.png", ["R@1", "R@5", "R@10", "MRR"],
         {n.replace("(`trove search`)", "").strip(): [s["recall"]["1"], s["recall"]["5"], s["recall"]["10"],
                                                      s["mrr"]] for n, s in systems.items()},
         f"Text -> photo on COCO-mini ({res['photos']} photos, {res['queries']} queries)", "score", ylim=(0, 1.05),
         baseline=baseline)
    return (f"command: `{data.get('command', 'python -m bench.photos')}`; {baseline} (the same photos "
            "indexed with no vision model)\n\n" + md_table(["system", "R@1", "R@5", "R@10", "MRR"], table) + "\n"
            + image(plots, "photos.png", "photo retrieval"))


def sec_grounding(out: Path, plots: Path) -> str:
    data = load(out, "grounding.json")
    rows = data["answers"]
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    metrics: dict[str, list[float | None]] = {}
    table = []
    for s in settings:
        mine = [r for r in rows if r["setting"] == s]
        named = sum(len(r["named"]) for r in mine)
        named_gold = sum(len(set(r["named"]) & set(r["gold"])) for r in mine)
        gold = sum(len(r["gold"]) for r in mine)
        sentences = sum(len(r["sentences"]) for r in mine)
        bad = sum(r["unsupported_claims"] for r in mine)
        vals = [named_gold / named if named else None, named_gold / gold if gold else None,
                bad / sentences if sentences else None]
        metrics[s] = vals
        table.append([s, *map(pct, vals), str(len(mine))])
    bars(plots / "grounding.png", ["attribution precision", "attribution recall", "unsupported-claim rate\n(lower "
                                   "is better)"], metrics, "Element grounding: A (grounded) vs C (whole inventory)",
         "share", percent=True, ylim=(0, 1.08), baseline="C" if "C" in settings else None)
    return ("Setting C (the whole inventory, no grounding) is the baseline; element-level, micro-averaged over "
            "answers.\n\n" + md_table(["setting", "attribution precision", "attribution recall",
                                       "unsupported-claim rate", "answers"], table) + "\n"
            + image(plots, "grounding.png", "grounding A vs C"))


def _scaled(v: list[float | None], i: int) -> str:
    """`v[i]` in ms, with its ratio to the smallest size `v[0]`."""
    x, first = v[i], v[0]
    return "–" if x is None else f"{x:,.0f}" + (f" (×{x / first:.2f})" if first and i else "")


def sec_routing(out: Path, plots: Path) -> str:
    data = load(out, "routing_e2e.json")
    text = ""
    e2e = data.get("e2e")
    if e2e:
        s = e2e["summary"]
        modes = list(s)
        table = [[m, f"{r['correct']}/{r['n']} = {r['accuracy']:.0%}", pct(r["route_exact"]),
                  f"{r['ms_mean'] / 1000:.1f}", f"{r['ms_median'] / 1000:.1f}", pct(r["attribution"]),
                  f"{r['answers_with_unsupported']}"] for m, r in s.items()]
        text += (f"command: `{e2e['command']}` ({e2e['date']}); LLM {e2e['model']}, router {e2e['router']}; "
                 f"{e2e['questions']} questions. Baselines: unified (every corpus at once), random (one corpus); "
                 "oracle = the gold corpora.\n\n"
                 + md_table(["mode", "accuracy", "routes = gold", "mean s", "median s",
                             "attribution (supported sentences)", "answers with an unsupported sentence"], table))
        plt = pyplot()
        fig, axes = plt.subplots(1, 3, figsize=(8.4, 2.9), dpi=DPI)
        for ax, (key, title, scale) in zip(axes, (("accuracy", "accuracy", 1), ("attribution", "attribution", 1),
                                                  ("ms_mean", "mean s per question", 1000)), strict=True):
            vals = [None if s[m][key] is None else s[m][key] / scale for m in modes]
            colours = ["tab:blue", "tab:grey", "tab:red", "tab:green"][: len(modes)]
            ax.bar(modes, [v or 0.0 for v in vals], color=colours)
            for i, v in enumerate(vals):
                label = "n/a" if v is None else (f"{v:.0%}" if scale == 1 else f"{v:.1f}")
                ax.annotate(label, (i, v or 0.0), ha="center", va="bottom", fontsize=6)
            ax.set_title(title, fontsize=8)
            ax.tick_params(labelsize=7)
            if scale == 1:
                ax.set_ylim(0, 1.1)
        fig.tight_layout()
        fig.savefig(plots / "routing_e2e.png", dpi=DPI)
        plt.close(fig)
        text += "\n" + image(plots, "routing_e2e.png", "routed vs unified vs random vs oracle")
    else:
        text += f"No end-to-end results yet: `{BENCH_BY_KEY['routing_e2e'].command} --parts e2e`.\n"
    scale = data.get("scale")
    if scale and scale["sizes"]:
        sizes = scale["sizes"]
        xs = [e["paragraphs"] for e in sizes]

        def get(e: dict, part: str, mode: str, stage: str | None = None, key: str = "ms_mean") -> float | None:
            block = e[part].get(mode)
            if not block:
                return None
            if stage:
                return block["stages_ms_mean"][stage]
            if key == "ms_mean_no_query" and key not in block:  # results written before that field
                return statistics.fmean(r["timings_ms"]["total"] - r["timings_ms"].get("query", 0.0)
                                        for r in block["runs"])
            return block.get(key)

        series = {"gather routed": [get(e, "gather", "routed") for e in sizes],
                  "gather unified": [get(e, "gather", "unified") for e in sizes],
                  "gather routed, without native queries": [get(e, "gather", "routed", key="ms_mean_no_query")
                                                            for e in sizes],
                  "gather unified, without native queries": [get(e, "gather", "unified", key="ms_mean_no_query")
                                                             for e in sizes],
                  "retrieve stage, routed": [get(e, "gather", "routed", "retrieve") for e in sizes],
                  "retrieve stage, unified": [get(e, "gather", "unified", "retrieve") for e in sizes],
                  "ask routed": [get(e, "ask", "routed") for e in sizes],
                  "ask unified": [get(e, "ask", "unified") for e in sizes]}
        table = [[f"{e['paragraphs']:,}", f"{e['items']:,}"]
                 + [_scaled(v, i) for v in series.values()] for i, e in enumerate(sizes)]
        text += (f"\nLatency against corpus size — command: `{scale['command']}` ({scale['date']}); LLM "
                 f"{scale['model']}; {len(scale['questions'])} questions gathered, {scale['ask_questions']} asked "
                 "per size. ms per question (× = ratio to the smallest size).\n\n"
                 + md_table(["paragraphs", "items, all corpora", *series], table))
        totals = {k: v for k, v in series.items() if k in ("gather routed", "gather unified", "ask routed",
                                                            "ask unified")}
        parts = {k: v for k, v in series.items() if k not in totals}
        lines(plots / "routing_scale.png", xs,
              [("per question, whole", totals, None),
               ("the parts that read the corpora", parts, "gather routed, without native queries")],
              "paragraphs in the index", "ms per question (mean)")
        text += "\n" + image(plots, "routing_scale.png", "latency against corpus size")
    else:
        text += f"\nNo latency-against-size results yet: `{BENCH_BY_KEY['routing_e2e'].command} --parts scale`.\n"
    return text


def sec_latency(out: Path, plots: Path) -> str:  # noqa: ARG001 - its tables are the figures
    """bench.latency's own tables: the limit is measured in the same run (Trove / limit columns)."""
    text = (out / "latency.md").read_text()
    body = text[text.index("## Per kind"):] if "## Per kind" in text else text
    return "Baseline: llama.cpp alone on the same token counts, same run.\n" + ("\n" + body).replace("\n## ", "\n### ")


def sec_scale(out: Path, plots: Path) -> str:  # noqa: ARG001 - its table is the figures
    """bench.scale's own table: each figure beside its target and its same-run baseline."""
    text = (out / "scale.md").read_text()
    return text[text.index("machine:"):] if "machine:" in text else text


def sec_injection(out: Path, plots: Path) -> str:  # noqa: ARG001 - its table is the figures
    """bench.injection's own table: the planted home beside the clean one, same run."""
    text = (out / "injection.md").read_text()
    return "Baseline: the same questions on the clean copies of the files, same run.\n\n" + text[text.index("| group"):]


SECTIONS: dict[str, Callable[[Path, Path], str]] = {
    "retrieval": sec_retrieval, "pipeline": sec_pipeline, "latency": sec_latency, "sql": sec_sql,
    "native-default": lambda o, p: sec_native(o, p, "default"), "native-fast": lambda o, p: sec_native(o, p, "fast"),
    "selection-none": lambda o, p: sec_selection(o, p, "none"),
    "selection-default": lambda o, p: sec_selection(o, p, "default"),
    "router": sec_router, "detection": sec_detection, "scenes": sec_scenes, "photos": sec_photos,
    "grounding": sec_grounding, "routing_e2e": sec_routing, "scale": sec_scale, "injection": sec_injection,
}
BENCH_BY_KEY = {b.key: b for b in BENCHES}


def shown(path: Path) -> str:
    """A path as the report shows it: relative to the repository when inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def section(bench: Bench, out: Path, plots: Path, ran: str | None) -> tuple[str, str]:
    """(markdown of one benchmark, its status for the overview)."""
    head = f"## {bench.title}\n\n"
    how = f"Produced by `{bench.command}` (about {bench.duration} on 2 cores)."
    recorded = f" Earlier figures: bench/RESULTS.md {bench.recorded}." if bench.recorded else ""
    if missing(bench, out):
        names = ", ".join(f"`{shown(out / n)}`" for n in bench.outputs)
        status = "missing" + (f" ({ran})" if ran else "")
        return head + f"No results: {names} missing{f' ({ran})' if ran else ''}. {how}{recorded}\n", status
    try:
        body = SECTIONS[bench.key](out, plots)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError) as exc:
        return (head + f"The results in `{shown(out)}/` could not be read ({type(exc).__name__}: {exc}); "
                f"rerun: {how}\n", "unreadable")
    stamp = datetime.fromtimestamp(max((out / n).stat().st_mtime for n in bench.outputs)).isoformat(timespec="minutes")
    return head + body + f"\n{how}{recorded} Results from {stamp}.\n", f"results of {stamp}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.split("\n")[0])
    ap.add_argument("--run", choices=("none", "missing", "all"), default="none",
                    help="run the bench commands first: none, those whose results are missing, or all (hours)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out", help="where the bench scripts write results")
    ap.add_argument("--report", type=Path, default=REPORT, help="the report to write")
    ap.add_argument("--plots", type=Path, default=PLOTS, help="folder of the PNG plots (beside the report)")
    args = ap.parse_args(argv)
    pyplot()  # fail early, with the message, when matplotlib is absent
    _REPORT_DIR[0] = args.report.resolve().parent
    args.out.mkdir(parents=True, exist_ok=True)
    ran = run_benches(args.run, args.out) if args.run != "none" else {}
    args.plots.mkdir(parents=True, exist_ok=True)
    for old in args.plots.glob("*.png"):  # a plot whose data is gone must not linger
        old.unlink()
    bodies, overview = [], []
    for bench in BENCHES:
        body, status = section(bench, args.out, args.plots, ran.get(bench.key))
        bodies.append(body)
        overview.append([bench.title, status, f"`{bench.command}`", bench.duration])
    text = ("# Trove benchmark report\n\n"
            f"Assembled {datetime.now().isoformat(timespec='minutes')} by `.venv/bin/python -m bench.report` from "
            f"`{shown(args.out)}`; plots in `{shown(args.plots)}/`. Every figure comes from a result file of a "
            "bench script; each benchmark is shown next to the baseline measured in the same run. "
            "`--run missing` runs the commands whose results are missing, `--run all` reruns everything "
            "(many hours on 2 cores). Machine notes and discussion: bench/RESULTS.md.\n\n"
            + md_table(["benchmark", "results", "command", "duration (2 cores)"], overview, "|---|---|---|---|")
            + "\n" + "\n".join(bodies))
    args.report.write_text(text, encoding="utf-8")
    print(f"wrote {args.report} and {len(list(args.plots.glob('*.png')))} plots in {args.plots}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
