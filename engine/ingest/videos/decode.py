"""Opening a video safely and decoding it with trustworthy timestamps.

Files that are not readable videos are refused with a reason a person can act on (empty, text,
an MP4 cut short before its index). What the container declares (frame count, fps, size) is only
a hint: absurd values are ignored and said so, and times come from each decoded frame's own
timestamp, because frame number / fps is wrong for variable-frame-rate video and for AVIs with
empty "repeat the previous frame" chunks (tree.avi: 68 real frames over 29.6 s).
The file is only ever read.
"""

from __future__ import annotations

import math
import struct
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np

from engine.errors import ParseError
from engine.ingest.textio import looks_binary

MAX_SIDE = 16384  # pixels a side; beyond this the file is refused, not decoded
MAX_FRAMES = 100_000_000  # a declared frame count above this is ignored as implausible
MAX_FPS = 1000.0
FALLBACK_FPS = 25.0
MAX_GAP_S = 60.0  # a jump between two frames' timestamps beyond this is taken as a bad timestamp
_ISO_TYPES = {b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot", b"uuid", b"styp"}
_MP4_EPOCH = datetime(1904, 1, 1, tzinfo=UTC)


@dataclass
class Container:
    """What the file's own structure says, read without decoding (MP4/MOV and AVI headers)."""

    kind: str = ""  # "mp4" (ISO base media: mp4, mov, m4v, 3gp) | "avi" | ""
    duration_s: float = 0.0  # MP4 movie header duration; 0.0 when unknown
    created_at: datetime | None = None  # MP4 movie header creation time (UTC)
    problems: list[str] = field(default_factory=list)


@dataclass
class VideoInfo:
    """Declared metadata of a video (one decoded frame checks that it opens), for the `videos` table."""

    path: Path
    size_bytes: int
    container: str
    codec: str  # FourCC as OpenCV reports it, e.g. "h264", "FMP4", "cvid"
    fps: float  # 0.0 when not declared or implausible
    width: int
    height: int
    declared_frames: int  # 0 when not declared or implausible
    duration_s: float  # declared: the container's duration, else frames / fps; 0.0 when unknown
    created_at: datetime | None
    problems: list[str] = field(default_factory=list)


def _read_box_header(f: BinaryIO, offset: int, end: int) -> tuple[bytes, int, int] | None:
    """(type, header length, box size) of the ISO box at `offset`, or None when unreadable."""
    f.seek(offset)
    head = f.read(8)
    if len(head) < 8:
        return None
    size, kind = struct.unpack(">I4s", head)
    header = 8
    if size == 1:
        large = f.read(8)
        if len(large) < 8:
            return None
        size, header = struct.unpack(">Q", large)[0], 16
    elif size == 0:
        size = end - offset
    if size < header:
        return None
    return kind, header, size


def _movie_header(f: BinaryIO, start: int, end: int, info: Container) -> None:
    """Duration and creation time from the 'mvhd' box inside 'moov' (`start`..`end`)."""
    offset = start
    while offset + 8 <= end:
        box = _read_box_header(f, offset, end)
        if box is None:
            return
        kind, header, size = box
        if kind == b"mvhd":
            f.seek(offset + header)
            body = f.read(32)
            if len(body) < 24:
                return
            if body[0] == 1:
                created, _, timescale, duration = struct.unpack(">QQIQ", body[4:32]) if len(body) >= 32 else (0,) * 4
            else:
                created, _, timescale, duration = struct.unpack(">IIII", body[4:20])
            if timescale and 0 < duration / timescale < 10 * 24 * 3600:
                info.duration_s = duration / timescale
            when = _MP4_EPOCH + timedelta(seconds=created) if created else None
            if when and 1990 <= when.year <= datetime.now(UTC).year + 1:
                info.created_at = when
            return
        offset += size


def _mp4(f: BinaryIO, file_size: int) -> Container:
    info = Container(kind="mp4")
    offset, moov, cut = 0, False, None
    while offset + 8 <= file_size:
        box = _read_box_header(f, offset, file_size)
        if box is None:
            break
        kind, header, size = box
        if offset + size > file_size:
            cut = (kind.decode("latin-1"), size, file_size - offset)
        if kind == b"moov":
            moov = True
            _movie_header(f, offset + header, min(offset + size, file_size), info)
        if cut:
            break
        offset += size
    if not moov:
        if cut:
            raise ParseError(f"truncated MP4: its '{cut[0]}' box needs {cut[1]:,} bytes but the file ends "
                             f"{cut[2]:,} bytes into it, and the index of its frames (the 'moov' box) is missing; "
                             "the file was cut short (an unfinished copy or download?)")
        raise ParseError("MP4/MOV without an index of its frames (no 'moov' box): the file is damaged")
    if cut:
        info.problems.append(f"the file is truncated (its '{cut[0]}' box ends {cut[1] - cut[2]:,} bytes past the "
                             "end of the file): frames after that point are missing")
    return info


def sniff(path: Path) -> Container:
    """Refuse files that cannot be a readable video, with the reason; read MP4/AVI headers."""
    try:
        file_size = path.stat().st_size
        if file_size == 0:
            raise ParseError("empty file (0 bytes): not a video")
        with path.open("rb") as f:
            head = f.read(65536)
            if not looks_binary(head):
                sample = head[:40].decode("utf-8", errors="replace").split("\n")[0]
                raise ParseError(f"a text file, not a video (it starts with {sample!r})")
            if head[4:8] in _ISO_TYPES:
                return _mp4(f, file_size)
            if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
                info = Container(kind="avi")
                declared = struct.unpack("<I", head[4:8])[0] + 8
                if declared > file_size:
                    info.problems.append(f"the file is truncated ({file_size:,} of the {declared:,} bytes its "
                                         "header declares): frames after that point are missing")
                return info
    except OSError as e:
        raise ParseError(f"cannot read the file: {e.strerror or e}") from e
    return Container()


def open_capture(path: Path, container: Container) -> cv2.VideoCapture:
    """An opened `cv2.VideoCapture` (FFmpeg backend, rotation applied), or ParseError saying why not."""
    cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG)
    if not cap.isOpened():
        cap.release()
        why = "; ".join(container.problems) or "not a video, or a format/codec this build of OpenCV/FFmpeg cannot read"
        raise ParseError(f"cannot open as a video: {why}")
    cap.set(cv2.CAP_PROP_ORIENTATION_AUTO, 1.0)  # phone videos: frames come out upright
    return cap


