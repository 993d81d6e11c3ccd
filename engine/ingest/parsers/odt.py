"""OpenDocument text (.odt): headings and paragraphs from content.xml."""

from __future__ import annotations

import zipfile
from pathlib import Path

from engine.errors import ParseError
from engine.ingest.document import DocBuilder, ParsedDoc

KIND = "odt"
EXTENSIONS = (".odt",)

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def parse(path: Path) -> ParsedDoc:
    from lxml import etree

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
