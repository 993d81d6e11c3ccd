"""Keyframe candidates: bounded memory, picked from inside a clip, sensible resolution."""

from __future__ import annotations

import numpy as np

from engine.ingest.videos.keyframes import KEYFRAME_SIDE, CandidateStore, to_keyframe


def _frame(value: int, w: int = 32, h: int = 24) -> np.ndarray:
    return np.full((h, w, 3), value, np.uint8)


def test_keyframe_is_shrunk_jpeg_and_decodes_to_bgr():
    kf = to_keyframe(1.5, 45, np.zeros((720, 1280, 3), np.uint8))
    assert (kf.width, kf.height) == (KEYFRAME_SIDE, 360)
    image = kf.image
    assert image.dtype == np.uint8 and image.shape == (360, 640, 3)
    small = to_keyframe(0.0, 0, _frame(200, 64, 48))
    assert (small.width, small.height) == (64, 48)  # never upscaled
    assert abs(int(small.image.mean()) - 200) <= 2


def test_store_samples_every_step_and_picks_nearest_to_the_middle_inside_the_clip():
    store = CandidateStore(step_s=0.5)
    for i in range(100):  # 10 s at 10 fps
        t = i / 10
        if store.wants(t):
            store.offer(t, i, _frame(i))
    assert len(store) == 20
    (kf,) = store.pick(2.0, 5.0, 1)
    assert kf.t_s == 3.5 and kf.frame == 35
    assert [k.t_s for k in store.pick(2.0, 5.0, 3)] == [2.5, 3.5, 4.5]
    assert len(store.pick(2.0, 2.6, 5)) == 2  # only two candidates inside: no duplicates
    assert store.pick(9.6, 9.9, 1) == []  # none inside: no keyframe rather than one from another clip
    store.drop_before(5.0)
    assert len(store) == 10 and store.pick(0.0, 5.0, 1) == []


def test_store_thins_itself_on_a_very_long_scene_and_resets_on_a_new_clip():
    store = CandidateStore(step_s=0.5, cap=40)
    t = 0.0
    while t < 600:
        store.offer(t, int(t * 10), _frame(1, 8, 6))
        t += 0.1
    assert len(store) <= 40 and store.step_s > 0.5
    assert len(store.pick(0.0, 600.0, 3)) == 3
    store.reset_step()
    assert store.step_s == 0.5
