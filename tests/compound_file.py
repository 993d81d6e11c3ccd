"""A writer of Compound Files (MS-CFB, version 3: 512-byte sectors, streams under 4096 bytes in the
mini stream), the container of Outlook's .msg files, so tests can make real ones: nothing on PyPI
writes a new one (olefile reads them and only rewrites streams in place)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
FREE, END, FAT_SECTOR, NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
SECTOR, MINI_SECTOR, MINI_CUTOFF = 512, 64, 4096
Tree = dict[str, "bytes | Tree"]  # a storage: names to streams (bytes) or storages


@dataclass
class _Entry:
    name: str
    data: bytes | None  # None: a storage
    kind: int  # 1 storage, 2 stream, 5 root
    children: list[int] = field(default_factory=list)
    start: int = END
    left: int = NONE
    right: int = NONE
    child: int = NONE


def write(path: Path, tree: Tree) -> Path:
    """Write `tree` (the root storage) as a Compound File at `path`."""
    entries = [_Entry("Root Entry", None, 5)]
    _add(entries, 0, tree)
    mini, minifat = _mini_stream(entries)
    big = [e for e in entries if e.data is not None and len(e.data) >= MINI_CUTOFF]
    counts = {"dir": math.ceil(len(entries) * 128 / SECTOR), "minifat": math.ceil(len(minifat) * 4 / SECTOR),
              "mini": math.ceil(len(mini) / SECTOR)}
    data_sectors = sum(counts.values()) + sum(math.ceil(len(e.data or b"") / SECTOR) for e in big)
    fat_sectors = math.ceil(data_sectors / (SECTOR // 4 - 1))
    assert fat_sectors <= 109, "no DIFAT sectors in this writer"
    fat = [FAT_SECTOR] * fat_sectors
    starts = {}
    for name in ("dir", "minifat", "mini"):
        starts[name] = _chain(fat, counts[name])
    for entry in big:
        entry.start = _chain(fat, math.ceil(len(entry.data or b"") / SECTOR))
    entries[0].start = starts["mini"] if mini else END
    fat += [FREE] * (-len(fat) % (SECTOR // 4))
    body = b"".join(struct.pack("<I", v) for v in fat)
    body += _padded(b"".join(_directory_entry(e, mini if e.kind == 5 else None) for e in entries))
    body += _padded(b"".join(struct.pack("<I", v) for v in minifat)) + _padded(mini)
    body += b"".join(_padded(e.data or b"") for e in big)
    path.write_bytes(_header(fat_sectors, starts, counts) + body)
    return path


def _add(entries: list[_Entry], parent: int, tree: Tree) -> None:
    for name, value in tree.items():
        entries.append(_Entry(name, value if isinstance(value, bytes) else None,
                              2 if isinstance(value, bytes) else 1))
        index = len(entries) - 1
        entries[parent].children.append(index)
        if not isinstance(value, bytes):
            _add(entries, index, value)
    kids = sorted(entries[parent].children, key=lambda i: (len(entries[i].name), entries[i].name.upper()))
    entries[parent].child = _balanced(entries, kids)


def _balanced(entries: list[_Entry], kids: list[int]) -> int:
    """The siblings as a binary search tree (all black: the spec's colours are not checked on read)."""
    if not kids:
        return NONE
    middle = len(kids) // 2
    top = entries[kids[middle]]
    top.left, top.right = _balanced(entries, kids[:middle]), _balanced(entries, kids[middle + 1:])
    return kids[middle]


def _mini_stream(entries: list[_Entry]) -> tuple[bytes, list[int]]:
    mini = b""
    minifat: list[int] = []
    for entry in entries:
        if entry.data is not None and len(entry.data) < MINI_CUTOFF:
            entry.start = len(minifat) if entry.data else END
            count = math.ceil(len(entry.data) / MINI_SECTOR)
            minifat += [len(minifat) + i + 1 for i in range(count - 1)] + [END] * (count > 0)
            mini += entry.data + b"\0" * (-len(entry.data) % MINI_SECTOR)
    return mini, minifat


def _chain(fat: list[int], count: int) -> int:
    """Append a run of `count` sectors to the FAT; its first sector (END when empty)."""
    if not count:
        return END
    first = len(fat)
    fat += [first + i + 1 for i in range(count - 1)] + [END]
    return first


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % SECTOR)


def _directory_entry(entry: _Entry, mini: bytes | None) -> bytes:
    name = (entry.name + "\0").encode("utf-16-le")
    size = len(mini) if mini is not None else len(entry.data or b"")
    return struct.pack("<64sHBBIII16sIQQIQ", name, len(name), entry.kind, 1, entry.left, entry.right, entry.child,
                       b"\0" * 16, 0, 0, 0, entry.start if entry.kind != 1 else 0, size)


def _header(fat_sectors: int, starts: dict[str, int], counts: dict[str, int]) -> bytes:
    difat = list(range(fat_sectors)) + [FREE] * (109 - fat_sectors)
    return (MAGIC + b"\0" * 16 + struct.pack("<HHHHH6sIIIIIIIII", 0x3E, 3, 0xFFFE, 9, 6, b"\0" * 6, 0, fat_sectors,
                                             starts["dir"], 0, MINI_CUTOFF, starts["minifat"], counts["minifat"],
                                             END, 0)
            + b"".join(struct.pack("<I", v) for v in difat))
