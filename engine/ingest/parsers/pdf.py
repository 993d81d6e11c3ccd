"""PDF (text layer) with pypdf: pages, paragraphs rebuilt from lines, short title lines as headings,
running heads and feet (a journal's "47699 Federal Register / Vol. 85 …", a printer's slug line)
taken out so they are not glued into the paragraphs they interrupt. Tables ruled on its text pages
are read as tables too (`pdf_tables`), loaded beside the paragraphs. Pages with (almost) no text
layer are listed in `meta["image_pages"]`: a scan, which
`engine.ingest.scans` renders and reads with OCR, giving their text back to `parse` (`page_texts`)."""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError, SkipFile
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers import pdf_tables
from engine.ingest.pictures import Pictures

if TYPE_CHECKING:
    from pypdf import PageObject

KIND = "pdf"
VERSION = 8  # 2: running heads out; 3: a sentence across a page break in one paragraph; 4: with its last page;
# 5: its printed tables; 6: a number run into the word after it spaced; 7: short lines no paragraph follows kept;
# 8: a printed table's rows keep their pages
EXTENSIONS = (".pdf",)
UNPACKS = False

_END = re.compile(r"[.!?:;]['\")\]]?$")
MIN_PAGE_CHARS = 20  # a page whose text layer holds fewer letters and digits is an image of a page
EDGE_LINES = 3  # a running head or foot is among a page's first or last lines
RUNNING_MIN_CHARS = 8  # shorter edge lines (a bare page number) are left alone
RUNNING_KEY_CHARS = 40  # edge lines are compared by their start, numbers masked (a slug's tail varies)
_DIGITS = re.compile(r"\d+")
_AMOUNT = re.compile(r"\d[.,]\d{2}\b")  # "1,234.56": a statement's balance line, not a running foot


def _key(line: str) -> str:
    return _DIGITS.sub("#", line)[:RUNNING_KEY_CHARS]


def _is_heading(line: str, width: int) -> bool:
    words = line.split()
    return (0 < len(words) <= 10 and not _END.search(line) and len(line) < 0.7 * max(width, 40)
            and (line.isupper() or line[0].isupper() or line[0].isdigit()) and not line.endswith(","))


def page_lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.replace("\r", "\n").split("\n")]


def running_lines(texts: list[str]) -> tuple[set[str], set[str]]:
    """The lines at the top or bottom of at least half the pages (and 3), by their start with
    numbers masked (`_key`): those spelt differently from page to page (a page number, a slug's
    frame number), never content, and those printed the same on every page, kept once."""
    if len(texts) < 3:
        return set(), set()
    seen: Counter[str] = Counter()
    spellings: dict[str, set[str]] = {}
    for text in texts:
        lines = [line for line in page_lines(text) if line]
        edges = {line for line in lines[:EDGE_LINES] + lines[-EDGE_LINES:] if not _AMOUNT.search(line)}
        for line in edges:
            key = _key(line)
            seen[key] += 1
            spellings.setdefault(key, set()).add(line)
    common = {k for k, n in seen.items() if n >= max(3, len(texts) / 2) and len(k) >= RUNNING_MIN_CHARS}
    varying = {k for k in common if len(spellings[k]) > 1}
    return varying, common - varying


def without_running(texts: list[str]) -> list[str]:
    """Each page's text without its running heads and feet (one printed the same on every page is
    kept where it first appears)."""
    varying, same = running_lines(texts)
    if not varying and not same:
        return texts
    shown: set[str] = set()
    out = []
    for text in texts:
        lines = page_lines(text)
        filled = [i for i, line in enumerate(lines) if line]
        edges = set(filled[:EDGE_LINES] + filled[-EDGE_LINES:])
        kept = []
        for i, line in enumerate(lines):
            key = _key(line)
            if i in edges and (key in varying or (key in same and key in shown)):
                continue
            shown.add(key)
            kept.append(line)
        out.append("\n".join(kept))
    return out


Entry = tuple[str, str, int]  # ("heading" or "paragraph", its text, the page it ends on when another, else 0)


def page_entries(text: str) -> list[Entry]:
    """A page's text as headings and paragraphs, in order: lines joined into paragraphs, a word split
    at a line's end joined again ("inter- national" -> "international", "Soekarno- Hatta" keeps its
    hyphen), short title lines as headings."""
    lines = page_lines(text)
    width = max((len(line) for line in lines), default=0)
    entries: list[Entry] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            entries.append(("paragraph", joined_words(" ".join(para)), 0))
            para.clear()

    for i, line in enumerate(lines):
        if not line:
            flush()
            continue
        prev_blank = i == 0 or not lines[i - 1]
        next_blank = i + 1 >= len(lines) or not lines[i + 1]
        if _is_heading(line, width) and (prev_blank or next_blank or not para):
            flush()
            entries.append(("heading", line, 0))
            continue
        para.append(line)
        if _END.search(line) and len(line) < 0.75 * width:
            flush()
    flush()
    return entries


_RUN_ON = re.compile(r"(?<=\d)(?=[A-Z]{2,}[a-z]*\b|[A-Z][a-z]{2,})")


def unglued(text: str) -> str:
    """A number run into the word after it, spaced: a table's cells drawn apart on the page come out of
    the text layer as "NEEL KASHKARI 247REP" and "37,499.96DISTRICT DIRECTOR", which no search for
    "247" or "district" finds. An identifier with letters after its digits ("0050003A", "H2SO4",
    "2nd") is left as it is."""
    return _RUN_ON.sub(" ", text)


