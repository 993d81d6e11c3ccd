"""OpenDocument text (.odt): headings and paragraphs from content.xml (read as the other
OpenDocument kinds read it)."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.archives import MAX_UNPACKED_MB, PROTECTED, check_zip, odf_encrypted
from engine.ingest.parsed import DocBuilder, ParsedDoc

if TYPE_CHECKING:
    from lxml import etree

KIND = "odt"
EXTENSIONS = (".odt",)
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


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
    return builder.build(path.stem)


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
