"""What a document parser returns: the extracted text and its blocks, with offsets into it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Block:
    """A paragraph-like run of text: `text == doc.text[start:end]`."""

    text: str
    heading: tuple[str, ...]  # heading path, outermost first
    start: int
    end: int
    page: int | None = None  # 1-based, for paged formats
    lead: int | None = None  # where the headings right before this block start (they are cut with it)
    last_page: int | None = None  # the page it ends on, when not `page` (a sentence across a page break)


Line = tuple[str, tuple[float, float, float, float]]  # a line's text and box, as shares of the page's width/height


@dataclass(frozen=True)
class Picture:
    """A picture inside a document (a photo in a PDF, a chart on a slide), as the file holds it."""

    data: bytes  # the image file's bytes (JPEG, PNG, TIFF, ...)
    page: int | None  # the page (slide) it is on, None where the format has no pages
    alt: str = ""  # what the author wrote about it (alt text, description)


@dataclass(frozen=True)
class AttachedTable:
    """A table file attached to a message (a spreadsheet, a CSV), or a table printed on a page of a
    PDF (`printed`, as CSV): loaded as a table of its own and cited as an attachment of its message,
    or as the table on its page."""

    name: str  # the attachment's file name; a printed table's "table 2 on page 5.csv"
    data: bytes
    page: int | None  # the message's number in a mailbox (None for a file of one message); a printed table's page
    message: str = ""  # the message's subject; a printed table's title lines
    printed: bool = False
    page_starts: tuple[tuple[int, int], ...] = ()  # a printed table on several pages: (page, its first row)


@dataclass
class ParsedDoc:
    title: str
    text: str
    blocks: list[Block]
    meta: dict = field(default_factory=dict)
    page_kind: str = "page"  # what a block's `page` counts: "page", "slide" (a deck), "message" (a mailbox)
    page_fields: dict[int | None, dict[str, str]] = field(default_factory=dict)  # added to the locators of a
    # page's items (a message's from/to/date/subject); key None: those of blocks without a page (one e-mail)
    pictures: list[Picture] = field(default_factory=list)  # in reading order; engine.ingest.pictures keeps them
    page_lines: dict[int, list[Line]] = field(default_factory=dict)  # a scanned page's lines as OCR read them
    attached_tables: list[AttachedTable] = field(default_factory=list)  # a mail's spreadsheets, loaded as tables


class DocBuilder:
    """Appends blocks to one text, recording offsets and the current heading path."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []  # (level, title)
        self.title = ""
        self._lead: int | None = None  # start of the headings since the last paragraph

    def heading(self, level: int, text: str, page: int | None = None) -> None:
        text = " ".join(text.split())
        if not text:
            return
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        if not self.title:
            self.title = text
        self._append(text, page, is_heading=True)
        if self._lead is None:
            self._lead = self.length - len(text)

    def paragraph(self, text: str, page: int | None = None, last_page: int | None = None) -> None:
        text = text.strip()
        if text:
            self._append(text, page, is_heading=False, last_page=last_page)

    def _append(self, text: str, page: int | None, is_heading: bool, last_page: int | None = None) -> None:
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        if not is_heading:
            path = tuple(h for _, h in self.headings)
            self.blocks.append(Block(text, path, start, self.length, page, self._lead, last_page))
            self._lead = None

    def build(self, fallback_title: str, meta: dict | None = None, page_kind: str = "page",
              page_fields: dict[int | None, dict[str, str]] | None = None) -> ParsedDoc:
        return ParsedDoc(self.title or fallback_title, "".join(self.parts), self.blocks, meta or {}, page_kind,
                         page_fields or {})
