"""HTML: main text by block elements, boilerplate (nav, footer, scripts) dropped."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.textio import read_text

if TYPE_CHECKING:
    from lxml.html import HtmlElement

KIND = "html"
EXTENSIONS = (".html", ".htm", ".xhtml")
UNPACKS = False

DROP = ("script", "style", "noscript", "nav", "footer", "header", "aside", "form", "svg", "iframe", "template",
        "button", "select")
HEADINGS = {f"h{n}": n for n in range(1, 7)}
# class/id words of page furniture that is not the page's content
FURNITURE = ("cookie", "banner", "sidebar", "related", "comment", "share", "subscribe", "newsletter", "advert",
             "promo", "breadcrumb", "menu", "popup", "modal", "skip-link")
BLOCKS = {"p", "li", "pre", "blockquote", "dd", "dt", "td", "th", "figcaption", "caption", "address"}


def _text(el: HtmlElement) -> str:
    return " ".join(el.text_content().split())


def add_html(builder: DocBuilder, markup: str | bytes, page: int | None = None, below: int = 0,
             images: list[tuple[str, str]] | None = None) -> str:
    """Append an HTML document's blocks to `builder`, its headings `below` levels under the current
    one (an e-mail's body under its subject), and the (src, alt) of the pictures it shows to
    `images` when given; returns its <title>."""
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
        if tag in HEADINGS:
            builder.heading(HEADINGS[tag] + below, _text(el), page)
        elif tag in BLOCKS and not any(a in seen_blocks for a in el.iterancestors()):
            seen_blocks.add(el)
            builder.paragraph(_text(el), page)
        elif tag == "div" and el.text and el.text.strip() and not any(a in seen_blocks for a in el.iterancestors()):
            builder.paragraph(" ".join(el.text.split()), page)
    return title


def parse(path: Path) -> ParsedDoc:
    builder = DocBuilder()
    title = add_html(builder, read_text(path))
    doc = builder.build(title or path.stem)
    if title:
        doc.title = title
    return doc
