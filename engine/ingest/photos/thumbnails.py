"""Small JPEGs of photos, regions and video keyframes under `HOME/thumbs`, named by the file's
content hash so an unchanged photo keeps its thumbnails and a changed one gets new ones."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

PHOTO_SIDE = 384
CROP_SIDE = 160


def save(image: np.ndarray, dest: Path, side: int = PHOTO_SIDE, box: tuple[float, ...] | None = None,
         margin: float = 0.08) -> Path:
    """Write `image` (or the `box` of it, with a margin) scaled to fit `side`, atomically; returns `dest`."""
    import cv2

    if box is not None:
        h, w = image.shape[:2]
        x1, y1, x2, y2 = box
        mx, my = (x2 - x1) * margin, (y2 - y1) * margin
        image = image[max(0, int(y1 - my)):min(h, int(y2 + my) + 1), max(0, int(x1 - mx)):min(w, int(x2 + mx) + 1)]
        if image.size == 0:
            raise ValueError(f"empty box {box}")
    scale = min(1.0, side / max(image.shape[:2]))
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    dest.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 82])
    if not ok:
        raise ValueError("JPEG encoding failed")
    tmp = dest.with_suffix(".part")
    tmp.write_bytes(data.tobytes())
    os.replace(tmp, dest)
    return dest


def folder(thumbs: Path, sha256: str) -> Path:
    return thumbs / sha256[:2] / sha256


def drop_unused(thumbs: Path, keep: set[str]) -> int:
    """Delete the thumbnail folders of content no indexed file has any more; returns how many."""
    if not thumbs.is_dir():
        return 0
    removed = 0
    for shard in thumbs.iterdir():
        if not shard.is_dir():
            continue
        for entry in shard.iterdir():
            if entry.is_dir() and entry.name not in keep:
                for f in entry.iterdir():
                    f.unlink(missing_ok=True)
                entry.rmdir()
                removed += 1
    return removed
