"""Videos through the indexer: a partly broken file is indexed as far as it goes, a fake one fails."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import shared_path


def test_partial_videos_index_what_decodes_and_bad_ones_fail_with_a_reason(trove, tmp_path: Path):  # noqa: ANN001
    folder = tmp_path / "videos"
    folder.mkdir()
    shutil.copy(shared_path("eval", "videos", "opencv_samples", "tree.avi"), folder / "tree.avi")
    (folder / "holiday.mp4").write_text("this is a shopping list, not a video\n" * 50)
    report = trove.index([folder])
    problems = {Path(p).name: (state, reason) for p, state, reason in report.problems}
    assert problems["holiday.mp4"][0] == "failed" and problems["holiday.mp4"][1]
    status = {Path(p["path"]).name: p for p in trove.status()["problems"]}
    assert status["tree.avi"]["state"] == "indexed" and "68 of 444" in status["tree.avi"]["reason"]
    assert trove.store.corpora()["video/video"] == 1
    assert trove.sql("SELECT name, problems IS NOT NULL FROM videos").rows == [("tree.avi", True)]
