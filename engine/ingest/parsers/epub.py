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
VERSION = 2  # 2: a table row as one paragraph


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
            builder, pictures, names = DocBuilder(), Pictures(), set(zf.namelist())
            base = posixpath.dirname(opf_path)
            for href in spine:
                chapter = posixpath.normpath(posixpath.join(base, href))
                shown: list[tuple[str, str]] = []
                add_html(builder, zf.read(chapter), images=shown)
                _add_pictures(pictures, zf, names, chapter, shown)
    except (zipfile.BadZipFile, KeyError, AttributeError, etree.XMLSyntaxError) as exc:
        raise ParseError(f"corrupt EPUB: {exc}") from exc
    doc = builder.build(path.stem)
    doc.pictures = pictures.kept
    if title_el is not None and (title_el.text or "").strip():
        doc.title = title_el.text.strip()
    return doc


def _add_pictures(pictures: Pictures, zf: zipfile.ZipFile, names: set[str], chapter: str,
                  shown: list[tuple[str, str]]) -> None:
    """The pictures a chapter shows ((src, alt) of its <img>s, src relative to the chapter); an image
    missing from the book (`names`) is passed over."""
    for src, alt in shown:
        source = posixpath.normpath(posixpath.join(posixpath.dirname(chapter), unquote(src)))
        if source in names and not pictures.full:
            pictures.add(zf.read(source), None, alt)
