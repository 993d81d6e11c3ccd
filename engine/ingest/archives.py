"""Zip-based files (docx, xlsx, odt, epub) are checked before they are parsed: what their parts
would unpack to, from the zip's central directory (a few KB read, nothing unpacked). A 322 KB
.docx holding 200 MB of XML took 209 s and 3 GB to parse.

The declared sizes can be trusted as a bound: Python's zipfile, which python-docx, openpyxl and
our ODT and EPUB readers unpack with, never returns more than a member's declared size (a member
that lies is cut there and fails its CRC check)."""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engine.errors import ParseError, SkipFile
from engine.settings import Settings

if TYPE_CHECKING:
    from olefile import OleFileIO

MAX_UNPACKED_MB: float = Settings.max_unpacked_mb  # the setting's default
MAX_RATIO = 200  # a large part packed tighter than this is a zip bomb: real XML packs 5-30 to 1
RATIO_FROM_MB = 8  # ... parts smaller than this unpack to little whatever their ratio
T = TypeVar("T")
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


OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a Compound File: a legacy .doc/.ppt/.xls, or an encrypted .docx/…
ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")  # the Compound File stream an encrypted .docx/… is in
PROTECTED = "password-protected {what}: open it in the app that made it, remove the password and save it to index it"


def open_office(path: Path, max_unpacked_mb: float, opener: Callable[[str], T],
                not_found: type[Exception], what: str) -> T:
    """`opener(path)` of an Office Open XML file (python-docx, python-pptx) once it is checked: not
    encrypted, not a zip bomb; ParseError saying how it is broken (`what` it should have been)."""
    from lxml import etree

    check_not_encrypted(path)
    check_zip(path, max_unpacked_mb)
    try:
        return opener(str(path))
    except (zipfile.BadZipFile, not_found, KeyError, ValueError) as exc:
        raise ParseError(f"corrupt {path.suffix.lower()} (not a readable {what}): {exc}") from exc
    except etree.XMLSyntaxError as exc:
        raise ParseError(f"not valid XML inside the {path.suffix.lower()}: {exc}") from exc


def check_not_encrypted(path: Path) -> None:
    """ParseError for an Office file (.docx, .pptx) saved with a password, whose zip of XML parts is
    then kept encrypted inside a Compound File, or for a legacy binary one (.doc, .ppt) renamed."""
    if not is_ole(path):
        return
    if holds(path, ENCRYPTED_PACKAGE):
        raise ParseError(PROTECTED.format(what=f"{path.suffix.lower()} file"))
    raise ParseError(f"a binary Office file (.doc, .ppt, .xls) named {path.suffix.lower()}: give it its own "
                     "extension to index it")


def is_ole(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(len(OLE_MAGIC)) == OLE_MAGIC


@contextmanager
def open_compound(path: Path, what: str) -> Iterator[OleFileIO]:
    """The Compound File at `path` (a .doc, .ppt or .msg), open: SkipFile when it is empty, ParseError
    when it is no Compound File (`what` it should have been) or is damaged, even while it is read."""
    import olefile

    if path.stat().st_size == 0:
        raise SkipFile("empty file")
    if not is_ole(path):
        raise ParseError(f"not {what}: it is not a Compound File")
    try:
        with olefile.OleFileIO(str(path)) as ole:
            yield ole
    except (OSError, struct.error, ValueError, IndexError, KeyError, UnicodeDecodeError, RecursionError) as exc:
        raise ParseError(f"corrupt {path.suffix.lower()}: {exc}") from exc


def summary_title(ole: OleFileIO, placeholder: str = "") -> str:
    """The title in a Compound File's summary information ("" when none, or when it is `placeholder`,
    the one the program fills in itself)."""
    try:
        title = ole.get_metadata().title
    except (OSError, struct.error, ValueError, IndexError, AttributeError):
        return ""
    if isinstance(title, bytes):
        title = title.decode("cp1252", "replace")
    title = " ".join(str(title or "").split())
    return "" if title == placeholder else title


def holds(path: Path, needle: bytes, chunk_bytes: int = 1 << 20) -> bool:
    """Whether the bytes `needle` occur in the file, read in chunks."""
    carry = b""
    with path.open("rb") as file:
        while chunk := file.read(chunk_bytes):
            if needle in carry + chunk:
                return True
            carry = chunk[-len(needle):]
    return False


def odf_encrypted(package: zipfile.ZipFile) -> bool:
    """Whether an OpenDocument package was saved with a password (its manifest says how each part
    is encrypted)."""
    try:
        return b"encryption-data" in package.read("META-INF/manifest.xml")
    except KeyError:
        return False
