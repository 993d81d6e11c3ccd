"""Small pieces every vision runtime shares: the input convention and onnxruntime sessions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import cv2
import numpy as np

if TYPE_CHECKING:
    from onnxruntime import InferenceSession


class DetectorThresholds(TypedDict, total=False):
    """What a detector's factory may be told besides its model and threads."""

    score_threshold: float
    nms_iou: float


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A 3-channel BGR uint8 view of a cv2-style image (grey and BGRA are converted).

    Every runtime takes images the way `cv2.imread` gives them, so callers never convert twice."""
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        raise ValueError("expected a non-empty numpy image (BGR uint8, as cv2.imread returns)")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise ValueError(f"unsupported image shape {image.shape}")


def resize(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`image` resized to `size` (width, height): area averaging when shrinking, as aliasing from
    bilinear shrinking costs small detectors real scores (bus.jpg: bus .68 bilinear, .76 area)."""
    height, width = image.shape[:2]
    if (width, height) == tuple(size):
        return image
    shrink = size[0] < width and size[1] < height
    return cv2.resize(image, tuple(size), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def clamp_threads(threads: int) -> int:
    """At least 1, at most the machine's cores (onnxruntime ignores larger values in some wrappers)."""
    return max(1, min(int(threads), os.cpu_count() or 1))


def ort_session(model: Path | bytes, threads: int = 1) -> InferenceSession:
    """A CPU onnxruntime session using `threads` intra-op threads and no inter-op pool."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = clamp_threads(threads)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    source = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
