"""The newer file kinds and the pictures inside documents, through the real indexer: what each
costs to index, against the same folder indexed in the same run with `document_pictures = false`
(the limit: text only), and whether a search finds each picture by what is seen in it.

Documents: the shared evaluation PDFs that hold pictures (read in place: a pdflatex chapter with a
photo, a Google Docs export with a logo, a Federal Register notice whose tables are scanned
images), and files made here the way their programs make them (tests/office_files.py): a Word
letter and an e-book with the example cat photo, a deck, a mailbox, an Outlook message.

    python -m bench.kinds
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:
    from engine.pipeline import Trove

ROOT = Path(__file__).resolve().parent.parent
PDFS = ROOT.parent / "shared" / "eval" / "documents" / "pdfs"
WITH_PICTURES = ["py-pdf-sample-files/003-pdflatex-image/pdflatex-image.pdf",
                 "py-pdf-sample-files/011-google-doc-document/google-doc-document.pdf",
                 "pdfplumber/federal-register-2020-17221.pdf"]
LOOKS_FOR = {"letter.docx": "a cat at a window", "cats.epub": "a cat at a window",
             "pdflatex-image.pdf": "a picture in the chapter"}


def _folder(tmp: Path) -> Path:
    import datetime as dt

    from tests.office_files import epub_with_picture, household_mail, outlook_msg, pptx_deck, word_with_pictures

    folder = tmp / "kinds"
    folder.mkdir()
    for name in WITH_PICTURES:
        shutil.copy(PDFS / name, folder / Path(name).name)
    cat = tmp / "cat.jpg"
    Image.open(ROOT / "examples" / "photos" / "home" / "chelsea-window.jpg").convert("RGB").save(cat)
    word_with_pictures(folder / "letter.docx", cat, "our cat at the kitchen window", tmp)
    epub_with_picture(folder / "cats.epub", cat, "Chelsea at the window")
    pptx_deck(folder / "plans.pptx", tmp)
    household_mail(folder / "home.mbox")
    outlook_msg(folder / "handover.msg", "Key handover", ("Ilse de Wit", "ilse@example.nl"), "Maya",
                dt.datetime(2025, 4, 2, 8, 30, tzinfo=dt.UTC), "The keys are at the office from Friday.")
    return folder


def _index(folder: Path, home: Path, pictures: bool) -> tuple[float, dict[str, float], Trove]:
    from engine.pipeline import Trove
    from engine.settings import default_home, default_models_dir, load_settings

    settings = load_settings(home, models_dir=default_models_dir(default_home()), threads=2)
    trove = Trove(settings.with_(document_pictures=pictures))
    t0 = time.perf_counter()
    report = trove.index([folder])
    return time.perf_counter() - t0, report.timings_s, trove


def main() -> int:
    if not PDFS.is_dir():
        raise SystemExit(f"{PDFS} is absent: this benchmark reads the shared evaluation PDFs in place")
    from engine.corpora import PHOTO
    from engine.locators import as_locator
    from engine.result import citation_place

    with tempfile.TemporaryDirectory() as tmp:
        folder = _folder(Path(tmp))
        _index(folder, Path(tmp) / "warm", False)  # models loaded and files cached once before either is timed
        text_s, _, _ = _index(folder, Path(tmp) / "text", False)
        all_s, timings, trove = _index(folder, Path(tmp) / "all", True)
        photos = trove.store.corpora().get(PHOTO, 0)
        print(f"\n{len(list(folder.iterdir()))} files, {photos} pictures indexed as photos\n")
        print("| indexing | seconds | ratio to text only |")
        print("|---|---:|---:|")
        print(f"| text only (document_pictures = false): the limit | {text_s:.1f} | 1.00 |")
        print(f"| with the pictures | {all_s:.1f} | {all_s / text_s:.2f} |")
        seconds = timings.get("pictures", 0.0)
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(timings.items()) if k.startswith("vision_"))
        print(f"\npictures: {seconds:.1f} s in all, {photos / max(seconds, 1e-9):.2f} pictures/s ({stages})\n")
        print("| file | searched for | first photo hit | cited as |")
        print("|---|---|---|---|")
        for name, query in LOOKS_FOR.items():
            hits = trove.search(query, corpus=PHOTO, k=10)
            mine = [(rank, h.item) for rank, h in enumerate(hits, 1) if Path(h.item.source).name == name]
            cited = citation_place(mine[0][1].source, as_locator(mine[0][1].locator)) if mine else "-"
            print(f"| {name} | {query} | {mine[0][0] if mine else '-'} | {cited} |")
        trove.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
