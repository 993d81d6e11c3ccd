"""Clip boundaries from scene cuts: short scenes merge into a neighbour, long ones split evenly.

Pure logic on seconds, so it is tested on synthetic cut lists. `ClipPlanner` works while the video
is still being decoded: a clip is handed out as soon as no later cut can change it, which lets the
reader pick its keyframes and forget the frames before it (memory stays bounded on long videos).

Rules: a clip closes at the first cut where it is at least `min_clip_s` long (so a run of short
scenes becomes one clip, and a short first scene joins the next one); a short tail at the end of
the video joins the last clip; a clip longer than `max_clip_s` is split into equal parts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

Span = tuple[float, float]


def split_evenly(start_s: float, end_s: float, max_clip_s: float) -> list[Span]:
    """`[start_s, end_s)` cut into the fewest equal parts no longer than `max_clip_s`."""
    length = end_s - start_s
    if length <= 0:
        return []
    parts = max(1, math.ceil(length / max_clip_s - 1e-9))
    step = length / parts
    bounds = [start_s + i * step for i in range(parts)] + [end_s]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


class ClipPlanner:
    """Feeds on cuts (seconds, increasing) and hands out final clip spans as soon as they are known."""

    def __init__(self, min_clip_s: float = 2.0, max_clip_s: float = 30.0) -> None:
        if min_clip_s < 0 or max_clip_s <= 0 or min_clip_s > max_clip_s:
            raise ValueError(f"need 0 <= min_clip_s <= max_clip_s and max_clip_s > 0, got {min_clip_s}, {max_clip_s}")
        self.min_clip_s, self.max_clip_s = min_clip_s, max_clip_s
        self.open_start = 0.0  # where the clip being built starts
        self._pending: Span | None = None  # closed, but a short tail at the end could still join it
        self._done = False

    def _emit(self, span: Span) -> list[Span]:
        return split_evenly(span[0], span[1], self.max_clip_s)

    def add_cut(self, t_s: float) -> list[Span]:
        """A scene starts at `t_s`; returns the clips that became final (possibly none)."""
        if self._done or t_s - self.open_start < self.min_clip_s or t_s <= self.open_start:
            return []  # too short: this scene merges with the next one
        out = self._emit(self._pending) if self._pending else []
        self._pending = (self.open_start, t_s)
        self.open_start = t_s
        return out

    def advance(self, t_s: float) -> list[Span]:
        """Decoding reached `t_s`: once the open clip is long enough, the closed one before it is final."""
        if self._pending and t_s - self.open_start >= self.min_clip_s:
            out, self._pending = self._emit(self._pending), None
            return out
        return []

    def finish(self, duration_s: float) -> list[Span]:
        """The video ends at `duration_s`: the remaining clips (a short tail joins the clip before it)."""
        if self._done:
            return []
        self._done = True
        end = max(duration_s, self.open_start)
        if self._pending is None:
            return self._emit((self.open_start, end))
        if end - self.open_start < self.min_clip_s:
            return self._emit((self._pending[0], end))
        return self._emit(self._pending) + self._emit((self.open_start, end))


def plan_clips(cuts_s: Iterable[float], duration_s: float, min_clip_s: float = 2.0,
               max_clip_s: float = 30.0) -> list[Span]:
    """Clip spans `[start, end)` covering `[0, duration_s)` for scenes starting at `cuts_s`."""
    if duration_s <= 0:
        return []
    planner = ClipPlanner(min_clip_s, max_clip_s)
    spans: list[Span] = []
    for cut in sorted(c for c in cuts_s if 0 < c < duration_s):
        spans += planner.add_cut(cut)
    return spans + planner.finish(duration_s)
