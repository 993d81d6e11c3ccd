"""Plain text: paragraphs are separated by blank lines."""

from __future__ import annotations

import re
import string
from pathlib import Path

from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.textio import read_text

KIND = "text"
EXTENSIONS = (".txt", ".text")
UNPACKS = False

_BLANK = re.compile(r"\n\s*\n")


def paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, inner line breaks joined."""
    return [" ".join(p.split()) for p in _BLANK.split(text.replace("\r\n", "\n")) if p.strip()]


_UNDERLINE = re.compile(r"^(.{2,80})\n[=\-~]{3,}\s*(?:\n|$)")


def _heading_of(raw: str) -> tuple[int, str, str] | None:
    """(level, title, rest) when a raw paragraph opens with an underlined or ALL-CAPS title line."""
    if m := _UNDERLINE.match(raw.strip()):
        level = 1 if raw.strip().split("\n")[1].startswith("=") else 2
        return level, m.group(1).strip(), raw.strip()[m.end():]
    first, _, rest = raw.strip().partition("\n")
    if first.isupper() and len(first.split()) <= 10 and not first.rstrip().endswith((".", ",")):
        return 2, first.strip(), rest
    return None


def parse(path: Path) -> ParsedDoc:
    builder = DocBuilder()
    for raw in _BLANK.split(read_text(path).replace("\r\n", "\n")):
        if not raw.strip():
            continue
        if found := _heading_of(raw):
            level, title, raw = found
            builder.heading(level, string.capwords(title) if title.isupper() else title)
        builder.paragraph(" ".join(raw.split()))
    return builder.build(builder.title or path.stem)
