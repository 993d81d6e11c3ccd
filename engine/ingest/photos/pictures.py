"""Pictures inside documents (a photo in a PDF, a picture on a slide, an image in a Word file or an
e-book) become photo items of their document, analysed as photos are: regions, labels, text read,
image vectors. Each is cited as the document and where in it ("report.pdf, page 4, picture 2");
its pixels are kept in the document's thumbnail folder (locator `picture_file`), so the app and
the vision-language model can show it without reading the document again."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np

from engine.corpora import PARAGRAPH
from engine.errors import ParseError, SkipFile
from engine.ingest.documents import Prepared
from engine.ingest.parsed import Picture
from engine.ingest.photos import thumbnails
from engine.ingest.photos.analyse import Analysis, VisionModels, analyse
from engine.ingest.photos.image_io import picture_pixels
from engine.ingest.photos.items import Seen, add_seen, seen_lines
from engine.locators import PhotoLocator, page_words

MAX_SIDE = 3000  # pixels: a larger picture is kept (and analysed, and boxed) at this size
CAPTION = re.compile(r"^(?:figure|fig\.|chart|photo|image|picture|diagram|graph|map|plate)\s*[\dIVX]*[:.]",
                     re.IGNORECASE)


def add_pictures(prepared: Prepared, path: Path, sha256: str, pictures: list[Picture], page_kind: str,
                 models: VisionModels, thumbs: Path, overlap: float, region_min: dict[str, float]) -> None:
    """The photo and region items (and image vectors) of the document's pictures, added to its
    `prepared` items; a picture that cannot be read is left out with a warning."""
    import cv2

    folder = thumbnails.folder(thumbs, sha256)
    title = prepared.items[0].title if prepared.items else path.stem
    for number, picture in enumerate(pictures, start=1):
        t0 = time.perf_counter()
        try:
            image = _fitted(picture_pixels(picture.data))
        except (ParseError, SkipFile) as exc:
            prepared.warnings.append(f"picture {number} not read: {exc}")
            continue
        found = analyse(image, models, overlap, region_min=region_min)
        folder.mkdir(parents=True, exist_ok=True)
        kept = folder / f"picture-{number}.png"
        cv2.imwrite(str(kept), image)
        where = PhotoLocator(page=picture.page) if picture.page is not None else PhotoLocator()
        if where and page_kind != "page":
            where["page_kind"] = page_kind
        locator: PhotoLocator = {**where, "picture": number, "picture_file": str(kept), "width": int(image.shape[1]),
                                 "height": int(image.shape[0]),
                                 "thumbnail": str(thumbnails.save(image, folder / f"picture-{number}-thumb.jpg"))}
        called = f"picture {number}" + (f" on {page_words(where)}" if where else "") + f" of {path.name}"
        seen = Seen(image, found, str(path), path.name, title + (f", {page_words(where)}" if where else ""),
                    locator, prefix=f"picture-{number}-")
        add_seen(prepared, seen, picture_text(called, title, picture, found, _captions(prepared, picture.page)),
                 called, models, folder)
        for stage, seconds in found.timings.items():
            prepared.timings[f"vision_{stage}"] = prepared.timings.get(f"vision_{stage}", 0.0) + seconds
        prepared.timings["pictures"] = prepared.timings.get("pictures", 0.0) + time.perf_counter() - t0


def picture_text(called: str, title: str, picture: Picture, found: Analysis, captions: list[str]) -> str:
    """The picture in words, as text questions find it: where it is, what is seen in it, what the
    author wrote about it and the captions on its page."""
    lines = [f"{called[0].upper()}{called[1:]} ({title})."]
    lines += [line.replace("in the photo", "in the picture") for line in seen_lines(found)]
    if picture.alt:
        lines.append(f"Described in the document as: {picture.alt}.")
    lines += [f"Caption on the page: {caption}" for caption in captions]
    return "\n".join(lines)


def _fitted(image: np.ndarray) -> np.ndarray:
    import cv2

    scale = MAX_SIDE / max(image.shape[:2])
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image


def _captions(prepared: Prepared, page: int | None) -> list[str]:
    """The page's paragraphs that read as a figure's caption ("Figure 3: Sales by region")."""
    if page is None:
        return []
    return [item.text[:200] for item in prepared.items
            if item.corpus == PARAGRAPH and item.locator.get("page") == page and CAPTION.match(item.text)][:3]
