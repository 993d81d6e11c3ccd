"""Scene cuts and video reading speed: cut agreement (precision/recall within +-2 frames) of
AdaptiveDetector and ContentDetector as Trove feeds them (one decoding pass, `read_video`), and
the real-time factor of that pass (seconds of processing per second of video), in one run.

    .venv/bin/python -m bench.scenes [--out bench/out]

Writes `scenes.md` and `scenes.json` (totals over the goldens per detector, each agreement row, speed).

References (../shared/eval/videos/pyscenedetect): testvideo.mp4's scene list (testvideo_scenes.csv,
made by PySceneDetect's fade/threshold detection: scenes start mid-fade) and PySceneDetect's own
golden outputs per detector (goldens/*.default.json). Golden frame numbers count frames at the
source's nominal rate, so cuts are compared in seconds with a tolerance of 2 nominal frames.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from datetime import datetime
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIDEOS = ROOT.parent / "shared" / "eval" / "videos"
PSD = VIDEOS / "pyscenedetect"
DETECTORS = {"adaptive": "AdaptiveDetector", "content": "ContentDetector"}
# video -> nominal frame rate the reference frame numbers count in
GOLDEN = {"testvideo.mp4": Fraction(30000, 1001), "goldeneye-vfr-drop3.mp4": Fraction(24000, 1001),
          "counter.mp4": Fraction(10), "fades.mp4": Fraction(25)}
SPEED = [PSD / "testvideo.mp4", VIDEOS / "opencv_samples" / "vtest.avi", PSD / "goldeneye-vfr-drop3.mp4"]


def match(detected: list[float], reference: list[float], tolerance_s: float) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives), each reference cut matched at most once."""
    free = sorted(reference)
    tp = 0
    for cut in sorted(detected):
        near = [r for r in free if abs(r - cut) <= tolerance_s]
        if near:
            free.remove(min(near, key=lambda r: abs(r - cut)))
            tp += 1
    return tp, len(detected) - tp, len(free)


def references(name: str) -> dict[str, list[int]]:
    """Reference cut lists (frame numbers) for one video: its scene list and the goldens per detector."""
    out: dict[str, list[int]] = {}
    if name == "testvideo.mp4":
        with (PSD / "testvideo" / "testvideo_scenes.csv").open() as f:  # a table, a blank line, then notes
            rows = [r for r in csv.DictReader(f) if (r.get("frame") or "").replace(".", "").isdigit()]
        out["scene list (csv)"] = [int(float(r["frame"])) for r in rows if float(r["frame"]) > 0]
    for key, cls in DETECTORS.items():
        golden = PSD / "goldens" / f"{name}.{cls}.default.json"
        if golden.exists():
            out[f"golden {key}"] = json.loads(golden.read_text())["cuts"]
    return out


