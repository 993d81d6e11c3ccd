"""The colour of an object in a photo, in the words people use for it ("my red car", "the blue bus"),
from the pixels in the middle of its box. People are never given one: it would name a skin."""

from __future__ import annotations

from collections import Counter

import numpy as np

from engine.runtimes.vision.regions import Box

CORE = 0.6  # the middle share of the box's width and height that is read (the edges are background)
SIDE = 48  # the core is read at most this big
SHARE = 0.25  # a colour names the object when at least this share of its core has it,
LEAD = 1.5  # and this many times the share of the next colour (a clear plurality)
_HUES = ((8, "red"), (20, "orange"), (33, "yellow"), (85, "green"), (130, "blue"), (150, "purple"),
         (170, "pink"), (180, "red"))  # OpenCV hue (0-179) upper bounds
UNCOLOURED = frozenset({"person"})


def colour_name(image: np.ndarray, box: Box) -> str | None:
    """The colour most of the middle of `box` has in the BGR `image`, or None when no colour clearly
    leads (a patterned or many-coloured thing)."""
    import cv2

    x1, y1, x2, y2 = box
    dx, dy = (x2 - x1) * (1 - CORE) / 2, (y2 - y1) * (1 - CORE) / 2
    core = image[max(0, int(y1 + dy)):int(y2 - dy), max(0, int(x1 + dx)):int(x2 - dx)]
    if core.size == 0:
        return None
    scale = min(1.0, SIDE / max(core.shape[:2]))
    if scale < 1:
        core = cv2.resize(core, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(core, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    names = Counter(_name(int(h), int(s), int(v)) for h, s, v in hsv)
    (name, count), *rest = names.most_common(2)
    runner_up = rest[0][1] if rest else 0
    return name if count >= SHARE * len(hsv) and count >= LEAD * runner_up else None


def _name(hue: int, saturation: int, value: int) -> str:
    if value < 50:
        return "black"
    if saturation < 50:
        return "white" if value > 190 else "grey"
    name = next(n for bound, n in _HUES if hue < bound)
    if name in ("orange", "red") and value < 130:
        return "brown"
    return name
