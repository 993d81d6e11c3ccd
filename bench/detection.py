"""Object detection quality and speed of both COCO-80 detectors on COCO128, in one run.

    .venv/bin/python -m bench.detection [--limit N] [--threads 1] [--detectors fastestdet,yolo-fastest-1.1-xl]

Data: ../shared/eval/images/coco128 (128 COCO photos, 929 boxes in coco128_instances.json), read in
place. AP@0.5 per class uses COCO's 101-point interpolation over detections kept at a low score
threshold (0.05, as mAP is computed); mAP@0.5 averages the classes present in the ground truth.
Recall and precision are at each runtime's own default threshold, i.e. what the indexer stores.
Time is detect() per photo (decoded photo in, regions out), median, on `--threads` threads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "eval" / "images" / "coco128"
FOCUS = ("person", "car", "dog", "cup")
AP_THRESHOLD = 0.05


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    w = (np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])).clip(0)
    h = (np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])).clip(0)
    inter = w * h
    union = (box[2] - box[0]) * (box[3] - box[1]) + (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) - inter
    return inter / np.maximum(union, 1e-9)


def match(dets: list[tuple[float, np.ndarray]], gts: np.ndarray, iou_min: float = 0.5) -> list[tuple[float, bool]]:
    """(score, true positive) for one photo and class: best-scored first, each truth matched once."""
    used = np.zeros(len(gts), dtype=bool)
    out = []
    for score, box in sorted(dets, key=lambda d: -d[0]):
        hit = False
        if len(gts):
            ious = np.where(used, -1.0, box_iou(box, gts))
            best = int(ious.argmax())
            if ious[best] >= iou_min:
                used[best] = hit = True
        out.append((score, hit))
    return out


def average_precision(hits: list[tuple[float, bool]], n_truth: int) -> float:
    """COCO-style AP: precision envelope sampled at 101 recall points."""
    if n_truth == 0:
        return float("nan")
    if not hits:
        return 0.0
    hits = sorted(hits, key=lambda h: -h[0])
    tp = np.cumsum([h[1] for h in hits])
    fp = np.cumsum([not h[1] for h in hits])
    recall, precision = tp / n_truth, tp / np.maximum(tp + fp, 1)
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    idx = np.searchsorted(recall, np.linspace(0, 1, 101), side="left")
    return float(np.mean([precision[i] if i < len(precision) else 0.0 for i in idx]))


def load_truth(limit: int) -> tuple[list[dict], dict[int, dict[str, np.ndarray]]]:
    data = json.loads((DATA / "coco128_instances.json").read_text())
    names = {c["id"]: c["name"] for c in data["categories"]}
    images = sorted(data["images"], key=lambda i: i["file_name"])[: limit or None]
    truth: dict[int, dict[str, list]] = {i["id"]: {} for i in images}
    for a in data["annotations"]:
        if a["image_id"] in truth and not a.get("iscrowd"):
            x, y, w, h = a["bbox"]
            truth[a["image_id"]].setdefault(names[a["category_id"]], []).append([x, y, x + w, y + h])
    return images, {k: {c: np.array(b, dtype=np.float32) for c, b in v.items()} for k, v in truth.items()}


def evaluate(name: str, photos: list[tuple[dict, np.ndarray]], truth: dict, manager, threads: int) -> dict:  # noqa: ANN001
    from engine.runtimes.vision import object_detector

    detector = object_detector(manager, name, threads=threads)
    default_threshold = detector.score_threshold
    sweep = object_detector(manager, name, threads=threads, score_threshold=AP_THRESHOLD)
    times: list[float] = []
    hits: dict[str, list[tuple[float, bool]]] = {}
    kept: dict[str, list[tuple[float, bool]]] = {}
    for info, image in tqdm(photos, file=sys.stderr, desc=name):
        t0 = time.perf_counter()
        detector.detect(image)
        times.append((time.perf_counter() - t0) * 1000)
        regions = sweep.detect(image)
        gts = truth[info["id"]]
        for label in set(gts) | {r.label for r in regions}:
            dets = [(r.score, np.array(r.box, dtype=np.float32)) for r in regions if r.label == label]
            found = match(dets, gts.get(label, np.zeros((0, 4), np.float32)))
            hits.setdefault(label, []).extend(found)
            kept.setdefault(label, []).extend(h for h in found if h[0] >= default_threshold)
    n_truth = {c: sum(len(g.get(c, ())) for g in truth.values()) for c in {c for g in truth.values() for c in g}}
    ap = {c: average_precision(hits.get(c, []), n) for c, n in n_truth.items()}
    tp = {c: sum(h[1] for h in kept.get(c, [])) for c in n_truth}
    all_kept = [h for v in kept.values() for h in v]
    return {
        "threshold": default_threshold, "n_truth": n_truth, "ap": ap, "map": float(np.mean(list(ap.values()))),
        "recall": {c: tp[c] / n for c, n in n_truth.items()},
        "precision": {c: tp.get(c, 0) / max(len(kept.get(c, [])), 1) for c in n_truth},
        "recall_all": sum(tp.values()) / sum(n_truth.values()),
        "precision_all": sum(h[1] for h in all_kept) / max(len(all_kept), 1),
        "ms_median": statistics.median(times), "photos_per_s": len(times) / (sum(times) / 1000),
    }


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert image is not None, path  # every COCO128 photo decodes
    return image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="photos (0 = all 128)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--detectors", default="fastestdet,yolo-fastest-1.1-xl")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    if not DATA.exists():
        print(f"{DATA} is absent: nothing to measure")
        return 0
    from engine.models import ModelManager
    from engine.settings import default_home, default_models_dir

    manager = ModelManager(default_models_dir(default_home()))
    images, truth = load_truth(args.limit)
    photos = [(i, _read(DATA / "images" / "train" / i["file_name"])) for i in images]
    results = {name: evaluate(name, photos, truth, manager, args.threads) for name in args.detectors.split(",")}
    n_classes = len(next(iter(results.values()))["ap"])
    n_boxes = sum(len(b) for g in truth.values() for b in g.values())
    lines = [f"| detector | mAP@0.5 ({n_classes} classes) | "
             + " | ".join(f"AP {c}" for c in FOCUS) + " | score threshold | recall (all) | precision (all) | "
             + " | ".join(f"recall {c}" for c in FOCUS) + " | ms/photo (median) | photos/s |",
             "|---" + "|---:" * (2 * len(FOCUS) + 6) + "|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['map']:.3f} | " + " | ".join(f"{r['ap'].get(c, float('nan')):.3f}" for c in FOCUS)
                     + f" | {r['threshold']:.2f} | {r['recall_all']:.3f} | {r['precision_all']:.3f} | "
                     + " | ".join(f"{r['recall'].get(c, float('nan')):.3f}" for c in FOCUS)
                     + f" | {r['ms_median']:.1f} | {r['photos_per_s']:.1f} |")
    counts = next(iter(results.values()))["n_truth"]
    text = (f"# Object detection on COCO128, {datetime.now().isoformat(timespec='seconds')}\n\n"
            f"command: `python -m bench.detection --limit {args.limit} --threads {args.threads} "
            f"--detectors {args.detectors}`  \n"
            f"photos: {len(photos)}, boxes: {n_boxes}; truth boxes of "
            + ", ".join(f"{c} {counts.get(c, 0)}" for c in FOCUS)
            + f"  \nAP at score >= {AP_THRESHOLD}; recall/precision at each detector's default threshold\n\n"
            + "\n".join(lines) + "\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "detection.md").write_text(text)
    (args.out / "detection.json").write_text(json.dumps(results, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
