"""PDF (text layer) with pypdf: pages, paragraphs rebuilt from lines, short title lines as headings."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from engine.errors import ParseError, SkipFile
from engine.ingest.parsed import DocBuilder, ParsedDoc

KIND = "pdf"
EXTENSIONS = (".pdf",)
UNPACKS = False

_END = re.compile(r"[.!?:;]['\")\]]?$")


def _is_heading(line: str, width: int) -> bool:
    words = line.split()
    return (0 < len(words) <= 10 and not _END.search(line) and len(line) < 0.7 * max(width, 40)
            and (line.isupper() or line[0].isupper() or line[0].isdigit()) and not line.endswith(","))


def add_page(builder: DocBuilder, text: str, page: int) -> None:
    lines = [" ".join(line.split()) for line in text.replace("\r", "\n").split("\n")]
    width = max((len(line) for line in lines), default=0)
    para: list[str] = []

    def flush() -> None:
        if para:
            joined = " ".join(para)
            builder.paragraph(re.sub(r"(\w)- (\w)", r"\1\2", joined), page)
            para.clear()

    for i, line in enumerate(lines):
        if not line:
            flush()
            continue
        prev_blank = i == 0 or not lines[i - 1]
        next_blank = i + 1 >= len(lines) or not lines[i + 1]
        if _is_heading(line, width) and (prev_blank or next_blank or not para):
            flush()
            builder.heading(2, line, page)
            continue
        para.append(line)
        if _END.search(line) and len(line) < 0.75 * width:
            flush()
    flush()


def parse(path: Path) -> ParsedDoc:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ParseError("encrypted PDF: a password is needed to read it")
        pages = reader.pages
        builder = DocBuilder()
        for number, page in enumerate(pages, start=1):
            add_page(builder, page.extract_text() or "", number)
        info_title = (reader.metadata.title if reader.metadata else None) or ""
    except (ParseError, SkipFile):
        raise
    except FileNotDecryptedError as exc:
        raise ParseError("encrypted PDF: a password is needed to read it") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, AssertionError,
            RecursionError, NotImplementedError) as exc:
        raise ParseError(f"corrupt PDF: {type(exc).__name__}: {exc}".strip(": ")) from exc
    except Exception as exc:  # pypdf raises many kinds on broken files
        if "encrypt" in str(exc).lower() or "decrypt" in str(exc).lower():
            raise ParseError(f"encrypted PDF: {exc}") from exc
        raise ParseError(f"corrupt PDF: {type(exc).__name__}: {exc}") from exc
    if not builder.blocks:
        raise SkipFile(f"no text layer in its {len(pages)} page(s): the pages are images (a scan?); "
                       "OCR of PDF pages is not enabled")
    doc = builder.build(path.stem, {"pages": len(pages)})
    if isinstance(info_title, str) and info_title.strip():
        doc.title = info_title.strip()
    return doc
