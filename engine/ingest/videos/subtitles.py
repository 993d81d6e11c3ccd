"""Sidecar subtitles (`trip.srt`, `trip.en.vtt` beside `trip.mp4`) -> timed cues for clip transcripts.

Real files are sloppy: BOMs, CRLF, a comma or a dot before the milliseconds, no hours, VTT cue
settings and NOTE/STYLE blocks, <i>/<v Speaker>/{\\an8} tags, numbering gaps, missing blank lines,
legacy encodings. A cue that cannot be understood is skipped and counted, never fatal.
(Subtitle tracks inside the video container are not read: OpenCV does not expose them.)
"""

from __future__ import annotations

import codecs
import html
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ParseError
from engine.ingest import extensions
from engine.ingest.textio import looks_binary

MAX_BYTES = 20_000_000
_VIDEO_SUFFIXES = {".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm", ".mpg", ".mpeg", ".wmv", ".3gp", ".ts",
                   ".mts", ".m2ts", ".flv", ".ogv"}
_TS = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?"
_TIMING = re.compile(rf"^\s*{_TS}\s*-->\s*{_TS}(?:\s.*)?$")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>")
_TAG = re.compile(r"</?(?:[a-zA-Z][^<>]*|\d[\d:.]*)>")
_ASS = re.compile(r"\{\\[^}]*\}")
_BOMS = [(codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")]


@dataclass(frozen=True)
class Cue:
    """Text shown from `start_s` to `end_s` (seconds from the start of the video)."""

    start_s: float
    end_s: float
    text: str


@dataclass
class Subtitles:
    """One sidecar file's cues. `language` is what its name carries between the video's stem and the
    extension ("en" for trip.en.vtt, "" for trip.srt); `skipped` counts malformed cues."""

    path: Path
    language: str = ""
    encoding: str = ""
    cues: list[Cue] = field(default_factory=list)
    skipped: int = 0
    problem: str = ""  # why the file could not be read at all, "" when it could


def _seconds(h: str | None, m: str, s: str, frac: str | None) -> float | None:
    minutes, secs = int(m), int(s)
    if minutes >= 60 or secs >= 60:
        return None
    return int(h or 0) * 3600 + minutes * 60 + secs + (int(frac) / 10 ** len(frac) if frac else 0.0)


def _clean(lines: Iterable[str]) -> str:
    text = " ".join(line.strip() for line in lines if line.strip())
    text = _ASS.sub("", _TAG.sub("", _VOICE.sub(r"\1: ", text)))
    return " ".join(html.unescape(text).split())


def parse(text: str) -> tuple[list[Cue], int]:
    """Cues of SRT or WebVTT text (told apart by the WEBVTT header) and how many were malformed."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    vtt = text.lstrip().startswith("WEBVTT")
    cues: list[Cue] = []
    skipped = 0
    for number, block in enumerate(re.split(r"\n[ \t]*\n", text)):
        lines = [line.rstrip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        head = lines[0].strip()
        if vtt and (number == 0 and head.startswith("WEBVTT") or head.split(" ")[0] in ("NOTE", "STYLE", "REGION")):
            continue
        timings = [i for i, line in enumerate(lines) if "-->" in line]
        if not timings:
            skipped += 1  # text with no timing (or a stray number)
            continue
        for k, i in enumerate(timings):
            stop = timings[k + 1] if k + 1 < len(timings) else len(lines)
            body = lines[i + 1:stop]
            if k + 1 < len(timings) and body and body[-1].strip().isdigit():
                body = body[:-1]  # the next cue's number, its blank line missing
            match = _TIMING.match(lines[i])
            start = _seconds(*match.groups()[:4]) if match else None
            end = _seconds(*match.groups()[4:8]) if match else None
            if start is None or end is None or end < start:
                skipped += 1
                continue
            cue_text = _clean(body)
            if cue_text:
                cues.append(Cue(start, end, cue_text))
    cues.sort(key=lambda c: (c.start_s, c.end_s))
    return cues, skipped


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding): a BOM's encoding, else UTF-8, else cp1252, else latin-1."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace"), encoding
    if looks_binary(data):
        raise ParseError("binary content, not a subtitle file")
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            pass
    return data.decode("latin-1"), "latin-1"


def read_subtitles(path: Path | str, language: str = "") -> Subtitles:
    """The cues of one .srt/.vtt file; ParseError when it is binary or too big to be subtitles."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ParseError(f"{path.stat().st_size:,} bytes is too big for a subtitle file")
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(f"cannot read the file: {e.strerror or e}") from e
    text, encoding = decode(data)
    cues, skipped = parse(text)
    return Subtitles(path=path, language=language, encoding=encoding, cues=cues, skipped=skipped)


def find_sidecars(video: Path | str) -> list[tuple[Path, str]]:
    """(path, language) of the .srt/.vtt files beside `video` with its stem, name case ignored.

    `trip.srt`, `trip.en.vtt`, `trip.mp4.srt` belong to trip.mp4; `trip.final.srt` does not when a
    trip.final.* video is there too."""
    video = Path(video)
    try:
        names = os.listdir(video.parent)
    except OSError:
        return []
    stem, suffix = video.stem.lower(), video.suffix.lower().lstrip(".")
    others = {Path(n).stem.lower() for n in names
              if Path(n).suffix.lower() in _VIDEO_SUFFIXES and n != video.name and len(Path(n).stem) > len(stem)}
    found = []
    for name in sorted(names):
        base, ext = os.path.splitext(name)
        base_l = base.lower()
        if ext.lower() not in extensions.SUBTITLE or not (base_l == stem or base_l.startswith(stem + ".")):
            continue
        if any(base_l == o or base_l.startswith(o + ".") for o in others):
            continue  # a sibling video with a longer name owns it
        middle = base[len(stem) + 1:]
        if suffix and middle.lower().split(".")[0] == suffix:
            middle = middle[len(suffix) + 1:]
        found.append((video.parent / name, middle))
    return found


def read_sidecars(video: Path | str) -> list[Subtitles]:
    """Every sidecar subtitle file of `video`, read; one that cannot be read carries its `problem`."""
    out = []
    for path, language in find_sidecars(video):
        try:
            out.append(read_subtitles(path, language))
        except ParseError as e:
            out.append(Subtitles(path=path, language=language, problem=str(e)))
    return out


def cues_between(cues: Iterable[Cue], start_s: float, end_s: float) -> list[Cue]:
    """The cues shown at some moment of `[start_s, end_s)` (a cue across a boundary is in both clips)."""
    return [c for c in cues if c.start_s < end_s and max(c.end_s, c.start_s + 1e-9) > start_s]


def transcript(cues: Iterable[Cue]) -> str:
    """The cues' text as one string, a line repeated by roll-up captions said once."""
    out: list[str] = []
    for cue in cues:
        if not out or out[-1] != cue.text:
            out.append(cue.text)
    return " ".join(out)