def joined_words(text: str) -> str:
    """A word split by a hyphen at a line's end, joined: without it when the rest is lower case
    ("inter- national"), with it before a capital (a name: "Soekarno- Hatta")."""
    return re.sub(r"(\w)- (?=[A-Z])", r"\1-", re.sub(r"(\w)- ([a-z])", r"\1\2", text))


_FOOTNOTE = re.compile(r"^\d{1,3}\s+\S")  # "6 Flight data recorder (FDR) data …": a note at the page's foot
_PAGE_NUMBER = re.compile(r"(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[-–—]\s*\d{1,4}\s*[-–—]", re.IGNORECASE)
ASIDES_PASSED = 6  # footnotes, page numbers and running heads a sentence running on to the next page may pass


def stitched(pages: list[list[Entry]]) -> list[list[Entry]]:
    """The pages with a sentence that runs from one page to the next in one paragraph, on the page
    it starts on: the page's last paragraph is unfinished (no full stop; only footnotes and a page
    number after it) and the next page goes on with a lower-case word, or a word after a hyphen,
    past its own footnotes, page number and running head (a sentence does not stop half-way for a
    new section)."""
    pages = [list(entries) for entries in pages]
    open_end: tuple[int, int] | None = None  # (page, entry) of the paragraph still running on
    for number, after in enumerate(pages):
        if open_end is not None:
            page, at = open_end
            tail = pages[page][at][1]
            for i, (kind, text, _) in enumerate(after[:ASIDES_PASSED + 1]):
                if _aside(kind, text) or kind == "heading":  # a running head at the top: the sentence goes on
                    continue
                if kind == "paragraph" and (text[:1].islower() or (tail.endswith("-") and text[:1].isalpha())):
                    pages[page][at] = ("paragraph", joined_words(f"{tail} {text}"), number + 1)
                    del after[i]
                break
            if all(_aside(kind, text) for kind, text, _ in after) and not _END.search(pages[page][at][1]):
                continue  # the whole page ran on into it: the paragraph may run on further
        found = _open_end(after)
        open_end = None if found is None else (number, found)
    return pages


def _open_end(entries: list[Entry]) -> int | None:
    """Where the page's last paragraph is, when it is unfinished and only asides come after it."""
    for i in range(len(entries) - 1, max(-1, len(entries) - 2 - ASIDES_PASSED), -1):
        kind, text, _ = entries[i]
        if _aside(kind, text):
            continue
        return i if kind == "paragraph" and not _END.search(text) else None
    return None


def _aside(kind: str, text: str) -> bool:
    """A footnote or a page number: printed beside the running text, not part of it."""
    return bool(_PAGE_NUMBER.fullmatch(text.strip()) or (kind == "paragraph" and _FOOTNOTE.match(text)))


def add_pages(builder: DocBuilder, pages: list[list[Entry]]) -> None:
    """The pages' entries into the document. A heading is a guess from a short line; the short lines
    after the last paragraph ("Name: Foo Bar / Fingerprint: asdfSa2123", a form's fields) head
    nothing, and as headings they would reach no passage: they are a paragraph of their page (less
    a page number)."""
    entries = [(number, kind, text, last) for number, page in enumerate(pages, start=1) for kind, text, last in page]
    tail = next((i + 1 for i in range(len(entries) - 1, -1, -1) if entries[i][1] != "heading"), 0)
    for number, kind, text, last in entries[:tail]:
        if kind == "heading":
            builder.heading(2, text, number)
        else:
            builder.paragraph(text, number, last or None)
    held = [(number, text) for number, kind, text, _ in entries[tail:] if not _aside(kind, text)]  # not "4"
    for number in dict.fromkeys(number for number, _ in held):
        builder.paragraph("\n".join(text for at, text in held if at == number), number)


def parse(path: Path, page_texts: dict[int, str] | None = None, pictures: bool = True,
          tables: bool = True) -> ParsedDoc:
    """The PDF's pages as blocks, and (with `pictures`, `tables`) the pictures and the tables on its
    text pages; a page of `page_texts` (1-based, e.g. its OCR text) is read from there instead of
    its text layer."""
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ParseError("encrypted PDF: a password is needed to read it")
        pages = reader.pages
        builder, image_pages, found, texts, tabular = DocBuilder(), [], Pictures(), [], []
        for number, page in enumerate(pages, start=1):
            text = page.extract_text() or ""
            if sum(c.isalnum() for c in text) < MIN_PAGE_CHARS:
                image_pages.append(number)  # the page is a picture: its text is read with OCR, not as a photo
            else:
                if pictures:
                    _add_pictures(found, page, number)
                if tables and pdf_tables.tabular(text):
                    tabular.append(number)
            texts.append((page_texts or {}).get(number, unglued(text)))
        add_pages(builder, stitched([page_entries(text) for text in without_running(texts)]))
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
    if not builder.blocks and not image_pages:
        raise SkipFile(f"no text in its {len(pages)} page(s)")
    doc = builder.build(path.stem, {"pages": len(pages), "image_pages": image_pages})
    doc.pictures = found.kept
    doc.attached_tables = pdf_tables.read(path, tabular) if tabular else []
    if isinstance(info_title, str) and info_title.strip():
        doc.title = info_title.strip()
    return doc


def _add_pictures(found: Pictures, page: PageObject, number: int) -> None:
    """The page's raster images (pypdf decodes each into an image file); a broken image stream
    loses that picture, never the page's text."""
    if found.full:
        return
    try:
        for image in page.images:
            found.add(image.data, number)
            if found.full:
                return
    except Exception:  # pypdf raises many kinds on broken image streams
        return
