"""reStructuredText: underlined (and overlined) section titles, directives dropped."""

from __future__ import annotations

import re
from pathlib import Path

from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.textio import read_text

KIND = "rst"
EXTENSIONS = (".rst",)
UNPACKS = False

_ADORN = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")


def _inline(text: str) -> str:
    text = re.sub(r"`([^`<]+?)\s*<[^>]+>`_+", r"\1", text)
    text = re.sub(r":\w+:`([^`]+)`", r"\1", text)
    text = re.sub(r"\*\*(.+?)\*\*|\*(.+?)\*", lambda m: m.group(1) or m.group(2), text)
    text = text.replace("``", "")
    return " ".join(text.split())


def parse(path: Path) -> ParsedDoc:
    lines = read_text(path).replace("\r\n", "\n").split("\n")
    builder = DocBuilder()
    levels: list[str] = []  # adornment styles in order of first appearance
    para: list[str] = []
    in_directive = False
    i = 0

    def flush() -> None:
        if para:
            builder.paragraph(_inline(" ".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _ADORN.match(line) and i + 2 < len(lines) and _ADORN.match(lines[i + 2]) and lines[i + 1].strip():
            style, title, i = "over" + line.strip()[0], lines[i + 1], i + 3  # overlined title
        elif line.strip() and _ADORN.match(nxt) and len(nxt.strip()) >= len(line.strip()) - 1:
            style, title, i = nxt.strip()[0], line, i + 2
        else:
            style = ""
        if style:
            flush()
            in_directive = False
            if style not in levels:
                levels.append(style)
            builder.heading(levels.index(style) + 1, _inline(title))
            continue
        if line.startswith(".. "):
            flush()
            in_directive = True
        elif not line.strip():
            flush()
        elif in_directive and line.startswith((" ", "\t")):
            pass
        else:
            in_directive = False
            para.append(re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", line).strip())
        i += 1
    flush()
    return builder.build(path.stem)
