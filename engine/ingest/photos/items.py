"""One photo -> the items of the `image/photo`, `image/region` and `image/visual` corpora, its
thumbnails and its row of the `photos` table. The photo's text is what text questions find it by:
objects and their counts, faces, labels, text read in it, when and where it was taken, its file and
folder names, and what people wrote about it (sidecars, alt text of notes that embed it)."""

from __future__ import annotations

import datetime as dt
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.corpora import LOOKS, PHOTO, REGION, VISUAL
from engine.ingest.documents import Prepared
from engine.ingest.photos import sidecars, thumbnails
from engine.ingest.photos.analyse import Analysis, VisionModels, analyse
from engine.ingest.photos.image_io import LoadedPhoto, load_photo
from engine.locators import PhotoLocator
from engine.runtimes.vision.coco import plural
from engine.runtimes.vision.regions import FACE, TEXT, Region
from local_stores.corpus_store import Item

_SEPARATORS = re.compile(r"[_\-.]+")


def prepare_photo(path: Path, sha256: str, models: VisionModels, thumbs: Path, alt_texts: list[str],
                  overlap: float = 0.8, region_min: dict[str, float] | None = None) -> Prepared:
    """Read, analyse and describe one photo (nothing written to the index yet)."""
    t0 = time.perf_counter()
    photo = load_photo(path)
    t1 = time.perf_counter()
    found = analyse(photo.image, models, overlap, region_min=region_min)
    t2 = time.perf_counter()
    caption = sidecars.caption(path)
    folder = thumbnails.folder(thumbs, sha256)
    thumb = thumbnails.save(photo.image, folder / "photo.jpg")
    seen = Seen(photo.image, found, str(path), path.name, _context(path, photo.exif), _base_locator(photo, thumb))
    prepared = Prepared([], [], "")
    add_seen(prepared, seen, photo_text(path, photo, found, caption, alt_texts), f"photo {path.name}", models,
             folder)
    prepared.file_text = prepared.items[0].text
    prepared.media = ("photo", photo_row(path, photo, found, caption, sha256))
    prepared.timings = {"parse": t1 - t0, "vision": t2 - t1, **{f"vision_{k}": v for k, v in found.timings.items()},
                        "thumbnails": time.perf_counter() - t2}
    return prepared


@dataclass
class Seen:
    """A picture and what the vision models found in it, with where it is: a photo file, or a
    picture inside a document (`source` the document, `locator` saying where in it)."""

    image: np.ndarray
    found: Analysis
    source: str
    title: str
    heading: str  # what a person calls where it is: the folder and day, or the document's page
    locator: PhotoLocator  # width, height, thumbnail and where it is (page, picture, its saved file)
    prefix: str = ""  # of its region crops' file names, unique within the file's thumbnail folder


def add_seen(prepared: Prepared, seen: Seen, text: str, called: str, models: VisionModels, folder: Path) -> None:
    """The items of one picture added to `prepared`: the photo item (`text`), one per region (each
    crop saved to `folder`), and its image vectors; `called` names it in the regions' text."""
    photos = sum(1 for item in prepared.items if item.corpus == PHOTO)  # the ords of this file's items so far
    regions = sum(1 for item in prepared.items if item.corpus == REGION)
    base, image, found = seen.locator, seen.image, seen.found
    items = [Item(PHOTO, seen.source, text, dict(
        base, regions=[dict(r.as_dict(), n=i) for i, r in enumerate(found.regions)],
        labels=[[label, round(score, 3)] for label, score in found.labels]), title=seen.title, heading=seen.heading,
        ord=photos)]
    for i, region in enumerate(found.regions):
        crop = thumbnails.save(image, folder / f"{seen.prefix}region-{i}.jpg", thumbnails.CROP_SIDE, region.box)
        items.append(Item(REGION, seen.source, region_text(region, called, seen.heading), dict(
            base, region=i, crop=str(crop), **region.as_dict()), title=seen.title, heading=seen.heading,
            ord=regions + i))
    prepared.items += items
    prepared.texts += [_embedding_text(it) for it in items]
    if found.vector is not None:
        embedder = getattr(models.embedder, "name", "image-embedder")
        prepared.fixed.append((_vector_item(VISUAL, seen, photos, embedder), found.vector))
    if models.image_text is not None:
        t0 = time.perf_counter()
        looks = models.image_text.photo_vectors([image], [text])[0]
        found.timings["image_text"] = time.perf_counter() - t0
        prepared.fixed.append((_vector_item(LOOKS, seen, photos, models.image_text.name), looks))


def _vector_item(corpus: str, seen: Seen, ord: int, embedder: str) -> Item:
    """The item an image vector of the picture is kept with (its vector space: `embedder`'s)."""
    return Item(corpus, seen.source, seen.title, dict(seen.locator), title=seen.title, heading=seen.heading, ord=ord,
                extra={"embedder": embedder})


def _base_locator(photo: LoadedPhoto, thumb: Path) -> PhotoLocator:
    loc = PhotoLocator(width=photo.width, height=photo.height, thumbnail=str(thumb))
    if "taken_at" in photo.exif:
        loc["taken_at"] = str(photo.exif["taken_at"])
    if "latitude" in photo.exif and "longitude" in photo.exif:
        loc["latitude"], loc["longitude"] = float(photo.exif["latitude"]), float(photo.exif["longitude"])
    return loc