def decode_only(path: Path) -> float:
    """Seconds to decode every frame with OpenCV and nothing else (the floor for one pass)."""
    import cv2

    cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG)
    t0 = time.perf_counter()
    while cap.read()[0]:
        pass
    cap.release()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--repeat", type=int, default=2, help="passes per video and detector; the fastest counts")
    args = parser.parse_args(argv)
    if not PSD.exists():
        print(f"{PSD} is absent: nothing to measure")
        return 0
    from engine.ingest.videos import read_video

    read_video(PSD / "counter.mp4")  # warm up: imports, first-open costs
    runs: dict[tuple[str, str], dict] = {}
    for path in sorted({PSD / n for n in GOLDEN} | set(SPEED)):
        for detector in DETECTORS:
            walls = []
            for _ in range(max(args.repeat, 1)):
                t0 = time.perf_counter()
                video = read_video(path, detector=detector)
                walls.append(time.perf_counter() - t0)
            runs[(path.name, detector)] = {"wall_s": min(walls), "cuts_s": video.cuts_s,
                                           "clips": len(video.clips), "duration_s": video.duration_s,
                                           "frames": video.decoded_frames, "size": f"{video.width}x{video.height}"}
    agreement = ["| video | reference | detector | ref cuts | detected | precision | recall |", "|---" * 7 + "|"]
    agreement_rows: list[dict] = []
    totals = {d: [0, 0, 0] for d in DETECTORS}
    for name, fps in GOLDEN.items():
        for ref_name, frames in references(name).items():
            ref_s = [f / fps for f in frames]
            for detector in DETECTORS:
                if ref_name.startswith("golden") and not ref_name.endswith(detector):
                    continue
                run = runs[(name, detector)]
                tp, fp, fn = match(run["cuts_s"], [float(r) for r in ref_s], float(2 / fps) + 1e-6)
                if ref_name.startswith("golden"):
                    totals[detector] = [a + b for a, b in zip(totals[detector], (tp, fp, fn), strict=True)]
                precision = f"{tp / (tp + fp):.2f}" if tp + fp else "–"
                recall = f"{tp / (tp + fn):.2f}" if tp + fn else "–"
                detected = ", ".join(str(round(c * fps)) for c in run["cuts_s"]) or "none"
                agreement.append(f"| {name} | {ref_name} | {detector} | {', '.join(map(str, frames)) or 'none'} "
                                 f"| {detected} | {precision} | {recall} |")
                agreement_rows.append({"video": name, "reference": ref_name, "detector": detector, "tp": tp,
                                       "fp": fp, "fn": fn})
    for detector, (tp, fp, fn) in totals.items():
        agreement.append(f"| **all goldens** | golden | {detector} | {tp + fn} | {tp + fp} | "
                         f"{tp / max(tp + fp, 1):.2f} | {tp / max(tp + fn, 1):.2f} |")
    speed = ["| video | frames | size | video s | decode only s | adaptive s | RTF adaptive | content s | "
             "RTF content | clips (adaptive) |", "|---" * 10 + "|"]
    speed_rows: list[dict] = []
    for path in SPEED:
        a, c = runs[(path.name, "adaptive")], runs[(path.name, "content")]
        floor = min(decode_only(path) for _ in range(max(args.repeat, 1)))
        speed.append(f"| {path.name} | {a['frames']} | {a['size']} | {a['duration_s']:.1f} | {floor:.2f} | "
                     f"{a['wall_s']:.2f} | {a['wall_s'] / a['duration_s']:.3f} | {c['wall_s']:.2f} | "
                     f"{c['wall_s'] / c['duration_s']:.3f} | {a['clips']} |")
        speed_rows.append({"video": path.name, "frames": a["frames"], "size": a["size"], "duration_s": a["duration_s"],
                           "decode_s": floor, "wall_s": {"adaptive": a["wall_s"], "content": c["wall_s"]},
                           "rtf": {"adaptive": a["wall_s"] / a["duration_s"], "content": c["wall_s"] / c["duration_s"]},
                           "clips": a["clips"]})
    text = (f"# Scene cuts and video reading, {datetime.now().isoformat(timespec='seconds')}\n\n"
            f"command: `python -m bench.scenes --repeat {args.repeat}` (times: the fastest of the passes)  \n"
            "cuts as frame numbers at the reference's nominal rate; a cut agrees within +-2 frames\n\n"
            + "\n".join(agreement) + "\n\nSpeed: one `read_video` pass (decode + downscale + detect + keyframes); "
            "RTF = seconds of processing per second of video (lower is faster)\n\n" + "\n".join(speed) + "\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scenes.md").write_text(text)
    totals_out = {d: {"tp": tp, "fp": fp, "fn": fn, "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1)}
                  for d, (tp, fp, fn) in totals.items()}
    (args.out / "scenes.json").write_text(json.dumps({"command": f"python -m bench.scenes --repeat {args.repeat}",
                                                      "totals": totals_out, "agreement": agreement_rows,
                                                      "speed": speed_rows}, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
