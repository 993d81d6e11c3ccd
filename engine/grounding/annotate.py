"""Pictures of grounding: numbered boxes drawn on a photo, crops of a region, small JPEG thumbnails.

The annotated photo is what a VLM sees beside the element list (GranuRAG's best setting) and what
the app shows next to the answer; numbers match the [n] citations of the rendered evidence.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from engine.errors import ParseError

Box = tuple[float, float, float, float]

# Distinct BGR colours, cycled by box number.
_COLOURS = [(48, 48, 230), (60, 170, 40), (220, 120, 30), (20, 180, 230), (180, 60, 180), (160, 160, 30)]


def load_image(path: Path | str) -> np.ndarray:
    """A photo as a BGR uint8 array, turned upright by its EXIF orientation (the frame regions use)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            upright = ImageOps.exif_transpose(image).convert("RGB")
    except (OSError, UnidentifiedImageError) as exc:
        raise ParseError(f"{path}: cannot read the image: {exc}") from exc
    return cv2.cvtColor(np.asarray(upright), cv2.COLOR_RGB2BGR)


def clip_box(box: Box, width: int, height: int) -> tuple[int, int, int, int]:
    """Integer pixel box inside the image, at least one pixel wide and high."""
    x1 = int(np.clip(np.floor(box[0]), 0, max(0, width - 1)))
    y1 = int(np.clip(np.floor(box[1]), 0, max(0, height - 1)))
    x2 = int(np.clip(np.ceil(box[2]), x1 + 1, width))
    y2 = int(np.clip(np.ceil(box[3]), y1 + 1, height))
    return x1, y1, x2, y2


def crop(image: np.ndarray, box: Box, margin: float = 0.08) -> np.ndarray:
    """The region plus `margin` of its own size on every side (context helps embedders), clipped to the image."""
    height, width = image.shape[:2]
    mx, my = (box[2] - box[0]) * margin, (box[3] - box[1]) * margin
    x1, y1, x2, y2 = clip_box((box[0] - mx, box[1] - my, box[2] + mx, box[3] + my), width, height)
    return image[y1:y2, x1:x2].copy()


def thumbnail_jpeg(image: np.ndarray, max_side: int = 160, quality: int = 80) -> bytes:
    """Small JPEG bytes of an image or crop (for the app and for caches); never upscales."""
    from PIL import Image

    height, width = image.shape[:2]
    scale = min(1.0, max_side / max(height, width, 1))
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    rgb = cv2.cvtColor(image, cv2.COLOR_GRAY2RGB) if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def annotate(image: np.ndarray, boxes: Sequence[tuple[Box, str]], start: int = 1,
             numbers: Sequence[int] | None = None) -> np.ndarray:
    """A copy of `image` with each box drawn and tagged "n label" (n counts from `start`, or is `numbers[i]`).

    Labels are shortened and written in ASCII (OpenCV's fonts have no other glyphs); the number is
    what matters, since it matches the [n] of the evidence lines."""
    out = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image.copy()
    height, width = out.shape[:2]
    thickness = max(1, round(max(height, width) / 400))
    font_scale = max(0.4, max(height, width) / 1200)
    for i, (box, label) in enumerate(boxes):
        n = numbers[i] if numbers is not None else start + i
        colour = _COLOURS[(n - 1) % len(_COLOURS)]
        x1, y1, x2, y2 = clip_box(box, width, height)
        cv2.rectangle(out, (x1, y1), (x2 - 1, y2 - 1), colour, thickness)
        tag = f"{n} {_ascii(label)}".strip()
        (tw, th), base = cv2.getTextSize(tag, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        ty = y1 - 2 if y1 - th - base - 2 >= 0 else min(height - base - 1, y1 + th + 2)
        tx = min(x1, max(0, width - tw - 2))
        cv2.rectangle(out, (tx, ty - th - 2), (tx + tw + 2, ty + base), colour, cv2.FILLED)
        cv2.putText(out, tag, (tx + 1, ty), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (255, 255, 255), thickness,
                    cv2.LINE_AA)
    return out


def _ascii(label: str, limit: int = 24) -> str:
    text = unicodedata.normalize("NFKD", label.replace("\u2014", "-")).encode("ascii", "ignore").decode()
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "~"
