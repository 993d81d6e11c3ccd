"""A video's own item: what its clips show, each thing with the most of it one clip shows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from engine.ingest.videos.items import video_text
from engine.ingest.videos.reader import Clip, Video


def _video(path: Path, clips: int) -> Video:
    return Video(path, 25.0, 2000, 2000, 768, 576, 80.0, "xvid", "avi", None, "content", [],
                 [Clip(i, i * 26.6, (i + 1) * 26.6, i * 665, (i + 1) * 665) for i in range(clips)])


def test_a_video_says_the_most_of_each_thing_one_clip_shows():
    """vtest.avi's three clips show 5, 3 and 8 people (its walkers) and 2 cars each: the video shows 8
    people at once, not one person (nor 16 people across its clips)."""
    path = Path("/v/opencv_samples/vtest.avi")
    clips = [Counter(person=5, car=2), Counter(person=3, car=2), Counter(person=8, car=2, frisbee=1)]
    shown, most = Counter(), Counter()
    for seen in clips:  # as prepare_video adds them up
        shown.update(seen)
        most |= seen
    text = video_text(path, _video(path, 3), "", shown, most)
    assert text.splitlines() == ["Video vtest.avi (vtest) in the folder opencv samples: 1:20 long, 3 clips.",
                                 "Shows 8 people, 2 cars, 1 frisbee (the most in one clip)."]
    alone = video_text(path, _video(path, 1), "", Counter(person=1), Counter(person=1))
    assert alone.splitlines()[1] == "Shows 1 person (the most in one clip)."
