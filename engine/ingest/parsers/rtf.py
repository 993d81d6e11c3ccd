"""Rich Text Format (.rtf) with striprtf: each line of text a paragraph (chunking gathers short
ones); the title from the document's info group when it has one."""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import ParseError, SkipFile
from engine.ingest.parsed import DocBuilder, ParsedDoc

KIND = "rtf"
EXTENSIONS = (".rtf",)
UNPACKS = False

_CODE_PAGE = re.compile(rb"\\ansicpg(\d{3,5})")
_TITLE = re.compile(r"\{\\title\s+([^{}]*)\}")


def parse(path: Path) -> ParsedDoc:
    from striprtf.striprtf import rtf_to_text

    raw = path.read_bytes()
    if not raw.strip():
        raise SkipFile("empty file")
    if not raw.lstrip().startswith(b"{\\rtf"):
        raise ParseError("not an RTF document: it does not start with '{\\rtf'")
    markup = raw.decode("latin-1")  # RTF is 7-bit; \'xx escapes are decoded with the code page below
    encoding = _encoding(raw)
    try:
        text = rtf_to_text(markup, encoding=encoding, errors="replace")
        found = _TITLE.search(markup)
        title = rtf_to_text(f"{{\\rtf1 {found.group(1)}}}", encoding=encoding, errors="replace") if found else ""
    except (ValueError, IndexError, RecursionError) as exc:
        raise ParseError(f"unreadable RTF: {exc}") from exc
    builder = DocBuilder()
    for line in text.splitlines():
        builder.paragraph(" ".join(line.split()))
    return builder.build(" ".join(title.split()) or path.stem)


def _encoding(raw: bytes) -> str:
    """The code page the document declares (\\ansicpg1252), cp1252 when none or one Python lacks."""
    found = _CODE_PAGE.search(raw[:4096])
    name = f"cp{found.group(1).decode()}" if found else "cp1252"
    try:
        "".encode(name)
    except LookupError:
        return "cp1252"
    return name
