"""Word .docx with python-docx: heading styles give the heading path; tables become rows of text."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from engine.errors import ParseError
from engine.ingest.document import DocBuilder, ParsedDoc

KIND = "docx"
EXTENSIONS = (".docx",)

_HEADING = re.compile(r"^(?:heading|überschrift|titre|título)\s*(\d)", re.IGNORECASE)


def parse(path: Path) -> ParsedDoc:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, PackageNotFoundError, KeyError, ValueError) as exc:
        raise ParseError(f"corrupt .docx (not a valid Word document): {exc}") from exc
    builder = DocBuilder()
    title = (document.core_properties.title or "").strip()
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            para = Paragraph(child, document)
            style = (para.style.name if para.style is not None else "") or ""
            text = para.text
            if style == "Title":
                title = title or text.strip()
                builder.heading(1, text)
            elif m := _HEADING.match(style):
                builder.heading(int(m.group(1)) + 1, text)
            else:
                builder.paragraph(text)
        elif tag == "tbl":
            for row in Table(child, document).rows:
                cells = list(dict.fromkeys(c.text.strip() for c in row.cells if c.text.strip()))
                builder.paragraph(" | ".join(cells))
    doc = builder.build(path.stem)
    if title:
        doc.title = title
    return doc
