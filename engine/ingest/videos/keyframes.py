"""Keyframes: a few still images per clip, chosen after the clip's bounds are known.

While decoding, a small JPEG of one frame every half second is kept as a candidate (never the
whole video); once a clip is final its keyframes are picked from the candidates inside it, nearest
to evenly spaced points (the middle for one keyframe), and older candidates are dropped. JPEG in
memory keeps a long video's keyframes to tens of MB; `Keyframe.image` decodes on access.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import cv2
import numpy as np

KEYFRAME_SIDE = 640  # longer side of a keyframe, in pixels (never upscaled)
JPEG_QUALITY = 92


@dataclass(frozen=True)
class Keyframe:
    """One still of a clip: when it is (`t_s`, decoded frame `frame`) and its JPEG bytes."""

    t_s: float
    frame: int
    width: int
    height: int
    jpeg: bytes

    @property
    def image(self) -> np.ndarray:
        """The keyframe as a BGR uint8 array (decoded on each access: keep it if you need it twice)."""
        image = cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)
        if image is None:  # cannot happen with bytes we encoded ourselves
            raise ValueError("keyframe JPEG cannot be decoded")
        return image


def shrink(frame: np.ndarray, longer_side: int, interpolation: int | None = None) -> np.ndarray:
    """`frame` scaled so its longer side is at most `longer_side` (aspect kept, never upscaled).

    By default area averaging for strong reductions (no aliasing), bilinear for mild ones (area
    averaging at a ratio like 0.83 is 5x slower and looks the same)."""
    h, w = frame.shape[:2]
    scale = longer_side / max(h, w)
    if scale >= 1:
        return frame
    if interpolation is None:
        interpolation = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    return cv2.resize(frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=interpolation)


def to_keyframe(t_s: float, index: int, frame: np.ndarray) -> Keyframe:
    """A keyframe from a full decoded frame (shrunk to `KEYFRAME_SIDE`, JPEG-encoded)."""
    small = shrink(frame, KEYFRAME_SIDE)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return Keyframe(t_s=t_s, frame=index, width=small.shape[1], height=small.shape[0], jpeg=buf.tobytes())


class CandidateStore:
    """Keyframe candidates sampled every `step_s` of video, bounded in number.

    When more than `cap` are held (one very long scene), every other one is dropped and the
    sampling step doubles until a new clip starts (`reset_step`)."""

    def __init__(self, step_s: float = 0.5, cap: int = 600) -> None:
        self.base_step_s = self.step_s = max(step_s, 1e-3)
        self.cap = max(cap, 4)
        self._times: list[float] = []
        self._frames: list[Keyframe] = []
        self._next_t = 0.0

    def __len__(self) -> int:
        return len(self._frames)

    def wants(self, t_s: float) -> bool:
        """Whether the frame at `t_s` should be offered (lets the caller skip the JPEG work)."""
        return t_s >= self._next_t or not self._frames

    def offer(self, t_s: float, index: int, frame: np.ndarray) -> None:
        if not self.wants(t_s):
            return
        self._times.append(t_s)
        self._frames.append(to_keyframe(t_s, index, frame))
        self._next_t = t_s + self.step_s
        if len(self._frames) > self.cap:
            self._times, self._frames = self._times[::2], self._frames[::2]
            self.step_s *= 2

    def reset_step(self) -> None:
        """A new clip started: sample at the base rate again."""
        if self.step_s != self.base_step_s:
            self.step_s = self.base_step_s
            if self._times:
                self._next_t = self._times[-1] + self.step_s

    def pick(self, start_s: float, end_s: float, count: int) -> list[Keyframe]:
        """Up to `count` distinct candidates inside `[start_s, end_s)`, nearest to evenly spaced points."""
        lo, hi = bisect.bisect_left(self._times, start_s), bisect.bisect_left(self._times, end_s)
        if lo >= hi or count <= 0:
            return []
        chosen: list[int] = []
        for k in range(count):
            target = start_s + (k + 0.5) * (end_s - start_s) / count
            i = bisect.bisect_left(self._times, target, lo, hi)
            best = min((j for j in (i - 1, i) if lo <= j < hi), key=lambda j: abs(self._times[j] - target))
            if best not in chosen:
                chosen.append(best)
        return [self._frames[i] for i in sorted(chosen)]

    def drop_before(self, t_s: float) -> None:
        """Forget candidates before `t_s` (their clips are final)."""
        cut = bisect.bisect_left(self._times, t_s)
        if cut:
            del self._times[:cut], self._frames[:cut]
