"""Zip-based files (docx, xlsx, odt, epub) are checked before they are parsed: what their parts
would unpack to, from the zip's central directory (a few KB read, nothing unpacked). A 322 KB
.docx holding 200 MB of XML took 209 s and 3 GB to parse.

The declared sizes can be trusted as a bound: Python's zipfile, which python-docx, openpyxl and
our ODT and EPUB readers unpack with, never returns more than a member's declared size (a member
that lies is cut there and fails its CRC check)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from engine.errors import SkipFile
from engine.settings import Settings

MAX_UNPACKED_MB: float = Settings.max_unpacked_mb  # the setting's default
MAX_RATIO = 200  # a large part packed tighter than this is a zip bomb: real XML packs 5-30 to 1
RATIO_FROM_MB = 8  # ... parts smaller than this unpack to little whatever their ratio
MAX_MEMBERS = 10_000  # documents have tens of parts, books and workbooks hundreds


def _members(path: Path) -> list[zipfile.ZipInfo]:
    """The parts a zip file declares; none when it is not a readable zip."""
    try:
        with zipfile.ZipFile(path) as zf:
            return zf.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError):
        return []


def unpacked_bytes(path: Path) -> int:
    """What the parts of zip file `path` declare they unpack to; 0 when it is not a zip."""
    return sum(m.file_size for m in _members(path))


def check_zip(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> None:
    """SkipFile with the reason when the parts of zip file `path` would unpack to more than
    `max_unpacked_mb` in all, when one large part is packed suspiciously tight, or when it has
    more than MAX_MEMBERS parts. A file that is not a zip passes: its parser says how it is broken."""
    members = _members(path)
    if len(members) > MAX_MEMBERS:
        raise SkipFile(f"a zip of {len(members)} parts, more than the {MAX_MEMBERS} a document may have")
    total = sum(m.file_size for m in members)
    if total > max_unpacked_mb * 2**20:
        raise SkipFile(f"unpacks to {total / 2**20:.0f} MB, over the {max_unpacked_mb:g} MB limit "
                       f"(setting max_unpacked_mb): a zip bomb, or too big to read")
    for m in members:
        if m.file_size > RATIO_FROM_MB * 2**20 and m.file_size > MAX_RATIO * max(m.compress_size, 1):
            raise SkipFile(f"its part {m.filename} unpacks {m.file_size / max(m.compress_size, 1):.0f} times "
                           f"its packed size ({m.file_size / 2**20:.0f} MB from {m.compress_size / 2**20:.2f} MB): "
                           "a zip bomb")
