"""A video's own item: what its clips show, each thing with the most of it one clip shows."""

from __future__ import annotations

from pathlib import Path

from engine.ingest.videos.items import Shown, video_text
from engine.ingest.videos.reader import Clip, Video
from engine.runtimes.vision.regions import Region


def _video(path: Path, clips: int) -> Video:
    return Video(path, 25.0, 2000, 2000, 768, 576, 80.0, "xvid", "avi", None, "content", [],
                 [Clip(i, i * 26.6, (i + 1) * 26.6, i * 665, (i + 1) * 665) for i in range(clips)])


def _regions(**things: int) -> list[Region]:
    return [Region(box=(0, 0, 10, 10), label=label, score=0.9, kind="object")
            for label, n in things.items() for _ in range(n)]


def test_a_video_says_the_most_of_each_thing_one_clip_shows_and_what_its_clips_look_like():
    """vtest.avi's three clips show 5, 3 and 8 people (its walkers) and 2 cars each: the video shows 8
    people at once, not one person (nor 16 people across its clips)."""
    path = Path("/v/opencv_samples/vtest.avi")
    shown = Shown()
    shown.add(_regions(person=5, car=2), ["plaza"])
    shown.add(_regions(person=3, car=2), ["plaza", "crosswalk"])
    shown.add(_regions(person=8, car=2, frisbee=1), ["warplane, military plane"])
    text = video_text(path, _video(path, 3), "", shown)
    assert text.splitlines() == ["Video vtest.avi (vtest) in the folder opencv samples: 1:20 long, 3 clips.",
                                 "Shows 8 people, 2 cars, 1 frisbee (the most in one clip).",
                                 "Looks like: plaza, crosswalk, warplane, military plane."]
    alone = Shown()
    alone.add(_regions(person=1), [])
    assert video_text(path, _video(path, 1), "", alone).splitlines()[1:] == ["Shows 1 person (the most in one clip)."]
