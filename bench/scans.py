"""Scanned PDF pages: OCR pages/s and how much of the text comes back, on scans made from the real
PDFs of ../shared/eval (each page rendered and saved again as an image-only PDF, so the text it
should give is the original's text layer). Beside Trove's path (parse, render in the reader worker,
OCR, parse again with the page texts), in the same run, the limit: PP-OCR alone on the same
pictures in this process.

    python -m bench.scans [--pages 2] [--dpi 150]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
PDFS = ROOT.parent / "shared" / "eval" / "documents" / "pdfs" / "pdfplumber"


def recall(original: str, read: str) -> float:
    """The share of the original's words (with their counts) the reading holds, in any order."""
    wanted = Counter(re.findall(r"\w+", original.lower()))
    got = Counter(re.findall(r"\w+", read.lower()))
    return sum((wanted & got).values()) / max(1, sum(wanted.values()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=2, help="pages of each PDF")
    parser.add_argument("--dpi", type=int, default=150)
    args = parser.parse_args(argv)
    if not PDFS.is_dir():
        raise SystemExit(f"{PDFS} is absent: this benchmark reads the shared evaluation PDFs in place")
    from pypdf import PdfReader

    from engine.ingest import scans
    from engine.ingest.documents import cut_document
    from engine.models import ModelManager
    from engine.runtimes.vision import ocr
    from engine.settings import default_home, default_models_dir

    reader = ocr(ModelManager(default_models_dir(default_home())), threads=2)
    reader.read(scans.render(sorted(PDFS.glob("*.pdf"))[0], [1], args.dpi)[0])  # warm: the first call is slower
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for original in sorted(PDFS.glob("*.pdf")):
            layer = PdfReader(str(original)).pages
            pages = list(range(1, min(args.pages, len(layer)) + 1))
            pictures = scans.render(original, pages, args.dpi)
            scan = Path(tmp) / original.name
            images = [Image.fromarray(p[:, :, ::-1]) for p in pictures]
            images[0].save(scan, "PDF", resolution=args.dpi, save_all=True, append_images=images[1:])
            t0 = time.perf_counter()
            alone = "\n".join(scans.page_text(reader.read(p)) for p in pictures)
            t_alone = time.perf_counter() - t0
            t1 = time.perf_counter()
            prepared = cut_document(scan, 120, 256, ocr=lambda: reader)
            t_trove = time.perf_counter() - t1
            text = "\n".join(layer[n - 1].extract_text() or "" for n in pages)
            rows.append((original.name, len(pages), t_alone, t_trove, recall(text, alone),
                         recall(text, prepared.file_text)))
            print(f"{original.name}: {len(pages)} pages, {t_trove:.1f} s", file=sys.stderr, flush=True)
    print(f"\nScans made from {PDFS.relative_to(ROOT.parent)} (first {args.pages} pages of each), {args.dpi} dpi\n")
    print("| PDF | pages | PP-OCR alone (s) | Trove's path (s) | ratio | Trove pages/s | words read back |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, n, alone_s, trove_s, _, got in rows:
        print(f"| {name} | {n} | {alone_s:.1f} | {trove_s:.1f} | {trove_s / alone_s:.2f} | {n / trove_s:.2f} | "
              f"{got:.1%} |")
    pages_n = sum(r[1] for r in rows)
    alone_total, trove_total = sum(r[2] for r in rows), sum(r[3] for r in rows)
    words = sum(r[5] * r[1] for r in rows) / pages_n
    print(f"| all | {pages_n} | {alone_total:.1f} | {trove_total:.1f} | {trove_total / alone_total:.2f} | "
          f"{pages_n / trove_total:.2f} | {words:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
