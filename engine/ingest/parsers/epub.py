"""EPUB: the chapters in spine order, each read as HTML."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path

from engine.errors import ParseError
from engine.ingest.archives import MAX_UNPACKED_MB, check_zip
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers.html import add_html

KIND = "epub"
EXTENSIONS = (".epub",)
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit


def parse(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> ParsedDoc:
    """The chapters' text; SkipFile when the parts unpack to more than `max_unpacked_mb`. The
    package XML resolves no entities (libxml2 refuses entity bombs); chapters are read as HTML,
    whose parser ignores a DTD's entities."""
    from lxml import etree

    check_zip(path, max_unpacked_mb)
    safe = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        with zipfile.ZipFile(path) as zf:
            container = etree.fromstring(zf.read("META-INF/container.xml"), parser=safe)
            opf_path = container.find(".//{*}rootfile").get("full-path")
            opf = etree.fromstring(zf.read(opf_path), parser=safe)
            manifest = {i.get("id"): i.get("href") for i in opf.iter("{*}item")}
            spine = [manifest[r.get("idref")] for r in opf.iter("{*}itemref") if r.get("idref") in manifest]
            title_el = opf.find(".//{*}title")
            builder = DocBuilder()
            base = posixpath.dirname(opf_path)
            for href in spine:
                add_html(builder, zf.read(posixpath.normpath(posixpath.join(base, href))))
    except (zipfile.BadZipFile, KeyError, AttributeError, etree.XMLSyntaxError) as exc:
        raise ParseError(f"corrupt EPUB: {exc}") from exc
    doc = builder.build(path.stem)
    if title_el is not None and (title_el.text or "").strip():
        doc.title = title_el.text.strip()
    return doc
