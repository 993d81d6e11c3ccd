"""OpenDocument text (.odt): headings and paragraphs from content.xml."""

from __future__ import annotations

import zipfile
from pathlib import Path

from engine.errors import ParseError
from engine.ingest.archives import MAX_UNPACKED_MB, check_zip
from engine.ingest.parsed import DocBuilder, ParsedDoc

KIND = "odt"
EXTENSIONS = (".odt",)
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def parse(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> ParsedDoc:
    """Headings and paragraphs; SkipFile when the parts unpack to more than `max_unpacked_mb`.
    No entity is resolved and libxml2's limits hold (depth 256, entity amplification)."""
    from lxml import etree

    check_zip(path, max_unpacked_mb)
    try:
        with zipfile.ZipFile(path) as zf:
            root = etree.fromstring(zf.read("content.xml"), parser=etree.XMLParser(resolve_entities=False))
    except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as exc:
        raise ParseError(f"corrupt .odt: {exc}") from exc
    builder = DocBuilder()
    for el in root.iter(f"{{{_TEXT}}}h", f"{{{_TEXT}}}p"):
        if any(a.tag in (f"{{{_TEXT}}}p", f"{{{_TEXT}}}h") for a in el.iterancestors()):
            continue
        text = " ".join("".join(el.itertext()).split())
        if el.tag.endswith("}h"):
            builder.heading(int(el.get(f"{{{_TEXT}}}outline-level", "1")), text)
        else:
            builder.paragraph(text)
    return builder.build(path.stem)
