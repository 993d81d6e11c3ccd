"""Photos and videos: which files they are, and how each becomes items (one module per medium)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.ingest import extensions
from engine.ingest.documents import Prepared
from engine.ingest.scanner import Found
from engine.settings import Settings

if TYPE_CHECKING:
    from engine.ingest.photos.analyse import VisionModels

KINDS = frozenset({"photo", "video"})
VERSIONS = {"video": 3}  # a kind whose items read differently is read again; a video's own item says
# 2: the most of a thing one clip shows; 3: what its clips look like


def kind_of(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in extensions.PHOTO:
        return "photo"
    if suffix in extensions.VIDEO:
        return "video"
    return None


def prepare(found: Found, sha256: str, vision: VisionModels, settings: Settings, alt_texts: list[str]) -> Prepared:
    """Items, thumbnails and the media-table row of one photo or video (nothing written to the index)."""
    region_min = settings.region_min
    if found.kind == "photo":
        from engine.ingest.photos.items import prepare_photo

        return prepare_photo(found.path, sha256, vision, settings.thumbs_path, alt_texts, settings.region_overlap,
                             region_min)
    from engine.ingest.videos.items import prepare_video

    return prepare_video(found.path, sha256, vision, settings, region_min)
