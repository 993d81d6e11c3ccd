"""The bench's "disk": real data copied from ../shared/eval into a cache folder (never into the
repository), mirroring eval's own layout so a question's `source` is its path relative to eval."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
CORPUS_DOCS = 300  # documents of each text collection put on the disk, beside those a question names
# (folder under eval, file pattern): every match is copied as is
COPIED = (
    ("documents/pdfs", "**/*.pdf"),
    ("tables/wtq/csv", "*.csv"),
    ("sql/spider/database", "*/*.sqlite"),
    ("sql/geoquery", "*.sqlite"),
    ("cypher/movies", "*.cypher"),
    ("sparql/spider4sparql/kg", "*.ttl"),
    ("images/skimage", "*.png"),
    ("images/skimage", "*.jpg"),
    ("images/ultralytics", "*.jpg"),
    ("images/coco_mini/train2017", "*.jpg"),
    ("videos/opencv_samples", "*.avi"),
    ("videos/pyscenedetect", "*.mp4"),
    ("videos/msrvtt_2clips", "*.mp4"),
)
COLLECTIONS = ("text/cranfield", "text/cisi")


def build(dest: Path, named: Iterable[str]) -> list[Path]:
    """Copy the eval data onto `dest` (files already there with the same size are kept) and write
    one text file per collection document; `named` are the sources the questions cite. Returns the
    top-level folders to index."""
    if not EVAL.is_dir():
        raise SystemExit(f"{EVAL}: the shared eval data is not here; bench.answers needs it")
    named = set(named)
    for folder, pattern in COPIED:
        for src in sorted((EVAL / folder).glob(pattern)):
            _copy(src, dest / src.relative_to(EVAL))
    for collection in COLLECTIONS:
        wanted = {Path(s).stem for s in named if s.startswith(collection + "/")}
        _write_collection(EVAL / collection / "corpus.jsonl", dest / collection, wanted)
    return sorted(p for p in dest.iterdir() if p.is_dir())


def _copy(src: Path, target: Path) -> None:
    if target.is_file() and target.stat().st_size == src.stat().st_size:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, target)


def _write_collection(corpus: Path, folder: Path, wanted: set[str]) -> None:
    """The first `CORPUS_DOCS` documents and every wanted one, each as `<id>.txt`: title, blank
    line, text (as a person's saved abstract would be)."""
    folder.mkdir(parents=True, exist_ok=True)
    with corpus.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            doc = json.loads(line)
            if i >= CORPUS_DOCS and doc["_id"] not in wanted:
                continue
            target = folder / f"{doc['_id']}.txt"
            body = f"{doc.get('title', '').strip()}\n\n{doc['text'].strip()}\n"
            if not target.is_file() or target.read_text(encoding="utf-8") != body:
                target.write_text(body, encoding="utf-8")
