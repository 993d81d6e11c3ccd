"""A video file -> clips (start/end seconds) with keyframes, in ONE decoding pass.

Each decoded frame is downscaled (longer side 256, as PySceneDetect's own auto-downscale does)
and fed straight to a PySceneDetect detector; the detector's cuts drive `ClipPlanner`, and each
clip's keyframes are picked from the candidates kept while decoding as soon as the clip is final.
Nothing here runs detectors, OCR or encoders on the keyframes: that is the caller's job.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import cv2

from engine.errors import ParseError
from engine.ingest.videos.clips import ClipPlanner, Span
from engine.ingest.videos.decode import FrameReader, fourcc, open_capture, sniff
from engine.ingest.videos.keyframes import CandidateStore, Keyframe, shrink

if TYPE_CHECKING:
    from scenedetect.common import FrameTimecode
    from scenedetect.detector import SceneDetector

DETECT_SIDE = 256  # longer side of the frames the scene detector sees
DETECTORS = ("adaptive", "content")


@dataclass
class Clip:
    """A stretch of video `[start_s, end_s)`; frames are decoded-frame indexes (end exclusive)."""

    index: int
    start_s: float
    end_s: float
    start_frame: int
    end_frame: int
    keyframes: list[Keyframe] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


@dataclass
class Video:
    """What one pass over a video file found. `cuts_s` are the detector's raw scene starts (before
    clips were merged or split); `problems` says what could not be read or was guessed."""

    path: Path
    fps: float
    declared_frames: int
    decoded_frames: int
    width: int
    height: int
    duration_s: float
    codec: str
    container: str
    created_at: datetime | None
    detector: str
    cuts_s: list[float]
    clips: list[Clip]
    problems: list[str] = field(default_factory=list)

    def row(self) -> dict:
        """The fields of a `videos` table row that come from the file itself."""
        return {"duration_s": round(self.duration_s, 3), "fps": round(self.fps, 3), "width": self.width,
                "height": self.height, "codec": self.codec, "created_at": self.created_at, "clips": len(self.clips),
                "problems": "; ".join(self.problems) or None}


def make_detector(name: str) -> SceneDetector:
    """A fresh PySceneDetect detector with its default settings: "adaptive" or "content"."""
    from scenedetect.detectors import AdaptiveDetector, ContentDetector

    if name == "adaptive":
        return AdaptiveDetector()
    if name == "content":
        return ContentDetector()
    raise ValueError(f"unknown scene detector {name!r}; expected one of {', '.join(DETECTORS)}")


def read_video(path: Path | str, min_clip_s: float = 2.0, max_clip_s: float = 30.0, keyframes_per_clip: int = 1,
               detector: str = "adaptive", progress: Callable[[float], None] | None = None) -> Video:
    """Clips and keyframes of the video at `path` (one decoding pass; the file is only read).

    ParseError when it is not a readable video; a partly readable one gives clips for what could
    be decoded and says what was missing in `Video.problems`. `progress(fraction)` is called now
    and then while decoding."""
    from scenedetect.common import FrameTimecode, Timecode, framerate_to_fraction

    path = Path(path)
    scene_detector = make_detector(detector)
    planner = ClipPlanner(min_clip_s, max_clip_s)
    container = sniff(path)
    cap = open_capture(path, container)
    try:
        reader = FrameReader(cap)
        rate = framerate_to_fraction(reader.fps)
        time_base = Fraction(1, 1_000_000)
        store = CandidateStore(step_s=min(0.5, max(min_clip_s, 0.1) / 2))
        expected_s = container.duration_s or (reader.declared_frames / reader.declared_fps
                                              if reader.declared_frames and reader.declared_fps else 0.0)
        spans: list[tuple[Span, list[Keyframe]]] = []
        cuts_s: list[float] = []
        detect_size: tuple[int, int] | None = None

        def settle(done: list[Span]) -> None:
            for span in done:
                spans.append((span, store.pick(span[0], span[1], keyframes_per_clip)))
                store.drop_before(span[1])

        def on_cuts(cuts: list[FrameTimecode]) -> None:
            for cut in cuts:
                i = bisect.bisect_left(reader.times, cut.seconds - 1e-5)
                if i < len(reader.times):
                    t = reader.times[i]
                    cuts_s.append(t)
                    before = planner.open_start
                    settle(planner.add_cut(t))
                    if planner.open_start != before:
                        store.reset_step()

        last_tc = None
        for index, t, frame in reader:
            small = shrink(frame, DETECT_SIDE, cv2.INTER_LINEAR)
            if detect_size is None:
                detect_size = (small.shape[1], small.shape[0])
            elif (small.shape[1], small.shape[0]) != detect_size:  # resolution changed mid-stream
                small = cv2.resize(frame, detect_size, interpolation=cv2.INTER_LINEAR)
            last_tc = FrameTimecode(Timecode(pts=round(t * 1_000_000), time_base=time_base), fps=rate)
            on_cuts(scene_detector.process_frame(last_tc, small))
            if store.wants(t):
                store.offer(t, index, frame)
            settle(planner.advance(t))
            if progress and index % 50 == 0 and expected_s:
                progress(min(t / expected_s, 1.0))
        if last_tc is None:
            raise ParseError(f"opened as a {fourcc(cap) or 'video'} file but not one frame could be decoded: "
                             "the file is damaged or its codec is not supported")
        on_cuts(scene_detector.post_process(last_tc))
        duration = reader.finish()
        settle(planner.finish(duration))
        clips = _clips(spans, reader.times)
        if progress:
            progress(1.0)
        return Video(path=path, fps=reader.fps, declared_frames=reader.declared_frames,
                     decoded_frames=len(reader.times), width=reader.width, height=reader.height, duration_s=duration,
                     codec=fourcc(cap), container=container.kind, created_at=container.created_at, detector=detector,
                     cuts_s=cuts_s, clips=clips, problems=container.problems + reader.problems)
    finally:
        cap.release()


def _clips(spans: list[tuple[Span, list[Keyframe]]], times: Sequence[float]) -> list[Clip]:
    """Spans -> clips with frame ranges (the first frame at or after each start)."""
    clips: list[Clip] = []
    for (start, end), keyframes in spans:
        first = bisect.bisect_left(times, start - 1e-6)
        last = bisect.bisect_left(times, end - 1e-6)
        clips.append(Clip(index=len(clips), start_s=start, end_s=end, start_frame=first, end_frame=last,
                          keyframes=keyframes))
    return clips
