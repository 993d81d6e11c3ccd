"""PowerPoint 97–2003 decks (.ppt, [MS-PPT]) with olefile: each slide a section under its title (its
locator: slide N), its text runs, then its speaker notes. Slides are found as PowerPoint finds them:
the current edit's persist directory (newest edit first) gives where each slide and its notes are
in the stream, the slide list gives their order; text sits in TextCharsAtom (UTF-16) and
TextBytesAtom (8-bit) records, a TextHeaderAtom before each saying whether it is a title."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.archives import open_compound, summary_title
from engine.ingest.parsed import DocBuilder, ParsedDoc

if TYPE_CHECKING:
    from olefile import OleFileIO

KIND = "ppt"
EXTENSIONS = (".ppt", ".pps", ".pot")
UNPACKS = False

STREAM = "PowerPoint Document"
CONTAINER = 0xF  # recVer of a container record
DOCUMENT, SLIDE_LIST, SLIDE_PERSIST, SLIDE, SLIDE_ATOM = 0x03E8, 0x0FF0, 0x03F3, 0x03EE, 0x03EF
TEXT_HEADER, TEXT_CHARS, TEXT_BYTES = 0x0F9F, 0x0FA0, 0x0FA8
PERSIST_DIRECTORY = 0x1772
TITLES = {0, 6}  # TextHeaderAtom.textType: title, center title
MAX_EDITS = 1000  # a chain of user edits longer than this is a damaged file, not a deck


def parse(path: Path) -> ParsedDoc:
    with open_compound(path, "a PowerPoint 97–2003 deck") as ole:
        slides = list(read_slides(ole))
        title = summary_title(ole, placeholder="PowerPoint Presentation")
    builder = DocBuilder()
    for number, (heading, texts, notes) in enumerate(slides, start=1):
        builder.heading(1, heading or f"Slide {number}", number)
        for text in texts:
            builder.paragraph(text, number)
        for line in notes:
            builder.paragraph(f"Speaker notes: {line}", number)
    doc = builder.build(path.stem, page_kind="slide")
    doc.title = title or next((heading for heading, _, _ in slides if heading), "") or path.stem
    return doc


def read_slides(ole: OleFileIO) -> Iterator[tuple[str, list[str], list[str]]]:
    """Each slide in order: its title, its other text runs' lines, its notes' lines."""
    if ole.exists("EncryptedSummary"):
        raise ParseError("encrypted: the .ppt is password-protected")
    if not ole.exists(STREAM) or not ole.exists("Current User"):
        raise ParseError("a Compound File, but not a PowerPoint deck (it has no PowerPoint Document stream)")
    data = ole.openstream(STREAM).read()
    offsets, document = _persist_directory(data, ole.openstream("Current User").read())
    for persist_id, listed in _slide_list(data, offsets[document]):
        slide = offsets.get(persist_id)
        title, texts = _texts(data, _records(data, slide)) if slide is not None else ("", [])
        if not (title or texts):  # an older deck keeps a slide's text in the slide list itself
            title, texts = listed
        notes_id = _notes_id(data, slide) if slide is not None else None
        notes = _texts(data, _records(data, offsets[notes_id]))[1] if notes_id in offsets else []
        yield title, texts, [line for line in notes if not line.isdigit()]  # a notes page's own slide number


def _persist_directory(data: bytes, current_user: bytes) -> tuple[dict[int, int], int]:
    """persist id -> where its record is in the stream (newest edit wins), and the document's id."""
    edit = struct.unpack_from("<I", current_user, 16)[0]  # CurrentUserAtom.offsetToCurrentEdit
    offsets: dict[int, int] = {}
    document = None
    for _ in range(MAX_EDITS):
        last_edit, directory, document_id = struct.unpack_from("<III", data, edit + 16)
        document = document if document is not None else document_id
        _, kind, length = _header(data, directory)
        if kind != PERSIST_DIRECTORY:
            raise ParseError("corrupt .ppt: its persist directory is not where the last edit says")
        at, end = directory + 8, directory + 8 + length
        while at < end:
            entry = struct.unpack_from("<I", data, at)[0]
            first, count = entry & 0xFFFFF, entry >> 20
            for i in range(count):
                offsets.setdefault(first + i, struct.unpack_from("<I", data, at + 4 + 4 * i)[0])
            at += 4 + 4 * count
        if last_edit == 0:
            return offsets, document
        edit = last_edit
    raise ParseError("corrupt .ppt: its chain of edits does not end")


def _slide_list(data: bytes, document: int) -> list[tuple[int, tuple[str, list[str]]]]:
    """The slides' persist ids in the order the slide list gives (its SlidePersistAtoms), each with the
    text the list itself holds after it (where PowerPoint 97 kept a slide's outline text)."""
    for kind, instance, at, _ in _records(data, document):
        if kind == SLIDE_LIST and instance == 0:
            slides: list[tuple[int, list]] = []
            for record in _records(data, at, depth=1):
                if record[0] == SLIDE_PERSIST:
                    slides.append((struct.unpack_from("<I", data, record[2] + 8)[0], []))
                elif slides:
                    slides[-1][1].append(record)
            return [(persist_id, _texts(data, iter(records))) for persist_id, records in slides]
    return []


def _texts(data: bytes, records: Iterator[tuple[int, int, int, int]]) -> tuple[str, list[str]]:
    """The title and the other lines of the text runs among `records` (a slide's, a notes page's)."""
    title, lines, is_title = "", [], False
    for kind, _, at, length in records:
        if kind == TEXT_HEADER:
            is_title = struct.unpack_from("<I", data, at + 8)[0] in TITLES
        elif kind in (TEXT_CHARS, TEXT_BYTES):
            raw = data[at + 8:at + 8 + length]
            text = raw.decode("utf-16-le", "replace") if kind == TEXT_CHARS else raw.decode("cp1252", "replace")
            found = [" ".join(line.split()) for line in text.replace("\x0b", "\r").split("\r")]
            found = [line for line in found if line and line != "*"]  # "*": the slide number's placeholder
            if is_title and not title:
                title = " ".join(found)
            else:
                lines += found
            is_title = False
    return title, lines


def _notes_id(data: bytes, slide: int) -> int | None:
    """SlideAtom.notesIdRef of the slide at `slide` (0: no notes)."""
    for kind, _, at, _ in _records(data, slide, depth=1):
        if kind == SLIDE_ATOM:
            return struct.unpack_from("<I", data, at + 8 + 16)[0] or None
    return None


def _records(data: bytes, container: int, depth: int = 64) -> Iterator[tuple[int, int, int, int]]:
    """(type, instance, offset, length) of the records inside the container at `container`, depth first,
    `depth` levels down."""
    length = _header(data, container)[2]
    at, end = container + 8, min(container + 8 + length, len(data))
    while at + 8 <= end:
        version_instance, kind, length = _header(data, at)
        yield kind, version_instance >> 4, at, length
        if version_instance & 0xF == CONTAINER and depth > 1:
            yield from _records(data, at, depth - 1)
        at += 8 + length


def _header(data: bytes, at: int) -> tuple[int, int, int]:
    return struct.unpack_from("<HHI", data, at)

