"""Words people already wrote about a photo: same-stem sidecar files (`IMG_1.txt`, `IMG_1.json`,
`IMG_1.jpg.json` as Google Takeout writes them, `IMG_1.xmp`) and the alt text of markdown notes that
embed the photo."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from engine.ingest import extensions

SIDECAR_EXTENSIONS = (".txt", ".json", ".xmp")
MAX_CAPTION_CHARS = 2000
_JSON_KEYS = ("title", "caption", "description", "alt", "alt_text", "comment", "tags", "keywords", "people", "name")
_XMP_FIELDS = re.compile(r"<(dc:title|dc:description|dc:subject|photoshop:Headline|Iptc4xmpCore:Location)\b[^>]*>"
                         r"(.*?)</\1>", re.DOTALL)
_XML_TEXT = re.compile(r"<[^>]+>")
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)>\s]+)>?(?:\s+\"([^\"]*)\")?\s*\)")
_WIKI_IMAGE = re.compile(r"!\[\[([^\]|#]+)(?:\|([^\]]*))?\]\]")


def photo_of(path: Path) -> Path | None:
    """The photo a sidecar file belongs to, when one sits beside it; else None (an ordinary file)."""
    if path.suffix.lower() not in SIDECAR_EXTENSIONS:
        return None
    stem = path.with_suffix("")
    if stem.suffix.lower() in extensions.PHOTO and stem.is_file():  # IMG_1.jpg.json
        return stem
    for ext in extensions.PHOTO:
        for candidate in (stem.with_suffix(ext), stem.with_suffix(ext.upper())):
            if candidate.is_file():
                return candidate
    return None


def media_of(path: Path) -> Path | None:
    """The photo or video a sidecar belongs to: a caption beside a photo, subtitles beside a video."""
    if path.suffix.lower() not in extensions.SUBTITLE:
        return photo_of(path)
    from engine.ingest.videos.subtitles import find_sidecars  # the video package loads its decoder

    stem = path.with_suffix("")
    for base in (stem, stem.with_suffix("")):  # trip.srt, trip.en.srt
        for ext in extensions.VIDEO:
            for video in (base.with_suffix(ext), Path(f"{base}{ext}")):
                if video.is_file() and any(p == path for p, _ in find_sidecars(video)):
                    return video
    return None


def sidecars_of(photo: Path) -> list[Path]:
    """The sidecar files beside `photo`, in a stable order."""
    names = [photo.with_suffix(ext) for ext in SIDECAR_EXTENSIONS]
    names += [Path(f"{photo}{ext}") for ext in (".json", ".xmp")]
    return [p for p in dict.fromkeys(names) if p.is_file()]


def caption(photo: Path) -> str:
    """The text of the photo's sidecars, one line per sidecar; unreadable sidecars are ignored."""
    lines = []
    for sidecar in sidecars_of(photo):
        try:
            raw = sidecar.read_bytes()[:200_000]
        except OSError:
            continue
        text = raw.decode("utf-8", "replace")
        if sidecar.suffix.lower() == ".json":
            text = _json_caption(text)
        elif sidecar.suffix.lower() == ".xmp":
            text = _xmp_caption(text)
        text = " ".join(text.split())[:MAX_CAPTION_CHARS]
        if text:
            lines.append(text)
    return "\n".join(dict.fromkeys(lines))


def _json_caption(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    words: list[str] = []

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k.lower())
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in _JSON_KEYS and value.strip():
            words.append(value.strip())

    walk(data)
    return ". ".join(dict.fromkeys(words))


def _xmp_caption(text: str) -> str:
    found = [" ".join(_XML_TEXT.sub(" ", inner).split()) for _, inner in _XMP_FIELDS.findall(text)]
    return ". ".join(f for f in dict.fromkeys(found) if f)


def image_refs(markdown: str, note: Path) -> list[tuple[Path, str]]:
    """(photo path, alt text) for each photo a markdown note embeds, `![alt](path)` or `![[photo|alt]]`;
    relative paths are resolved against the note's folder. Remote images are left out."""
    out: list[tuple[Path, str]] = []
    for alt, target, title in _MD_IMAGE.findall(markdown):
        if "://" in target or target.startswith("data:"):
            continue
        out.append((_resolve(note, unquote(target)), " ".join(f"{alt} {title}".split())))
    for target, alt in _WIKI_IMAGE.findall(markdown):
        out.append((_resolve(note, target.strip()), " ".join(alt.split())))
    return [(p, a) for p, a in out if p.suffix.lower() in extensions.PHOTO and a]


def _resolve(note: Path, target: str) -> Path:
    path = Path(target)
    if not path.is_absolute():
        path = note.parent / path
    try:
        return path.resolve()
    except OSError:
        return path
