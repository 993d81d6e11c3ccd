"""Photos and videos: text->photo retrieval on COCO-mini against a file-name-and-EXIF baseline, ingest
throughput with OCR on and off, video real-time factor and peak memory, in one run.

    .venv/bin/python -m bench.photos [--limit N] [--no-videos] [--out bench/out]

Retrieval: the photos of `../shared/eval/images/coco_mini/train2017` are copied into a temporary
folder and indexed by the real pipeline (`Trove.index`, default settings: default detector, OCR on).
Every query of `text2image_queries.tsv` whose relevant photo is present ranks all photos with
`Trove.search(query, k, corpus="image/photo")`; scores are Recall@1/5/10 and MRR (reciprocal rank of
the one relevant photo, 0 when it is not returned). The baseline, in the same run, is the same search
over the same photos indexed with no vision model at all (`trove.models.vision = VisionModels()`), so a
photo's text is only its file name, folder and EXIF. Trove's own corpus is also searched dense-only and
BM25-only, and a corpus indexed with `photo_ocr = False`.

Throughput: photos/s and the per-stage seconds of `IndexReport.timings_s` for the OCR-on, OCR-off and
no-vision indexings (models are loaded before the clock starts), and the real-time factor of indexing
two sample videos (index seconds / video seconds; < 1 is faster than playing it). Peak RSS is the
process's `ru_maxrss` after each phase (it only grows). Writes `photos.md` and `photos.json`.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tqdm import tqdm

from bench.retrieval import machine
from engine.corpora import PHOTO
from engine.ingest.indexer import IndexReport, Progress
from engine.ingest.photos.analyse import VisionModels
from engine.pipeline import Trove
from engine.settings import default_home, default_models_dir, load_settings

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT.parent / "shared" / "eval"
COCO = EVAL / "images" / "coco_mini"
PHOTO_FOLDER = "train2017"
VIDEOS = (EVAL / "videos" / "opencv_samples" / "vtest.avi", EVAL / "videos" / "pyscenedetect" / "testvideo.mp4")
RECALL_KS = (1, 5, 10)
PHOTO_STAGES = ("parse", "vision_objects", "vision_faces", "vision_ocr", "vision_classify", "vision_embed_image",
                "thumbnails", "embed", "write", "media tables")
VIDEO_STAGES = ("video decode", "vision", "thumbnails", "embed", "write", "media tables")
VISION_LINES = ("Shows ", "faces visible", "face visible", "Looks like:", "Text in the photo:")
BASELINE = "baseline: file name + EXIF"


def progress_bar(iterable: Iterable | None = None, **kwargs: object) -> tqdm:
    """A tqdm bar on stderr that writes few lines when stderr is a log file, not a terminal."""
    return tqdm(iterable, file=sys.stderr, mininterval=0.1 if sys.stderr.isatty() else 10.0, **kwargs)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# -- data --------------------------------------------------------------------------------------
@dataclass
class Query:
    id: str
    text: str
    photo: str  # file name of the relevant photo


@dataclass
class QuerySet:
    photos: list[Path]  # the photos indexed
    queries: list[Query]  # those whose relevant photo is indexed
    rows: int  # well-formed rows of the TSV
    malformed: list[str] = field(default_factory=list)  # raw lines that are not caption_id, caption, image
    absent: dict[str, int] = field(default_factory=dict)  # folder -> queries whose photo is not on disk
    outside_limit: int = 0  # queries whose photo exists but is left out by --limit


def load_queries(limit: int | None) -> QuerySet:
    photos = sorted(p for p in (COCO / PHOTO_FOLDER).iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    on_disk = {p.name for p in photos}
    if limit:
        photos = photos[:limit]
    chosen = {p.name for p in photos}
    qs = QuerySet(photos, [], 0)
    with (COCO / "text2image_queries.tsv").open(encoding="utf-8", newline="") as fh:
        lines = fh.read().splitlines()
    for line in lines[1:]:
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0].strip().isdigit() or "/" not in parts[2]:
            if line.strip():
                qs.malformed.append(line)
            continue
        qs.rows += 1
        qid, caption, image = (p.strip() for p in parts)
        folder, name = image.split("/", 1)
        if folder != PHOTO_FOLDER or name not in on_disk or not (COCO / image).is_file():
            qs.absent[folder] = qs.absent.get(folder, 0) + 1
        elif name not in chosen:
            qs.outside_limit += 1
        else:
            qs.queries.append(Query(qid, caption, name))
    return qs


def coco_categories() -> dict[str, list[str]]:
    """photo file name -> its COCO ground-truth object categories (for explaining misses only)."""
    path = COCO / "annotations" / f"instances_{PHOTO_FOLDER}.json"
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    names = {c["id"]: c["name"] for c in data["categories"]}
    files = {im["id"]: im["file_name"] for im in data["images"]}
    out: dict[str, set[str]] = {}
    for ann in data["annotations"]:
        if ann["image_id"] in files:
            out.setdefault(files[ann["image_id"]], set()).add(names[ann["category_id"]])
    return {k: sorted(v) for k, v in out.items()}


# -- indexing ----------------------------------------------------------------------------------
def open_trove(home: Path, **overrides: object) -> Trove:
    """A fresh index in `home`, with the installed models (TROVE_MODELS_DIR, else the default home's)."""
    return Trove(load_settings(home, models_dir=default_models_dir(default_home()), **overrides))


def index_progress(bar: tqdm) -> Callable[[Progress], None]:
    def update(p: Progress) -> None:
        if p.stage in ("index", "unchanged"):
            bar.total = p.total
            bar.update(p.done - bar.n)
    return update


@dataclass
class IndexRun:
    name: str
    files: int
    seconds: float
    per_s: float
    model_load_s: float
    timings_s: dict[str, float]
    peak_rss_mb: float
    problems: list[tuple[str, str, str]]
    vision: str  # which models made the analysis


def timed_index(trove: Trove, folder: Path, name: str, total: int, unit: str = "photo") -> tuple[IndexRun, IndexReport]:
    """Index `folder` with the models loaded beforehand (model loading is not indexing)."""
    t0 = time.perf_counter()
    _ = trove.models.embedder, trove.models.vision
    load_s = time.perf_counter() - t0
    with progress_bar(total=total, desc=f"index: {name}", unit=unit) as bar:
        t0 = time.perf_counter()
        report = trove.index([folder], index_progress(bar))
        seconds = time.perf_counter() - t0
    for path, state, reason in report.problems:
        print(f"  warning: {path}: {state}: {reason}", file=sys.stderr)
    run = IndexRun(name, report.indexed, seconds, report.indexed / seconds if seconds else 0.0, load_s,
                   {k: round(v, 4) for k, v in report.timings_s.items()}, peak_rss_mb(),
                   list(report.problems), trove.models.vision.name)
    return run, report


def photo_texts(trove: Trove) -> dict[str, str]:
    """file name -> the text of its `image/photo` item."""
    out = {}
    for record in trove.catalog.files():
        items = trove.store.file_items(record.id, PHOTO)
        if items:
            out[Path(record.path).name] = items[0].text
    return out


def check_baseline(trove: Trove, texts: dict[str, str]) -> list[str]:
    """What keeps the no-vision corpus from being file name + EXIF only (empty when it is)."""
    problems = []
    extra = sorted(set(trove.store.corpora()) - {PHOTO})
    if extra:
        problems.append(f"corpora other than {PHOTO} were made: {extra}")
    for name, text in texts.items():
        lines = text.splitlines()
        bad = [ln for ln in lines[1:] if not ln.startswith("Taken")]
        if not lines or not lines[0].startswith(f"Photo {name} ") or bad:
            problems.append(f"{name}: text beyond file name and EXIF: {text!r}")
    if not texts:
        problems.append("no photo was indexed")
    return problems


# -- retrieval ---------------------------------------------------------------------------------
@dataclass
class SystemResult:
    recall: dict[int, float]
    mrr: float
    latency_ms_mean: float
    found: float  # share of queries whose photo was returned at all
    ranks: dict[str, int | None] = field(default_factory=dict)  # query id -> rank of its photo (1-based)
    top1: dict[str, str] = field(default_factory=dict)  # query id -> file name ranked first


def run_system(trove: Trove, mode: str, queries: list[Query], k: int, name: str) -> SystemResult:
    trove.search(queries[0].text, k=k, corpus=PHOTO, mode=mode)  # warm-up, not timed
    ranks: dict[str, int | None] = {}
    top1: dict[str, str] = {}
    latencies = []
    for q in progress_bar(queries, desc=f"search: {name}", unit="q"):
        t0 = time.perf_counter()
        hits = trove.search(q.text, k=k, corpus=PHOTO, mode=mode)
        latencies.append((time.perf_counter() - t0) * 1000)
        names = list(dict.fromkeys(Path(h.item.source).name for h in hits))
        ranks[q.id] = names.index(q.photo) + 1 if q.photo in names else None
        top1[q.id] = names[0] if names else ""
    n = len(queries)
    recall = {c: sum(1 for r in ranks.values() if r is not None and r <= c) / n for c in RECALL_KS}
    mrr = sum(1 / r for r in ranks.values() if r) / n
    found = sum(1 for r in ranks.values() if r) / n
    return SystemResult(recall, mrr, statistics.fmean(latencies), found, ranks, top1)


def random_expectation(n_photos: int) -> dict:
    """What ranking the photos at random scores on average (one relevant photo per query)."""
    return {"recall": {str(c): min(c, n_photos) / n_photos for c in RECALL_KS},
            "mrr": sum(1 / r for r in range(1, n_photos + 1)) / n_photos}


# -- videos ------------------------------------------------------------------------------------
def video_frames(path: Path) -> int:
    import cv2

    cap = cv2.VideoCapture(str(path))
    try:
        return int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        cap.release()


def bench_videos(work: Path, shared: Trove | None) -> list[dict]:
    """Index each sample video in a folder of its own (copied first) with default settings."""
    trove = open_trove(work / "home-videos")
    if shared is not None:  # the same models (default settings), already loaded
        trove.models.embedder, trove.models.vision = shared.models.embedder, shared.models.vision
    out = []
    try:
        for src in VIDEOS:
            if not src.is_file():
                print(f"{src}: absent; skipped", file=sys.stderr)
                continue
            folder = work / "videos" / src.stem
            folder.mkdir(parents=True)
            shutil.copy2(src, folder / src.name)
            run, report = timed_index(trove, folder, src.name, 1, unit="video")
            row = next((m for m in trove.catalog.media("video") if m.get("name") == src.name), {})
            duration = float(row.get("duration_s") or 0.0)
            out.append({"video": src.name, "source": str(src.relative_to(EVAL)), "frames": video_frames(src),
                        "fps": row.get("fps"), "size": f"{row.get('width')}x{row.get('height')}",
                        "duration_s": duration, "clips": row.get("clips"), "items": report.items,
                        "rtf": run.seconds / duration if duration else None, "problems": row.get("problems"),
                        "index": asdict(run)})
    finally:
        trove.close()
    return out


# -- reporting ---------------------------------------------------------------------------------
def fmt_s(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def retrieval_table(res: dict) -> str:
    n_q, n_p = res["queries"], res["photos"]
    lines = [f"## Text -> photo retrieval ({n_q} queries over {n_p} photos)", "",
             "| system | R@1 | R@5 | R@10 | MRR | returned | MRR / baseline | mean ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    base = res["systems"].get(BASELINE, {}).get("mrr") or 0.0
    for name, r in res["systems"].items():
        rec = r["recall"]
        ratio = f"{r['mrr'] / base:.2f}" if base else "–"
        lines.append(f"| {name} | {rec['1']:.3f} | {rec['5']:.3f} | {rec['10']:.3f} | {r['mrr']:.3f} | "
                     f"{r['found']:.0%} | {ratio} | {r['latency_ms_mean']:.1f} |")
    rnd = res["random"]
    lines.append(f"| (random order, expected) | {rnd['recall']['1']:.3f} | {rnd['recall']['5']:.3f} | "
                 f"{rnd['recall']['10']:.3f} | {rnd['mrr']:.3f} | 100% | – | – |")
    return "\n".join(lines) + "\n"


def throughput_table(runs: list[dict]) -> str:
    lines = ["## Photo ingest throughput", "",
             "| run | photos | s | photos/s | " + " | ".join(PHOTO_STAGES) + " | model load s | peak RSS MB |",
             "|---" + "|---:" * (len(PHOTO_STAGES) + 6) + "|"]
    for r in runs:
        t = r["timings_s"]
        lines.append(f"| {r['name']} | {r['files']} | {r['seconds']:.1f} | {r['per_s']:.2f} | "
                     + " | ".join(fmt_s(t.get(s)) for s in PHOTO_STAGES)
                     + f" | {r['model_load_s']:.1f} | {r['peak_rss_mb']:.0f} |")
    lines += ["", "Stage columns are seconds summed over all photos (`IndexReport.timings_s`); model load is outside "
              "the timed run; peak RSS is the process's peak so far (runs go top to bottom, it never falls)."]
    return "\n".join(lines) + "\n"


def video_table(videos: list[dict]) -> str:
    lines = ["## Video indexing (default settings, OCR on)", "",
             "| video | frames | size | duration s | clips | index s | real-time factor | "
             + " | ".join(VIDEO_STAGES) + " | peak RSS MB |",
             "|---" + "|---:" * (len(VIDEO_STAGES) + 7) + "|"]
    for v in videos:
        t = v["index"]["timings_s"]
        rtf = f"{v['rtf']:.2f}" if v["rtf"] is not None else "–"
        lines.append(f"| {v['video']} | {v['frames']} | {v['size']} | {v['duration_s']:.1f} | {v['clips']} | "
                     f"{v['index']['seconds']:.1f} | {rtf} | " + " | ".join(fmt_s(t.get(s)) for s in VIDEO_STAGES)
                     + f" | {v['index']['peak_rss_mb']:.0f} |")
    lines += ["", "Real-time factor = index seconds / video seconds (< 1: faster than playing it). Vision runs on "
              "the clips' keyframes only, so the factor follows the number of clips, not the duration."]
    return "\n".join(lines) + "\n"


def failures_section(res: dict, limit: int = 25) -> str:
    fails = res["failures"]
    if not fails:
        return ""
    lines = [f"## Queries the hybrid search misses (relevant photo not in the top 10): {len(fails)}", "",
             "| query | rank | COCO objects of the photo | Trove's text for the photo (after the file name) |",
             "|---|---:|---|---|"]
    for f in fails[:limit]:
        lines.append(f"| {f['query']} | {f['rank'] or '–'} | {', '.join(f['coco'])} | {f['text']} |")
    if len(fails) > limit:
        lines.append(f"\n({len(fails) - limit} more in photos.json)")
    return "\n".join(lines) + "\n"


def coverage_section(res: dict) -> str:
    c = res["coverage"]
    e = res["ocr_effect"]
    return ("## What the photo texts hold (OCR-on corpus)\n\n"
            f"photos with detected objects: {c['objects']}/{c['photos']}; with ImageNet labels: {c['labels']}; "
            f"with faces: {c['faces']}; with text read: {c['text']}  \n"
            f"COCO ground-truth categories named in the photo's text: {c['coco_named']}/{c['coco_total']} "
            f"({c['coco_named'] / max(c['coco_total'], 1):.0%})  \n"
            f"OCR on vs off, hybrid search, per query: the relevant photo ranks higher with OCR for {e['better']}, "
            f"lower for {e['worse']}, the same for {res['queries'] - e['better'] - e['worse']}  \n"
            f"baseline corpus check (file name + EXIF only): {'ok' if not res['baseline_check'] else 'FAILED'}"
            + "".join(f"\n- {p}" for p in res["baseline_check"][:10]) + "\n")


def render(info: dict, command: str, res: dict, total_s: float) -> str:
    data = res["data"]
    md = (f"# Trove photos and videos: COCO-mini retrieval, ingest throughput\n\nmachine: {info['nproc']} cores, "
          f"{info['cpu']}  \ndate: {info['date']}  \ncommand: `{command}`  \n"
          f"data: {data['photos']} photos of `coco_mini/{PHOTO_FOLDER}` indexed; {data['queries']} queries "
          f"evaluated of {data['rows']} well-formed rows ({data['absent']} whose photo is not on disk: "
          f"{data['absent_by_folder']}; {data['outside_limit']} left out by --limit; {data['malformed']} "
          "malformed line(s) skipped)\n")
    if "retrieval" in res:
        md += "\n" + retrieval_table(res["retrieval"]) + "\n" + coverage_section(res["retrieval"])
    if "throughput" in res:
        md += "\n" + throughput_table(res["throughput"])
    if "videos" in res:
        md += "\n" + video_table(res["videos"])
    if "retrieval" in res:
        md += "\n" + failures_section(res["retrieval"])
    md += f"\ntotal run time: {total_s:.0f} s; peak RSS of the process: {peak_rss_mb():.0f} MB\n"
    return md


# -- main --------------------------------------------------------------------------------------
_WORD = re.compile(r"[a-z]+")


def content_of(text: str) -> str:
    """A photo's text without its first line (file name and folder), on one line."""
    return " ".join(text.splitlines()[1:]) or "(nothing)"


def coverage(texts: dict[str, str], coco: dict[str, list[str]]) -> dict:
    named = total = 0
    for name, cats in coco.items():
        if name not in texts:
            continue
        words = set(_WORD.findall(texts[name].lower()))
        for cat in cats:
            total += 1
            named += all(w in words or w + "s" in words for w in cat.split())
    return {"photos": len(texts), "objects": sum("\nShows " in t for t in texts.values()),
            "labels": sum("\nLooks like:" in t for t in texts.values()),
            "faces": sum("visible." in t for t in texts.values()),
            "text": sum("\nText in the photo:" in t for t in texts.values()), "coco_named": named, "coco_total": total}


def bench_photos(qs: QuerySet, work: Path) -> tuple[dict, list[dict], Trove]:
    """Index the photos three ways, search them, and return (retrieval, throughput, the OCR-on Trove)."""
    folder = work / "photos" / PHOTO_FOLDER
    folder.mkdir(parents=True)
    for p in qs.photos:
        shutil.copy2(p, folder / p.name)
    n = len(qs.photos)
    trove = open_trove(work / "home-ocr")
    run_on, _ = timed_index(trove, folder.parent, "vision, OCR on (default)", n)
    off = open_trove(work / "home-no-ocr", photo_ocr=False)
    off.models.embedder = trove.models.embedder  # the same text embedder, already loaded; its own vision models
    run_off, _ = timed_index(off, folder.parent, "vision, OCR off", n)
    base = open_trove(work / "home-baseline")
    base.models.vision = VisionModels()  # no model for any role: the photo's text is its file name and EXIF
    base.models.embedder = trove.models.embedder  # the same text embedder, already loaded
    run_base, _ = timed_index(base, folder.parent, "no vision (baseline corpus)", n)
    texts, base_texts = photo_texts(trove), photo_texts(base)
    problems = check_baseline(base, base_texts)
    for problem in problems:
        print(f"  baseline check: {problem}", file=sys.stderr)
    systems = {"trove hybrid (`trove search`)": (trove, "hybrid"), "trove dense only": (trove, "dense"),
               "trove BM25 only": (trove, "bm25"), "trove hybrid, OCR off": (off, "hybrid"),
               BASELINE: (base, "hybrid")}
    results = {name: run_system(t, mode, qs.queries, n, name) for name, (t, mode) in systems.items()}
    off.close()
    base.close()
    coco = coco_categories()
    hybrid = results["trove hybrid (`trove search`)"]
    failures = [{"id": q.id, "query": q.text, "photo": q.photo, "rank": hybrid.ranks[q.id],
                 "coco": coco.get(q.photo, []), "text": content_of(texts.get(q.photo, "")),
                 "top1": hybrid.top1[q.id], "top1_text": content_of(texts.get(hybrid.top1[q.id], ""))}
                for q in qs.queries if not (rank := hybrid.ranks[q.id]) or rank > 10]
    failures.sort(key=lambda f: (f["photo"], f["id"]))
    no_ocr = results["trove hybrid, OCR off"].ranks
    worst = n + 1  # not returned ranks below every returned photo
    ocr_effect = {"better": sum(1 for q in qs.queries if (hybrid.ranks[q.id] or worst) < (no_ocr[q.id] or worst)),
                  "worse": sum(1 for q in qs.queries if (hybrid.ranks[q.id] or worst) > (no_ocr[q.id] or worst))}
    retrieval = {"photos": n, "queries": len(qs.queries), "random": random_expectation(n),
                 "systems": {name: dict(asdict(r), recall={str(k): v for k, v in r.recall.items()})
                             for name, r in results.items()},
                 "baseline_check": problems, "coverage": coverage(texts, coco), "failures": failures,
                 "ocr_effect": ocr_effect,
                 "photo_texts": texts, "baseline_texts_sample": dict(list(base_texts.items())[:3])}
    throughput = [asdict(r) for r in (run_on, run_off, run_base)]
    return retrieval, throughput, trove


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.photos", description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="only the first N photos (by file name) and their queries")
    ap.add_argument("--no-videos", action="store_true", help="skip the video real-time factor")
    ap.add_argument("--out", type=Path, default=Path("bench/out"), help="folder for photos.md/.json")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not (COCO / PHOTO_FOLDER).is_dir():
        print(f"evaluation data not found at {COCO} (../shared/eval is absent here); nothing to measure")
        return 0
    given = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m bench.photos", *map(shlex.quote, given)])
    info = machine()
    qs = load_queries(args.limit)
    if not qs.queries:
        print("no query has its relevant photo on disk; nothing to measure")
        return 0
    res: dict = {"data": {"photos": len(qs.photos), "queries": len(qs.queries), "rows": qs.rows,
                          "absent": sum(qs.absent.values()), "absent_by_folder": qs.absent,
                          "outside_limit": qs.outside_limit, "malformed": len(qs.malformed),
                          "malformed_lines": qs.malformed}}
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="trove-bench-photos-") as tmp:
        retrieval, throughput, trove = bench_photos(qs, Path(tmp))
        res["retrieval"], res["throughput"] = retrieval, throughput
        print(retrieval_table(retrieval), flush=True)
        print(throughput_table(throughput), flush=True)
        try:
            if not args.no_videos:
                res["videos"] = bench_videos(Path(tmp), trove)
                print(video_table(res["videos"]), flush=True)
        finally:
            trove.close()
    total = time.perf_counter() - t_start
    res["peak_rss_mb"] = peak_rss_mb()
    md = render(info, command, res, total)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "photos.md").write_text(md, encoding="utf-8")
    payload = {"machine": info, "command": command, "total_seconds": total, **res}
    (args.out / "photos.json").write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
    print(failures_section(retrieval) + f"\ntotal run time: {total:.0f} s; wrote {args.out / 'photos.md'} and "
          f"{args.out / 'photos.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