def fourcc(cap: cv2.VideoCapture) -> str:
    """The codec's FourCC ("h264", "FMP4", ...), "" when unknown."""
    value = cap.get(cv2.CAP_PROP_FOURCC)
    if not math.isfinite(value) or value <= 0:
        return ""
    text = int(value).to_bytes(4, "little").decode("latin-1")
    return text.strip("\x00 ") if text.isprintable() else ""


def declared_fps(cap: cv2.VideoCapture) -> float:
    """The declared frame rate, 0.0 when absent or implausible."""
    fps = cap.get(cv2.CAP_PROP_FPS)
    return fps if math.isfinite(fps) and 0.1 <= fps <= MAX_FPS else 0.0


def declared_frames(cap: cv2.VideoCapture) -> int:
    """The declared frame count, 0 when absent or implausible."""
    n = cap.get(cv2.CAP_PROP_FRAME_COUNT)
    return int(n) if math.isfinite(n) and 0 < n <= MAX_FRAMES else 0


def _check_size(width: int, height: int) -> None:
    if width > MAX_SIDE or height > MAX_SIDE:
        raise ParseError(f"frame size {width}x{height} is beyond what Trove decodes ({MAX_SIDE} pixels a side)")


def _bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


class FrameReader:
    """Decodes every frame once, in order, with its time in seconds from the first frame.

    `times[i]` is the time of decoded frame i: the frame's own timestamp when it is sane (it
    increases, jumps less than a minute), else the previous one plus one frame at `fps`."""

    def __init__(self, cap: cv2.VideoCapture) -> None:
        self.cap = cap
        self.declared_fps = declared_fps(cap)
        self.declared_frames = declared_frames(cap)
        self.fps = self.declared_fps or FALLBACK_FPS  # refined in `finish` when none was declared
        self.times: array = array("d")
        self.width = self.height = 0
        self.estimated = 0  # frames whose timestamp was estimated
        self.problems: list[str] = []
        w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        _check_size(w, h)

    def __iter__(self) -> Iterator[tuple[int, float, np.ndarray]]:
        first_ms: float | None = None
        while True:
            try:
                ok, frame = self.cap.read()
            except cv2.error as e:
                self.problems.append(f"decoding stopped after {len(self.times)} frames: {str(e).strip()[:200]}")
                return
            if not ok or frame is None or frame.size == 0:
                return
            if not self.times:
                self.height, self.width = frame.shape[:2]
                _check_size(self.width, self.height)
            ms = self.cap.get(cv2.CAP_PROP_POS_MSEC)
            if first_ms is None:
                first_ms = ms if math.isfinite(ms) and ms >= 0 else 0.0
            t = round((ms - first_ms) / 1000.0, 6) if math.isfinite(ms) else -1.0
            if self.times:
                prev = self.times[-1]
                if not (prev < t <= prev + MAX_GAP_S):
                    t = prev + 1.0 / self.fps
                    self.estimated += 1
            else:
                t = 0.0
            self.times.append(t)
            yield len(self.times) - 1, t, _bgr(frame)

    def frame_duration(self) -> float:
        return 1.0 / self.fps

    def finish(self) -> float:
        """After the last frame: fix the frame rate if none was declared, note problems; the duration."""
        n = len(self.times)
        if not self.declared_fps and n > 1:
            if self.estimated < 0.1 * n and self.times[-1] > 0:
                self.fps = (n - 1) / self.times[-1]
                self.problems.append(f"no plausible frame rate declared; measured {self.fps:.3f} fps "
                                     "from the frames' timestamps")
            else:
                self.problems.append(f"no plausible frame rate declared and frames carry no timestamps: "
                                     f"assumed {FALLBACK_FPS:g} fps, so times are estimates")
        elif self.estimated > 0.1 * n:
            self.problems.append(f"{self.estimated} of {n} frames had missing or out-of-order timestamps; "
                                 f"their times are estimated at {self.fps:.3f} fps")
        duration = round(self.times[-1] + self.frame_duration(), 6) if n else 0.0
        raw = self.cap.get(cv2.CAP_PROP_FRAME_COUNT)
        if not self.declared_frames:
            self.problems.append(f"frame count not declared or implausible ({raw:g}); counted {n} decoded frames")
        elif n < self.declared_frames - max(2, 0.01 * self.declared_frames):
            expected = self.declared_frames / self.declared_fps if self.declared_fps else 0.0
            if expected and duration >= 0.95 * expected:
                where = f"the decoded ones span the whole {duration:.1f} s, so the rest are gaps or empty frames"
            else:
                where = f"the rest, after {duration:.1f} s" + (f" of {expected:.1f} s" if expected else "")
                where += ", is unreadable"
            self.problems.append(f"decoded {n} of {self.declared_frames} declared frames; {where}")
        return duration


def video_info(path: Path | str) -> VideoInfo:
    """Declared metadata of a video without decoding it all; ParseError when it is not a readable video."""
    path = Path(path)
    container = sniff(path)
    cap = open_capture(path, container)
    try:
        reader = FrameReader(cap)
        first = next(iter(reader), None)
        if first is None:
            raise ParseError(f"opened as a {fourcc(cap) or 'video'} file but not one frame could be decoded: "
                             "the file is damaged or its codec is not supported")
        fps, frames = reader.declared_fps, reader.declared_frames
        duration = container.duration_s or (frames / fps if fps and frames else 0.0)
        problems = list(container.problems)
        if not fps:
            problems.append("no plausible frame rate declared")
        if not frames:
            problems.append("frame count not declared or implausible")
        return VideoInfo(path=path, size_bytes=path.stat().st_size, container=container.kind, codec=fourcc(cap),
                         fps=fps, width=reader.width, height=reader.height, declared_frames=frames,
                         duration_s=duration, created_at=container.created_at, problems=problems)
    finally:
        cap.release()
