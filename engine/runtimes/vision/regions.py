"""Regions inside a photo or a video keyframe: the element granularity (GranuRAG).

Every vision runtime returns `Region`s in pixel coordinates of the image it was given (after EXIF
orientation), so boxes can be drawn on the original photo and cited as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

OBJECT, FACE, TEXT = "object", "face", "text"
Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels


def as_box(values: Iterable[float]) -> Box:
    """The four corners' coordinates of a numpy row or a JSON list as a box of floats."""
    x1, y1, x2, y2 = (float(v) for v in values)
    return x1, y1, x2, y2


@dataclass
class Region:
    """One detected element: what it is, where it is, how sure the detector was."""

    kind: str  # object | face | text
    label: str  # a COCO class, "face", or "text"
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels
    score: float
    text: str = ""  # the OCR string of a text region
    extra: dict = field(default_factory=dict)  # landmarks, rotation, ...

    @property
    def area(self) -> float:
        x1, y1, x2, y2 = self.box
        return max(0.0, x2 - x1) * max(0.0, y2 - y1)

    @property
    def colour(self) -> str:
        """The object's colour in words ("blue"), "" when none was named (engine.runtimes.vision.colours)."""
        return str(self.extra.get("colour", ""))

    @property
    def called(self) -> str:
        """The object as people name it: "blue bus", "person"."""
        return f"{self.colour} {self.label}" if self.colour else self.label

    def as_dict(self) -> dict:
        out = {"kind": self.kind, "label": self.label, "box": [round(v, 1) for v in self.box],
               "score": round(float(self.score), 4), "text": self.text}
        return out | {"colour": self.colour} if self.colour else out

    @classmethod
    def from_dict(cls, data: dict) -> Region:
        """A region as `as_dict` wrote it (in an item's locator)."""
        extra = {"colour": data["colour"]} if data.get("colour") else {}
        return cls(data["kind"], data["label"], as_box(data["box"]), data["score"], data.get("text", ""), extra)


def intersection(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    inter = intersection(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def keep_smaller(regions: list[Region], threshold: float = 0.8, same_kind: bool = True,
                 same_label: bool = False) -> list[Region]:
    """GranuRAG's overlap rule: when at least `threshold` of the smaller box lies inside the larger,
    drop the larger one (the smaller is the finer element). Order of the survivors is kept.

    With `same_kind`, only boxes of one kind compete: a face inside a person is a second element,
    not a finer copy of the first. With `same_label`, only boxes of one label do: a cup on a dining
    table does not remove the table."""
    dropped: set[int] = set()
    for i, a in enumerate(regions):
        for j, b in enumerate(regions):
            if i >= j or i in dropped or j in dropped or (same_kind and a.kind != b.kind):
                continue
            if same_label and a.label != b.label:
                continue
            small, large = (i, j) if a.area <= b.area else (j, i)
            smaller = regions[small]
            if smaller.area > 0 and intersection(a.box, b.box) / smaller.area >= threshold:
                dropped.add(large)
    return [r for k, r in enumerate(regions) if k not in dropped]
