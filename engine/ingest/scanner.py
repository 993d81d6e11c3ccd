"""Walking the user's folders: which files Trove would index, without following loops."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Found:
    path: Path
    size: int
    mtime_ns: int
    kind: str


def scan(root: Path, kind_of: Callable[[Path], str | None], exclude: tuple[Path, ...] = ()) -> Iterator[Found]:
    """Files under `root` (or `root` itself) that some parser handles; hidden folders skipped."""
    root = Path(root)
    excluded = {p.resolve() for p in exclude}
    if root.is_file():
        found = _found(root, kind_of)
        if found:
            yield found
        return
    seen_dirs: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True, onerror=None):
        st = os.stat(dirpath)
        if (st.st_dev, st.st_ino) in seen_dirs or Path(dirpath).resolve() in excluded:
            dirnames[:] = []
            continue
        seen_dirs.add((st.st_dev, st.st_ino))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "node_modules"))
        for name in sorted(filenames):
            if name.startswith(".") or name.startswith("~$"):
                continue
            found = _found(Path(dirpath) / name, kind_of)
            if found:
                yield found


def _found(path: Path, kind_of: Callable[[Path], str | None]) -> Found | None:
    kind = kind_of(path)
    if kind is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return Found(path, -1, -1, kind)  # e.g. a dangling link: recorded as failed
    return Found(path, st.st_size, st.st_mtime_ns, kind)
