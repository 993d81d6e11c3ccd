"""EPUB: the chapters in spine order, each read as HTML."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path

from engine.errors import ParseError
from engine.ingest.document import DocBuilder, ParsedDoc
from engine.ingest.parsers.html import add_html

KIND = "epub"
EXTENSIONS = (".epub",)


def parse(path: Path) -> ParsedDoc:
    from lxml import etree

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
