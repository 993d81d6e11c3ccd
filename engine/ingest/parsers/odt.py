"""OpenDocument text (.odt): headings and paragraphs from content.xml (read as the other
OpenDocument kinds read it); its tables that read as a grid under a header are loaded as tables of
their own too (`grids`)."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.archives import MAX_UNPACKED_MB, PROTECTED, check_zip, odf_encrypted
from engine.ingest.parsed import DocBuilder, ParsedDoc, Picture
from engine.ingest.parsers import grids
from engine.ingest.pictures import Pictures

if TYPE_CHECKING:
    from lxml import etree

KIND = "odt"
EXTENSIONS = (".odt",)
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit
VERSION = 2  # 2: its tables loaded as tables

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
SVG = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
XLINK = "http://www.w3.org/1999/xlink"


def parse(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> ParsedDoc:
    """Headings and paragraphs; SkipFile when the parts unpack to more than `max_unpacked_mb`."""
    root = content(path, max_unpacked_mb)
    builder = DocBuilder()
    for el in text_elements(root):
        text = " ".join("".join(el.itertext()).split())
        if el.tag.endswith("}h"):
            builder.heading(int(el.get(f"{{{TEXT}}}outline-level", "1")), text)
        else:
            builder.paragraph(text)
    doc = builder.build(path.stem)
    doc.pictures = pictures(path, [(root, None)])
    found = [grids.table_of(_grid(table), None) for table in root.iter(f"{{{TABLE}}}table")
             if next(table.iter(f"{{{TABLE}}}table-cell"), None) is not None]
    doc.attached_tables = grids.attached([table for table in found if table is not None])
    return doc


MAX_REPEAT = 50  # columns or rows one repeated cell or row may stand for (an empty row repeated 1,000 times)


def _grid(table: etree._Element) -> grids.Grid:
    """A table's rows of cell texts: a cell repeated over columns written in each, and a merged cell
    in each column and row it covers (as a merged cell of a Word table is); a nested table's rows
    are its own."""
    rows: grids.Grid = []
    for row in table.iter(f"{{{TABLE}}}table-row"):
        if next(row.iterancestors(f"{{{TABLE}}}table")) is not table:
            continue
        cells: list[str | None] = []
        spanning, wide = None, 0  # the merged cell to the left and the columns it still covers
        for cell in row:
            if cell.tag == f"{{{TABLE}}}table-cell":
                text: str | None = " ".join(" ".join(cell.itertext()).split())
                spanning, wide = text, grids.span(cell.get(f"{{{TABLE}}}number-columns-spanned")) - 1
            elif cell.tag == f"{{{TABLE}}}covered-table-cell":
                column = len(cells)
                text = spanning if wide > 0 else (rows[-1][column] if rows and column < len(rows[-1]) else None)
                wide -= 1
            else:
                continue
            cells += [text] * grids.span(cell.get(f"{{{TABLE}}}number-columns-repeated"), MAX_REPEAT)
        rows += [cells] * grids.span(row.get(f"{{{TABLE}}}number-rows-repeated"), MAX_REPEAT)
    return rows



def pictures(path: Path, places: Sequence[tuple[etree._Element, int | None]]) -> list[Picture]:
    """The pictures shown under each element of `places` (on its page, or None), from the package's
    own parts (a linked file outside it is passed over), with their frame's title and description."""
    found = Pictures()
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        for element, page in places:
            for frame in element.iter(f"{{{DRAW}}}frame"):
                image = frame.find(f"{{{DRAW}}}image")
                href = image.get(f"{{{XLINK}}}href", "") if image is not None else ""
                if href in names and not found.full:
                    found.add(zf.read(href), page, described(frame))
    return found.kept


def described(frame: etree._Element) -> str:
    """A frame's title and description as its author wrote them (a picture's alt text)."""
    return " ".join(" ".join(el.itertext()).strip() for el in frame if el.tag in (f"{{{SVG}}}title", f"{{{SVG}}}desc"))


def content(path: Path, max_unpacked_mb: float) -> etree._Element:
    """An OpenDocument file's content.xml, once its unpacked size is checked; ParseError when
    unreadable. No entity is resolved and libxml2's limits hold (depth 256, entity amplification)."""
    from lxml import etree

    check_zip(path, max_unpacked_mb)
    try:
        with zipfile.ZipFile(path) as zf:
            if odf_encrypted(zf):
                raise ParseError(PROTECTED.format(what=f"{path.suffix.lower()} file"))
            return etree.fromstring(zf.read("content.xml"), parser=etree.XMLParser(resolve_entities=False))
    except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as exc:
        raise ParseError(f"corrupt {path.suffix.lower()}: {exc}") from exc


def text_elements(root: etree._Element) -> Iterator[etree._Element]:
    """The headings and paragraphs under `root` that are not inside another paragraph."""
    for el in root.iter(f"{{{TEXT}}}h", f"{{{TEXT}}}p"):
        if not any(a.tag in (f"{{{TEXT}}}p", f"{{{TEXT}}}h") for a in el.iterancestors()):
            yield el
