"""Clip boundary rules on synthetic cut lists: merge short scenes, split long ones evenly."""

from __future__ import annotations

import pytest

from engine.ingest.videos.clips import ClipPlanner, plan_clips, split_evenly


def _rounded(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(round(a, 3), round(b, 3)) for a, b in spans]


def test_no_cuts_is_one_clip_and_clips_cover_the_video():
    assert plan_clips([], 12.0) == [(0.0, 12.0)]
    spans = plan_clips([3.0, 7.5, 9.0, 20.0], 25.0)
    assert spans[0][0] == 0.0 and spans[-1][1] == 25.0
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_short_first_scene_joins_the_next_and_short_tail_joins_the_last():
    # testvideo.mp4's AdaptiveDetector cuts: a 1 s black lead-in and a 1 s fade-out tail
    assert _rounded(plan_clips([1.001, 6.006, 13.146, 23.056], 24.024)) == [
        (0.0, 6.006), (6.006, 13.146), (13.146, 24.024)]


def test_short_middle_scene_merges_into_the_following_one():
    assert plan_clips([5.0, 6.0, 12.0], 20.0) == [(0.0, 5.0), (5.0, 12.0), (12.0, 20.0)]


def test_a_run_of_short_scenes_becomes_one_clip():
    cuts = [10.0, 10.5, 11.0, 11.5, 12.0, 12.5, 20.0]
    assert plan_clips(cuts, 30.0) == [(0.0, 10.0), (10.0, 12.0), (12.0, 20.0), (20.0, 30.0)]


def test_long_scene_splits_evenly_and_parts_respect_max():
    assert _rounded(plan_clips([], 70.0, max_clip_s=30.0)) == [(0.0, 23.333), (23.333, 46.667), (46.667, 70.0)]
    assert plan_clips([], 60.0, max_clip_s=30.0) == [(0.0, 30.0), (30.0, 60.0)]
    spans = plan_clips([4.0], 100.0, max_clip_s=30.0)
    assert spans[0] == (0.0, 4.0) and len(spans) == 5 and all(b - a <= 30.0 + 1e-9 for a, b in spans)


def test_a_merged_tail_can_push_the_last_clip_over_max_and_it_is_split():
    assert _rounded(plan_clips([29.5], 30.5, min_clip_s=2.0, max_clip_s=30.0)) == [(0.0, 15.25), (15.25, 30.5)]


def test_video_shorter_than_min_is_one_clip_and_bad_cuts_are_ignored():
    assert plan_clips([0.5, 1.0], 1.5) == [(0.0, 1.5)]
    assert plan_clips([-1.0, 0.0, 5.0, 5.0, 99.0], 10.0) == [(0.0, 5.0), (5.0, 10.0)]
    assert plan_clips([1.0], 0.0) == []


def test_streaming_planner_hands_out_clips_early_and_agrees_with_plan_clips():
    planner = ClipPlanner(2.0, 30.0)
    assert planner.add_cut(5.0) == []  # the clip before 5 s could still absorb a short tail
    assert planner.advance(6.0) == []
    assert planner.advance(7.0) == [(0.0, 5.0)]  # 2 s past the cut: final
    assert planner.add_cut(9.0) == []
    assert planner.finish(10.0) == [(5.0, 10.0)]  # the 1 s tail joined the 5-9 s clip
    assert plan_clips([5.0, 9.0], 10.0) == [(0.0, 5.0), (5.0, 10.0)]


def test_split_evenly_and_bad_limits():
    assert split_evenly(10.0, 10.0, 30.0) == []
    assert split_evenly(0.0, 30.0, 30.0) == [(0.0, 30.0)]
    with pytest.raises(ValueError):
        ClipPlanner(min_clip_s=40.0, max_clip_s=30.0)
