"""EPUB: the chapters in spine order, each read as HTML."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from urllib.parse import unquote

from engine.errors import ParseError
from engine.ingest.archives import MAX_UNPACKED_MB, check_zip
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers.html import add_html
from engine.ingest.pictures import Pictures

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
            builder, pictures = DocBuilder(), Pictures()
            base = posixpath.dirname(opf_path)
            for href in spine:
                chapter = posixpath.normpath(posixpath.join(base, href))
                markup = zf.read(chapter)
                add_html(builder, markup)
                _add_pictures(pictures, zf, chapter, markup)
    except (zipfile.BadZipFile, KeyError, AttributeError, etree.XMLSyntaxError) as exc:
        raise ParseError(f"corrupt EPUB: {exc}") from exc
    doc = builder.build(path.stem)
    doc.pictures = pictures.kept
    if title_el is not None and (title_el.text or "").strip():
        doc.title = title_el.text.strip()
    return doc


def _add_pictures(pictures: Pictures, zf: zipfile.ZipFile, chapter: str, markup: bytes) -> None:
    """The pictures a chapter shows (<img>), with their alt text; an image missing from the book is
    passed over."""
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.document_fromstring(markup)
    except (etree.ParserError, ValueError):
        return
    names = set(zf.namelist())
    for img in root.iter("img"):
        source = posixpath.normpath(posixpath.join(posixpath.dirname(chapter), unquote(img.get("src") or "")))
        if source in names and not pictures.full:
            pictures.add(zf.read(source), None, img.get("alt") or "")
