"""Photos and videos through the indexer: regions, the photos/videos tables, sidecars, bad media."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.conftest import shared_path


def _video(path: Path, seconds: tuple[float, ...] = (3.0, 3.0), fps: int = 10) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (96, 64))
    rng = np.random.default_rng(0)
    for scene, length in enumerate(seconds):
        base = np.zeros((64, 96, 3), np.uint8)
        base[:] = ((scene * 97) % 255, (scene * 53 + 80) % 255, (scene * 31 + 160) % 255)
        for _ in range(int(length * fps)):
            writer.write(np.clip(base + rng.integers(0, 8, base.shape), 0, 255).astype(np.uint8))
    writer.release()
    return path


@pytest.fixture
def album(tmp_path: Path) -> Path:
    root = tmp_path / "album"
    (root / "trip").mkdir(parents=True)
    shutil.copy(shared_path("eval", "images", "ultralytics", "bus.jpg"), root / "trip" / "bus.jpg")
    Image.open(shared_path("eval", "images", "skimage", "chelsea.png")).convert("RGB").save(root / "cat.jpg")
    (root / "cat.txt").write_text("Chelsea on the sofa.\n")
    (root / "notes.md").write_text("# Pets\n\n![Our cat asleep](cat.jpg)\n")
    (root / "broken.jpg").write_bytes((root / "cat.jpg").read_bytes()[:2000])
    (root / "empty.png").write_bytes(b"")
    _video(root / "trip" / "day.mp4")
    (root / "trip" / "day.srt").write_text("1\n00:00:00,500 --> 00:00:02,500\nWe waited for the bus.\n\n"
                                           "2\n00:00:03,200 --> 00:00:05,000\nThen it rained.\n")
    return root


def test_photos_become_photo_region_and_visual_items_with_a_photos_table(trove, album: Path):
    report = trove.index([album])
    corpora = trove.store.corpora()
    assert corpora["image/photo"] == 2 and corpora["image/visual"] == 2
    assert corpora["image/region"] >= 3  # people and the bus in bus.jpg at least
    assert corpora["video/video"] == 1 and corpora["video/clip"] >= 1
    problems = {Path(p).name: (state, reason) for p, state, reason in report.problems}
    assert problems["broken.jpg"][0] == "failed" and "truncated" in problems["broken.jpg"][1]
    assert problems["empty.png"] == ("skipped", "empty file")
    bus = [h for h in trove.search("a bus and people", corpus="image/photo") if h.item.title == "bus.jpg"][0]
    assert any(r["label"] == "bus" for r in bus.item.locator["regions"])
    assert Path(bus.item.locator["thumbnail"]).is_file()
    cat = trove.search("Chelsea on the sofa", corpus="image/photo")[0]
    assert cat.item.title == "cat.jpg"
    assert "Chelsea on the sofa." in cat.item.text and "Our cat asleep" in cat.item.text
    photos = trove.sql("SELECT name, people FROM photos ORDER BY name").rows
    assert [name for name, _ in photos] == ["bus.jpg", "cat.jpg"]
    assert dict(photos)["bus.jpg"] >= 2
    videos = trove.sql("SELECT name, subtitles, clips FROM videos").rows
    assert videos[0][:2] == ("day.mp4", True)
    clips = trove.search("waiting for the bus", corpus="video/clip")
    assert "We waited for the bus." in clips[0].item.text and clips[0].item.locator["start_s"] == 0.0


def test_a_changed_caption_or_alt_text_re_reads_its_photo_and_deletions_clean_up(trove, album: Path):
    trove.index([album])
    (album / "cat.txt").write_text("Chelsea in the garden.\n")
    report = trove.index()
    assert report.indexed >= 2  # the sidecar and its photo
    cat = trove.search("Chelsea in the garden", corpus="image/photo")[0]
    assert "Chelsea in the garden." in cat.item.text and "sofa" not in cat.item.text
    (album / "notes.md").write_text("# Pets\n\n![Chelsea, ruler of the house](cat.jpg)\n")
    trove.index()
    cat = trove.search("ruler of the house", corpus="image/photo")[0]
    assert "ruler of the house" in cat.item.text and "Our cat asleep" not in cat.item.text
    thumbs = trove.settings.thumbs_path
    before = {p.name for p in thumbs.glob("*/*")}
    (album / "trip" / "bus.jpg").unlink()
    trove.index()
    assert trove.sql("SELECT count(*) FROM photos").rows == [(1,)]
    assert len({p.name for p in thumbs.glob("*/*")}) == len(before) - 1