def _embedding_text(item: Item) -> str:
    return f"{item.heading}: {item.text}" if item.heading else item.text


def words_of(name: str) -> str:
    """`IMG_2024-03-14_beach-day` -> `IMG 2024 03 14 beach day`: file names read as words."""
    return " ".join(_SEPARATORS.sub(" ", name).split())


def when(taken_at: str | None) -> str:
    """`2025-05-17T09:12:00` -> `Saturday 17 May 2025, 09:12`."""
    if not taken_at:
        return ""
    moment = dt.datetime.fromisoformat(taken_at)
    return f"{moment:%A} {moment.day} {moment:%B %Y, %H:%M}"


def _context(path: Path, exif: dict) -> str:
    """The folder and the day: what a person calls a photo by ("the Lisbon photos", "last March")."""
    day = ""
    if exif.get("taken_at"):
        moment = dt.datetime.fromisoformat(exif["taken_at"])
        day = f"{moment.day} {moment:%B %Y}"
    return ", ".join(p for p in (words_of(path.parent.name), day) if p)


def counted(regions: list[Region]) -> str:
    """`2 persons, 1 bus`: the detected objects, most frequent first."""
    counts = Counter(r.label for r in regions if r.kind not in (FACE, TEXT))
    return ", ".join(number_of(n, label) for label, n in counts.most_common())


def number_of(n: int, label: str) -> str:
    """`1 bus`, `2 buses`, `3 people`."""
    return f"{n} {plural(label, n)}"


PAGE_LINES = 5  # a photo with this many lines of text read, ...
PAGE_WORDS_PER_LINE = 4  # ... this many words to a line, is a page of text (not a street of signs)


def seen_lines(found: Analysis) -> list[str]:
    """What the vision models found, in sentences: objects, faces, labels, text read."""
    lines = []
    objects = counted(found.regions)
    if objects:
        lines.append(f"Shows {objects}.")
    coloured = list(dict.fromkeys(r.called for r in found.regions if r.colour))
    if coloured:
        lines.append("Colours: " + ", ".join(coloured) + ".")
    faces = sum(1 for r in found.regions if r.kind == FACE)
    if faces:
        lines.append(f"{faces} face{'s' if faces > 1 else ''} visible.")
    if found.labels:
        lines.append("Looks like: " + ", ".join(label for label, _ in found.labels[:3]) + ".")
    texts = [r.text for r in found.regions if r.kind == TEXT and r.text]
    if len(texts) >= PAGE_LINES and sum(len(text.split()) for text in texts) >= PAGE_WORDS_PER_LINE * len(texts):
        lines.append(f"A page of text: {len(texts)} lines read.")  # a scanned page, a letter, a screen
    if texts:
        lines.append("Text in the photo: " + " | ".join(texts) + ".")
    return lines


def photo_text(path: Path, photo: LoadedPhoto, found: Analysis, caption: str, alt_texts: list[str]) -> str:
    lines = [f"Photo {path.name} in the folder {words_of(path.parent.name)} ({words_of(path.stem)})."]
    exif = photo.exif
    taken = when(exif.get("taken_at"))
    camera = " ".join(dict.fromkeys(filter(None, (exif.get("camera_make"), exif.get("camera_model")))))
    if taken or camera or "latitude" in exif:
        parts = (f"Taken {taken}" if taken else "Taken", f"with a {camera}" if camera else "", _where(exif))
        lines.append(" ".join(p for p in parts if p) + ".")
    lines += seen_lines(found)
    if caption:
        lines.append(f"Caption: {caption}")
    for alt in alt_texts:
        lines.append(f"Described in a note as: {alt}.")
    return "\n".join(lines)


def _where(exif: dict) -> str:
    if "latitude" not in exif:
        return ""
    return f"at GPS {exif['latitude']:.4f}, {exif['longitude']:.4f}"


def region_text(region: Region, called: str, place: str) -> str:
    """The region in words, with the picture it is in (`called`: "photo x.jpg") and where that is."""
    where = f"in {called}" + (f" ({place})" if place else "")
    if region.kind == TEXT:
        return f'Text "{region.text}" {where}.'
    if region.kind == FACE:
        return f"A face {where}."
    return f"{'An' if region.called[:1] in 'aeiou' else 'A'} {region.called} {where}."


def photo_row(path: Path, photo: LoadedPhoto, found: Analysis, caption: str, sha256: str) -> dict:
    """The photo's row of the DuckDB `photos` table (engine.ingest.media_tables)."""
    exif = photo.exif
    return {
        "file": str(path), "folder": str(path.parent), "name": path.name,
        "taken_at": exif.get("taken_at"), "camera_make": exif.get("camera_make"),
        "camera_model": exif.get("camera_model"), "latitude": exif.get("latitude"),
        "longitude": exif.get("longitude"), "width": photo.width, "height": photo.height,
        "format": photo.format, "objects": counted(found.regions) or None,
        "people": sum(1 for r in found.regions if r.label == "person"),
        "faces": sum(1 for r in found.regions if r.kind == FACE),
        "text": " | ".join(r.text for r in found.regions if r.kind == TEXT and r.text) or None,
        "labels": ", ".join(label for label, _ in found.labels[:3]) or None,
        "caption": caption or None, "sha256": sha256,
    }
