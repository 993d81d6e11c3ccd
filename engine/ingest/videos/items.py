"""One video -> the items of the `video/clip` corpus (a moment: start and end seconds) and the
`video/video` corpus (the whole file), keyframe thumbnails, and its row of the `videos` table.

A clip's text is what was said in it (sidecar subtitles) and what its keyframes show (objects,
faces, text read, labels), with the video's name and folder, so "when do we ride up to the castle?"
finds the moment."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.corpora import CLIP, VIDEO
from engine.ingest.documents import Prepared
from engine.ingest.photos import thumbnails
from engine.ingest.photos.analyse import VisionModels, analyse
from engine.ingest.photos.items import counted, number_of, words_of
from engine.ingest.videos.reader import Clip, Video, read_video
from engine.ingest.videos.subtitles import Cue, cues_between, read_sidecars, transcript
from engine.locators import MomentLocator
from engine.result import clock
from engine.runtimes.vision.regions import FACE, TEXT, Region
from local_stores.corpus_store import Item

if TYPE_CHECKING:
    from engine.settings import Settings



def prepare_video(path: Path, sha256: str, vision: VisionModels, settings: Settings, region_min: dict[str, float]
                  ) -> Prepared:
    """Read, cut, analyse and describe one video (nothing written to the index yet)."""
    t0 = time.perf_counter()
    video = read_video(path, settings.min_clip_s, settings.max_clip_s)
    t1 = time.perf_counter()
    cues, sub_problems = _cues(path)
    folder = thumbnails.folder(settings.thumbs_path, sha256)
    seen_vision = VisionModels(vision.detector, vision.faces, vision.ocr, vision.classifier, missing=vision.missing)
    base = MomentLocator(width=video.width, height=video.height, duration_s=round(video.duration_s, 3))
    items: list[Item] = []
    shown = Shown()
    vision_s = 0.0
    for clip in video.clips:
        regions: list[Region] = []
        labels: list[str] = []
        thumb = None
        for k, keyframe in enumerate(clip.keyframes):
            image = keyframe.image
            t2 = time.perf_counter()
            found = analyse(image, seen_vision, settings.region_overlap, region_min=region_min)
            vision_s += time.perf_counter() - t2
            regions += found.regions
            labels += [label for label, _ in found.labels[:2]]
            if k == 0:
                thumb = thumbnails.save(image, folder / f"clip-{clip.index}.jpg")
        said = transcript(cues_between(cues, clip.start_s, clip.end_s))
        shown.add(regions, labels)
        locator: MomentLocator = {**base, "start_s": round(clip.start_s, 3), "end_s": round(clip.end_s, 3),
                                  "clip": clip.index,
                                  "keyframe_s": round(clip.keyframes[0].t_s, 3) if clip.keyframes else None,
                                  "thumbnail": str(thumb) if thumb else None,
                                  "regions": [dict(r.as_dict(), n=i) for i, r in enumerate(regions)]}
        items.append(Item(CLIP, str(path), clip_text(path, video, clip, said, regions, labels), locator,
                          title=path.name, heading=words_of(path.parent.name), ord=clip.index))
    whole = video_text(path, video, transcript(cues), shown)
    first_thumb = items[0].locator.get("thumbnail") if items else None
    items.append(Item(VIDEO, str(path), whole, MomentLocator(**base, start_s=0.0, end_s=round(video.duration_s, 3),
                                                             clips=len(video.clips), thumbnail=first_thumb),
                      title=path.name, heading=words_of(path.parent.name)))
    prepared = Prepared(items, [f"{it.heading}: {it.text}" if it.heading else it.text for it in items], whole)
    problems = video.problems + sub_problems
    row = video.row()
    row["created_at"] = video.created_at.isoformat() if video.created_at else None
    prepared.media = ("video", dict(row, file=str(path), folder=str(path.parent), name=path.name,
                                    objects=", ".join(f"{n} {label}" for label, n in shown.things.most_common())
                                    or None,
                                    subtitles=bool(cues), problems="; ".join(problems) or None))
    prepared.warnings = problems
    prepared.timings = {"video decode": t1 - t0, "vision": vision_s,
                        "thumbnails": max(0.0, time.perf_counter() - t1 - vision_s)}
    return prepared


def _cues(path: Path) -> tuple[list[Cue], list[str]]:
    """The cues of the first readable subtitle file beside the video (the one without a language tag
    first), and what was wrong with the others."""
    tracks = sorted(read_sidecars(path), key=lambda s: (bool(s.problem), s.language != "", s.language))
    problems = [f"{s.path.name}: {s.problem}" for s in tracks if s.problem]
    problems += [f"{s.path.name}: {s.skipped} malformed cue(s) skipped" for s in tracks if s.skipped]
    usable = [s for s in tracks if not s.problem and s.cues]
    return (usable[0].cues if usable else []), problems


def clip_text(path: Path, video: Video, clip: Clip, said: str, regions: list[Region], labels: list[str]) -> str:
    lines = [f"Clip {clip.index + 1} of {len(video.clips)} of the video {path.name} "
             f"({words_of(path.stem)}), from {clock(clip.start_s)} to {clock(clip.end_s)}."]
    if said:
        lines.append(f"Said: {said}")
    objects = counted(regions)
    if objects:
        lines.append(f"Shows {objects}.")
    texts = list(dict.fromkeys(r.text for r in regions if r.kind == TEXT and r.text))
    if texts:
        lines.append("Text on screen: " + " | ".join(texts) + ".")
    if labels:
        lines.append("Looks like: " + ", ".join(dict.fromkeys(labels)) + ".")
    return "\n".join(lines)


@dataclass
class Shown:
    """What a video's clips show, added up for the video's own item."""

    things: Counter = field(default_factory=Counter)  # each thing as often as the clips show it
    most: Counter = field(default_factory=Counter)  # the most of each thing one clip shows
    looks: Counter = field(default_factory=Counter)  # the clips each label of the classifier was given to

    def add(self, regions: list[Region], labels: list[str]) -> None:
        """One clip's detected things and labels."""
        seen = Counter(r.label for r in regions if r.kind not in (FACE, TEXT))
        self.things.update(seen)
        self.most |= seen
        self.looks.update(dict.fromkeys(labels, 1))


LOOKS_SHOWN = 3  # labels a video's own item gives, those given to most clips first


def video_text(path: Path, video: Video, said: str, shown: Shown) -> str:
    """The whole video: its name, length and clips, the things its clips show (the most seen first),
    each with the most of it one clip shows ("8 people": a crowd, not one walker in eight clips), and
    what its clips look like (the gymnast's video "looks like: balance beam, parallel bars")."""
    made = f", made {video.created_at:%d %B %Y}" if video.created_at else ""
    lines = [f"Video {path.name} ({words_of(path.stem)}) in the folder {words_of(path.parent.name)}: "
             f"{clock(video.duration_s)} long, {len(video.clips)} clips{made}."]
    if shown.things:
        things = [number_of(shown.most[label], label) for label, _ in shown.things.most_common(8)]
        lines.append("Shows " + ", ".join(things) + " (the most in one clip).")
    if shown.looks:
        lines.append("Looks like: " + ", ".join(label for label, _ in shown.looks.most_common(LOOKS_SHOWN)) + ".")
    if said:
        lines.append(f"Transcript: {said}")
    return "\n".join(lines)
