"""The COCO-80 label set every object detector speaks, and the detectors' shared tail.

Detectors trained with Darknet name a few classes the VOC way ("motorbike", "tvmonitor"); their
labels are normalised here so an index, a query and a benchmark see one spelling per class.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.runtimes.vision.regions import OBJECT, Region, as_box

COCO80: tuple[str, ...] = (
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
    "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
    "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
    "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
    "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
    "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
    "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone",
    "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear",
    "hair drier", "toothbrush",
)

# Darknet / VOC spellings -> COCO spellings
_SPELLINGS = {
    "motorbike": "motorcycle", "aeroplane": "airplane", "sofa": "couch", "pottedplant": "potted plant",
    "diningtable": "dining table", "tvmonitor": "tv",
}


def normalise_label(name: str) -> str:
    """The COCO spelling of a class name (unknown names are returned stripped, unchanged)."""
    name = name.strip()
    return _SPELLINGS.get(name.lower(), name)


def plural(label: str, n: int) -> str:
    """The class's name for `n` of it: "1 bus", "2 buses", "3 people"."""
    if label == "person":
        return "person" if n == 1 else "people"
    if n == 1:
        return label
    return label + ("es" if label.endswith(("s", "sh", "ch", "x")) else "s")


def read_names(path: Path) -> tuple[str, ...]:
    """Class names from a Darknet `.names` file, one a line, in COCO spelling."""
    return tuple(normalise_label(line) for line in path.read_text().splitlines() if line.strip())


def nms_regions(boxes: np.ndarray, scores: np.ndarray, class_ids: np.ndarray, labels: tuple[str, ...],
                iou: float, size: tuple[int, int], model: str) -> list[Region]:
    """Per-class non-maximum suppression of (n, 4) x1,y1,x2,y2 pixel boxes, best score first.

    Boxes are clipped to the image (`size` = width, height) so they can be drawn and cropped as given.
    """
    if len(boxes) == 0:
        return []
    width, height = size
    boxes = boxes.astype(np.float32).copy()
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
    keep: list[int] = []
    for cls in np.unique(class_ids):
        idx = np.flatnonzero(class_ids == cls)
        keep.extend(idx[_nms(boxes[idx], scores[idx], iou)])
    keep.sort(key=lambda i: -float(scores[i]))
    return [Region(OBJECT, labels[int(class_ids[i])], as_box(boxes[i]), float(scores[i]),
                   extra={"model": model}) for i in keep]


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy NMS over one class; indices into `boxes`."""
    order = np.argsort(-scores, kind="stable")
    areas = (boxes[:, 2] - boxes[:, 0]).clip(0) * (boxes[:, 3] - boxes[:, 1]).clip(0)
    keep = []
    while order.size:
        i = order[0]
        keep.append(int(i))
        rest = order[1:]
        w = (np.minimum(boxes[i, 2], boxes[rest, 2]) - np.maximum(boxes[i, 0], boxes[rest, 0])).clip(0)
        h = (np.minimum(boxes[i, 3], boxes[rest, 3]) - np.maximum(boxes[i, 1], boxes[rest, 1])).clip(0)
        inter = w * h
        overlap = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9)
        order = rest[overlap <= iou]
    return keep
