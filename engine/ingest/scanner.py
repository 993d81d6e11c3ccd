"""Walking the user's folders: which files Trove would index, without following loops, and without
following links out of a followed folder unless the setting `follow_links` says so."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

BAD_NAME = "the file name is not valid UTF-8 (it is shown with \\x escapes): rename the file to index it"


@dataclass(frozen=True)
class Found:
    path: Path
    size: int
    mtime_ns: int
    kind: str
    state: str | None = None  # "skipped" or "failed": recorded as such with `reason`, the file never read
    reason: str | None = None


def readable(text: str | os.PathLike) -> str:
    """A name as valid UTF-8 text: bytes that are not UTF-8 (kept by os.fsdecode as surrogates, which
    SQLite and terminals refuse) are shown as \\xff escapes."""
    text = os.fspath(text)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def scan(root: Path, kind_of: Callable[[Path], str | None], exclude: tuple[Path, ...] = (),
         follow_links: bool = False) -> Iterator[Found]:
    """Files under `root` (or `root` itself) that some parser handles; hidden folders skipped. Links
    that lead out of `root` are given as skipped (not followed, not read) unless `follow_links`; a
    file whose name is not UTF-8 is given as failed, under its readable name."""
    for found in _walk(Path(root), kind_of, exclude, follow_links):
        yield _named(found)


def _walk(root: Path, kind_of: Callable[[Path], str | None], exclude: tuple[Path, ...],
          follow_links: bool) -> Iterator[Found]:
    """Every file Trove would index under `root`, real names, links out of `root` marked skipped."""
    excluded = {p.resolve() for p in exclude}
    if root.is_file():
        found = _found(root, kind_of)
        if found:
            yield found
        return
    inside = None if follow_links else root.resolve()
    seen_dirs: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True, onerror=None):
        st = os.stat(dirpath)
        if (st.st_dev, st.st_ino) in seen_dirs or Path(dirpath).resolve() in excluded:
            dirnames[:] = []
            continue
        seen_dirs.add((st.st_dev, st.st_ino))
        yield from _subfolders(Path(dirpath), dirnames, inside)
        for name in sorted(filenames):
            if not (name.startswith(".") or name.startswith("~$")):
                yield from _file(Path(dirpath) / name, kind_of, inside)


def _subfolders(folder: Path, dirnames: list[str], inside: Path | None) -> Iterator[Found]:
    """Keep in `dirnames` (os.walk's, changed in place) the folders to walk, sorted; the links among
    them that lead out of the followed folder are given as skipped."""
    names = sorted(d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "node_modules"))
    dirnames[:] = []
    for name in names:
        away = _leads_out(folder / name, inside)
        if away:
            yield Found(folder / name, -1, -1, "link", "skipped", away)
        else:
            dirnames.append(name)


def _file(path: Path, kind_of: Callable[[Path], str | None], inside: Path | None) -> Iterator[Found]:
    """The file at `path` when some parser handles it; a link out of the folder as skipped, unread."""
    away = _leads_out(path, inside)
    if away:  # its kind is not asked: that could read the file it leads to
        yield Found(path, -1, -1, "link", "skipped", away)
        return
    found = _found(path, kind_of)
    if found:
        yield found


def _leads_out(path: Path, inside: Path | None) -> str | None:
    """Why `path`, a symbolic link to a place outside the folder `inside`, is not followed; None for
    anything else (or when links are followed: `inside` is None)."""
    if inside is None or not path.is_symlink():
        return None
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # a loop of links: left to fail as a broken link
        return None
    if target.is_relative_to(inside):
        return None
    return f"a link to {readable(target)}, outside the followed folder: not followed (setting follow_links)"


def _named(found: Found) -> Found:
    """`found` under a name SQLite can store: a name that is not UTF-8 is recorded as failed."""
    name = readable(found.path)
    if name == str(found.path):
        return found
    return Found(Path(name), found.size, found.mtime_ns, found.kind, found.state or "failed",
                 found.reason or BAD_NAME)


def _found(path: Path, kind_of: Callable[[Path], str | None]) -> Found | None:
    kind = kind_of(path)
    if kind is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return Found(path, -1, -1, kind)  # e.g. a dangling link: recorded as failed
    return Found(path, st.st_size, st.st_mtime_ns, kind)
