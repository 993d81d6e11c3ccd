"""Walking followed folders: links out of a folder are not followed, names that are not UTF-8 do
not stop a run (real folders, real links, a real index)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.ingest.indexer import kind_of
from engine.ingest.scanner import BAD_NAME, scan
from engine.pipeline import Trove


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A followed folder with links out of it (a folder, a file, /etc), links inside it and a loop."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("The safe combination is 7-19-44.\n")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "note.txt").write_text("The bike lock code is 4471.\n")
    (root / "out").symlink_to(outside)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    (root / "etc").symlink_to("/etc")
    (root / "inner").symlink_to(root / "sub")  # inside the folder: followed, and walked once
    (root / "sub" / "loop").symlink_to(root)  # a loop back to the top
    return root


def _by_path(found: list) -> dict[Path, object]:  # noqa: ANN001
    return {f.path: f for f in found}


def test_links_out_of_a_followed_folder_are_skipped_not_followed(linked: Path):
    found = _by_path(scan(linked, kind_of))
    links_out = {linked / "out", linked / "secret-link.txt", linked / "etc"}
    assert not any(p.name in ("secret.txt", "passwd") for p in found)
    assert not any(p.is_relative_to(link) for p in set(found) - links_out for link in links_out)
    outside = linked.parent / "outside"
    targets = {"out": outside, "secret-link.txt": outside / "secret.txt", "etc": Path("/etc").resolve()}
    for name, target in targets.items():
        skipped = found[linked / name]
        assert (skipped.state, skipped.kind, skipped.size) == ("skipped", "link", -1)
        assert f"a link to {target}, outside the followed folder" in skipped.reason and "follow_links" in skipped.reason
    notes = [p for p in found if p.name == "note.txt"]
    assert len(notes) == 1 and found[notes[0]].state is None  # the inside link and the loop add no duplicate


def test_follow_links_setting_follows_links_out(linked: Path):
    (linked / "etc").unlink()  # all of /etc would be slow to walk
    found = _by_path(scan(linked, kind_of, follow_links=True))
    assert found[linked / "out" / "secret.txt"].state is None
    assert found[linked / "secret-link.txt"].state is None and found[linked / "secret-link.txt"].size > 0
    assert all(f.state is None for f in found.values())


def _bad_name_folder(tmp_path: Path) -> Path:
    """A folder whose middle file's name has a byte that is not UTF-8 (made through a bytes path)."""
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "a.txt").write_text("The plumber is Verhoeven.\n")
    fd = os.open(os.fsencode(folder) + b"/bad\xff.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"The spare key is with Femke next door.\n")
    os.close(fd)
    (folder / "z.txt").write_text("The boiler was serviced by Ruud Bakker.\n")
    return folder


def test_a_name_that_is_not_utf8_is_given_as_failed_under_a_readable_name(tmp_path: Path):
    folder = _bad_name_folder(tmp_path)
    found = _by_path(scan(folder, kind_of))
    bad = found[folder / "bad\\xff.txt"]
    assert (bad.state, bad.reason, bad.kind) == ("failed", BAD_NAME, "text")
    assert {p.name for p in found} == {"a.txt", "bad\\xff.txt", "z.txt"}
    for path in found:
        str(path).encode("utf-8")  # every name can be stored and printed


def test_index_records_the_bad_name_and_indexes_every_other_file(trove: Trove, tmp_path: Path):
    folder = _bad_name_folder(tmp_path)
    report = trove.index([folder])
    assert (report.indexed, report.failed) == (2, 1)
    assert report.problems == [(str(folder / "bad\\xff.txt"), "failed", BAD_NAME)]
    texts = " ".join(t for (t,) in trove.db.query("SELECT text FROM items"))
    assert "Verhoeven" in texts and "Ruud Bakker" in texts and "Femke" not in texts
    again = trove.index()  # the next run neither crashes nor reads it again
    assert (again.unchanged, again.failed, again.removed) == (3, 0, 0)
    [problem] = trove.status()["problems"]
    assert problem == {"path": str(folder / "bad\\xff.txt"), "state": "failed", "reason": BAD_NAME}


def test_index_skips_links_out_and_reports_them(trove: Trove, linked: Path):
    report = trove.index([linked])
    texts = " ".join(t for (t,) in trove.db.query("SELECT text FROM items"))
    assert "4471" in texts and "7-19-44" not in texts and "root:" not in texts
    indexed = {r.path for r in trove.catalog.files() if r.state == "indexed"}
    assert not any(p.startswith((str(linked / "out"), str(linked / "etc"))) for p in indexed)
    problems = {Path(p).name: (state, reason) for p, state, reason in report.problems}
    assert {"out", "secret-link.txt", "etc"} <= set(problems)
    assert all(state == "skipped" and "follow_links" in reason for state, reason in problems.values())
    trove.settings = trove.settings.with_(follow_links=True)
    (linked / "etc").unlink()
    followed = trove.index()
    assert (followed.indexed, followed.removed) == (2, 2)  # the link records of `out` and `etc` go
    assert "7-19-44" in " ".join(t for (t,) in trove.db.query("SELECT text FROM items"))
