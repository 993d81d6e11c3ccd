"""Videos -> clips and keyframes in one pass: real files from ../shared, a synthetic video with known
scenes, partial and bad files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.errors import ParseError
from engine.ingest.videos import Video, plan_clips, read_video, video_info
from engine.ingest.videos.decode import FrameReader
from tests.conftest import shared_path

PYSCENEDETECT = ("eval", "videos", "pyscenedetect")
FPS = 25
# (BGR colour or None for noise, seconds): a 1 s scene that must merge, a 70 s one that must split
SCENES = [((0, 0, 220), 5), ((0, 220, 0), 1), ((220, 0, 0), 6), (None, 70)]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("video") / "scenes.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (64, 48))
    assert writer.isOpened()
    noise = np.random.default_rng(0).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    for colour, seconds in SCENES:
        frame = noise if colour is None else np.full((48, 64, 3), colour, np.uint8)
        for _ in range(seconds * FPS):
            writer.write(frame)
    writer.release()
    return path


@pytest.fixture(scope="module")
def testvideo() -> Video:
    return read_video(shared_path(*PYSCENEDETECT, "testvideo.mp4"))


def test_synthetic_scenes_merge_the_short_one_and_split_the_long_one(synthetic: Path):
    fractions: list[float] = []
    video = read_video(synthetic, min_clip_s=2.0, max_clip_s=30.0, progress=fractions.append)
    assert video.problems == [] and video.decoded_frames == 82 * FPS and (video.width, video.height) == (64, 48)
    assert video.duration_s == pytest.approx(82.0)
    assert video.cuts_s == pytest.approx([5.0, 6.0, 12.0])  # the detector sees all three cuts
    bounds = [c.start_s for c in video.clips] + [video.clips[-1].end_s]
    # the 1 s green scene merged into the blue one; the 70 s noise scene split in 3
    assert bounds == pytest.approx([0.0, 5.0, 12.0, 12 + 70 / 3, 12 + 140 / 3, 82.0])
    assert all(a.end_s == b.start_s for a, b in zip(video.clips, video.clips[1:], strict=False))
    assert [(c.start_frame, c.end_frame) for c in video.clips[:2]] == [(0, 125), (125, 300)]
    assert video.clips[-1].end_frame == video.decoded_frames
    for clip in video.clips:
        (kf,) = clip.keyframes
        assert clip.start_s <= kf.t_s < clip.end_s and abs(kf.t_s - (clip.start_s + clip.end_s) / 2) <= 0.5
        assert kf.image.shape == (48, 64, 3)
    assert tuple(int(v) for v in video.clips[0].keyframes[0].image[24, 32]) == pytest.approx((0, 0, 220), abs=12)
    assert fractions and fractions[-1] == 1.0 and fractions == sorted(fractions)


def test_keyframes_per_clip_and_content_detector(synthetic: Path):
    video = read_video(synthetic, keyframes_per_clip=3, detector="content")
    assert all(len(c.keyframes) == 3 for c in video.clips)
    assert all(c.start_s <= k.t_s < c.end_s for c in video.clips for k in c.keyframes)
    with pytest.raises(ValueError, match="unknown scene detector"):
        read_video(synthetic, detector="histogram")


def test_testvideo_clips_match_the_golden_scene_list(testvideo: Video):
    golden = json.loads(shared_path(*PYSCENEDETECT, "goldens", "testvideo.mp4.AdaptiveDetector.default.json")
                        .read_text())["cuts"]  # [30, 180, 394, 691]
    fps = testvideo.fps
    assert fps == pytest.approx(29.97, abs=0.01) and testvideo.decoded_frames == 720 and testvideo.problems == []
    detected = [round(t * fps) for t in testvideo.cuts_s]
    assert len(detected) == len(golden) and all(abs(d - g) <= 2 for d, g in zip(detected, golden, strict=True))
    # clips: the golden scenes after the same merge rules (the 1 s black lead-in and fade-out tail merge)
    expected = [round(a * fps) for a, _ in plan_clips([g / fps for g in golden], 720 / fps)]
    starts = [c.start_frame for c in testvideo.clips]
    assert len(starts) == len(expected) == 3 and all(abs(s - e) <= 2 for s, e in zip(starts, expected, strict=True))
    assert testvideo.clips[-1].end_s == pytest.approx(testvideo.duration_s) and testvideo.duration_s == pytest.approx(
        24.02, abs=0.02)
    for clip in testvideo.clips:
        (kf,) = clip.keyframes
        assert max(kf.width, kf.height) == 640 and kf.image.shape == (360, 640, 3)
    assert testvideo.row()["created_at"].year == 2013 and testvideo.codec == "h264"


def test_video_info_reads_declared_metadata_without_decoding_everything():
    info = video_info(shared_path(*PYSCENEDETECT, "testvideo.mp4"))
    assert (info.width, info.height, info.declared_frames, info.codec, info.container) == (
        1280, 720, 720, "h264", "mp4")
    assert info.duration_s == pytest.approx(24.02, abs=0.02) and info.created_at.year == 2013


def test_tree_avi_indexes_what_decodes_and_records_the_rest():
    path = shared_path("eval", "videos", "opencv_samples", "tree.avi")
    video = read_video(path)
    assert (video.declared_frames, video.decoded_frames) == (444, 68)
    assert any("decoded 68 of 444" in p for p in video.problems)
    # its missing frames are empty AVI chunks: the 68 real ones carry timestamps over the whole 29.6 s
    assert video.duration_s == pytest.approx(29.6, abs=0.1) and video.clips and video.clips[-1].end_frame == 68


@pytest.mark.parametrize("kind", ["empty", "text", "truncated", "garbage"])
def test_bad_media_raises_parse_error_with_the_reason_and_is_not_modified(tmp_path: Path, kind: str):
    path = tmp_path / f"{kind}.mp4"
    if kind == "truncated":  # the first 30 % of a real MP4 whose index ('moov') is at the end
        source = shared_path(*PYSCENEDETECT, "testvideo.mp4")
        data = source.read_bytes()[: int(source.stat().st_size * 0.3)]
    else:
        data = {"empty": b"", "text": b"Dear diary,\nthis is not a video.\n" * 20,
                "garbage": bytes(np.random.default_rng(1).integers(0, 256, 20000, dtype=np.uint8))}[kind]
    path.write_bytes(data)
    before = _sha(path)
    reason = {"empty": "empty file", "text": "text file", "truncated": "truncated MP4", "garbage": "cannot open"}[kind]
    with pytest.raises(ParseError, match=reason):
        read_video(path)
    with pytest.raises(ParseError, match=reason):
        video_info(path)
    assert _sha(path) == before


def test_truncated_avi_keeps_the_readable_part(tmp_path: Path):
    source = shared_path("eval", "videos", "opencv_samples", "Megamind.avi")
    path = tmp_path / "cut.avi"
    path.write_bytes(source.read_bytes()[: source.stat().st_size // 2])
    video = read_video(path)
    assert 0 < video.decoded_frames < video.declared_frames == 270
    assert any("truncated" in p for p in video.problems) and any("is unreadable" in p for p in video.problems)
    assert video.clips and video.clips[-1].end_s == pytest.approx(video.duration_s)


class _FakeCapture:
    """A capture whose container declares nonsense: fps 0, a huge frame count, optional timestamps."""

    def __init__(self, frames: int, step_ms: float | None) -> None:
        self.frames, self.step_ms, self.read_count = frames, step_ms, 0

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.read_count >= self.frames:
            return False, None
        self.read_count += 1
        return True, np.zeros((6, 8, 3), np.uint8)

    def get(self, prop: int) -> float:
        if prop == cv2.CAP_PROP_POS_MSEC:
            return (self.read_count - 1) * self.step_ms if self.step_ms else 0.0
        return {cv2.CAP_PROP_FPS: 0.0, cv2.CAP_PROP_FRAME_COUNT: 9.2e18}.get(prop, 0.0)


def test_absurd_declared_values_fall_back_to_counting_and_say_so():
    reader = FrameReader(_FakeCapture(50, step_ms=40.0))
    assert [t for _, t, _ in reader][:3] == [0.0, 0.04, 0.08]
    duration = reader.finish()
    assert reader.declared_frames == 0 and reader.fps == pytest.approx(25.0) and duration == pytest.approx(2.0)
    assert any("measured 25.000 fps" in p for p in reader.problems)
    assert any("counted 50 decoded frames" in p for p in reader.problems)
    blind = FrameReader(_FakeCapture(10, step_ms=None))
    assert [t for _, t, _ in blind][-1] == pytest.approx(9 / 25)
    blind.finish()
    assert any("assumed 25 fps" in p for p in blind.problems)
