"""HTML: main text by block elements, boilerplate (nav, footer, scripts) dropped; a table row is one
paragraph of its cells, and a saved page's tables that read as a grid under a header are loaded as
tables of their own too (`grids`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers import grids
from engine.ingest.textio import read_text

if TYPE_CHECKING:
    from lxml.html import HtmlElement

KIND = "html"
EXTENSIONS = (".html", ".htm", ".xhtml")
UNPACKS = False
VERSION = 2  # 2: a table row as one paragraph; tables loaded as tables

DROP = ("script", "style", "noscript", "nav", "footer", "header", "aside", "form", "svg", "iframe", "template",
        "button", "select")
HEADINGS = {f"h{n}": n for n in range(1, 7)}
# class/id words of page furniture that is not the page's content
FURNITURE = ("cookie", "banner", "sidebar", "related", "comment", "share", "subscribe", "newsletter", "advert",
             "promo", "breadcrumb", "menu", "popup", "modal", "skip-link")
BLOCKS = {"p", "li", "pre", "blockquote", "dd", "dt", "td", "th", "figcaption", "caption", "address"}
MAX_SPAN = 50  # columns a cell's colspan may fill


def _text(el: HtmlElement) -> str:
    return " ".join(el.text_content().split())


def add_html(builder: DocBuilder, markup: str | bytes, page: int | None = None, below: int = 0,
             images: list[tuple[str, str]] | None = None, tables: list[grids.PrintedTable] | None = None) -> str:
    """Append an HTML document's blocks to `builder`, its headings `below` levels under the current
    one (an e-mail's body under its subject), the (src, alt) of the pictures it shows to `images`
    and its tables that read as tables to `tables`, when given; returns its <title>."""
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.document_fromstring(markup)
    except (etree.ParserError, ValueError) as exc:
        raise ParseError(f"not parseable as HTML: {exc}") from exc
    title_el = root.find(".//title")
    title = _text(title_el) if title_el is not None else ""
    for el in list(root.iter(*DROP)):
        el.drop_tree()
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        marks = f"{el.get('class', '')} {el.get('id', '')} {el.get('role', '')}".lower()
        if el.getparent() is not None and (any(w in marks for w in FURNITURE) or "navigation" in marks):
            el.drop_tree()
    body = root.find("body")
    walk_root = body if body is not None else root
    seen_blocks = set()
    for el in walk_root.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == "img" and images is not None:
            images.append((el.get("src") or "", el.get("alt") or ""))
        if tag == "table" and tables is not None:
            _add_table(el, tables)
        if tag in HEADINGS:
            builder.heading(HEADINGS[tag] + below, _text(el), page)
        elif tag == "tr" and not any(a in seen_blocks for a in el.iterancestors()):
            seen_blocks.add(el)
            builder.paragraph(grids.row_text([_text(cell) for cell in el if cell.tag in ("td", "th")]), page)
        elif tag in BLOCKS and not any(a in seen_blocks for a in el.iterancestors()):
            seen_blocks.add(el)
            builder.paragraph(_text(el), page)
        elif tag == "div" and el.text and el.text.strip() and not any(a in seen_blocks for a in el.iterancestors()):
            builder.paragraph(" ".join(el.text.split()), page)
    return title


def _add_table(table: HtmlElement, tables: list[grids.PrintedTable]) -> None:
    """A table with no table inside it, when it reads as one (a page's layout tables do not)."""
    if table.find(".//table") is None and (printed := grids.table_of(_grid(table), None)):
        tables.append(printed)


def _grid(table: HtmlElement) -> grids.Grid:
    """A table's rows of cell texts, a cell spanning columns or rows repeated over them (as a merged
    cell of a Word table is)."""
    rows: grids.Grid = []
    below: dict[int, tuple[str, int]] = {}  # column -> (text, rows still to fill) of a cell spanning rows
    for row in table.iter("tr"):
        cells: list[str | None] = []
        for cell in [c for c in row if c.tag in ("td", "th")] + [None]:
            while len(cells) in below:
                text, left = below.pop(len(cells))
                cells.append(text)
                if left > 1:
                    below[len(cells) - 1] = (text, left - 1)
            if cell is None:
                break
            text = _text(cell)
            wide, tall = grids.span(cell.get("colspan"), MAX_SPAN), grids.span(cell.get("rowspan"), MAX_SPAN)
            for _ in range(wide):
                if tall > 1:
                    below[len(cells)] = (text, tall - 1)
                cells.append(text)
        rows.append(cells)
    return rows



def parse(path: Path) -> ParsedDoc:
    builder, tables = DocBuilder(), list[grids.PrintedTable]()
    title = add_html(builder, read_text(path), tables=tables)
    doc = builder.build(title or path.stem)
    doc.attached_tables = grids.attached(tables)
    if title:
        doc.title = title
    return doc
