"""Markdown (CommonMark-ish): ATX/setext headings, front matter, lists, code fences."""

from __future__ import annotations

import re
from pathlib import Path

from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.textio import read_text

KIND = "markdown"
EXTENSIONS = (".md", ".markdown", ".mdown")
UNPACKS = False

_ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^(=+|-+)\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _cells(row: str) -> list[str]:
    return [inline_to_text(c) for c in row.strip().strip("|").split("|")]


def table_rows(lines: list[str]) -> list[str]:
    """A pipe table as one sentence per row, 'Header: value; …', so each row reads on its own."""
    header = _cells(lines[0])
    out = []
    for line in lines[2:]:
        pairs = [f"{h}: {v}" if h else v for h, v in zip(header, _cells(line), strict=False) if v]
        out.append("; ".join(pairs) + ".")
    return out


def inline_to_text(text: str) -> str:
    """Strip inline markup: images/links keep their text, emphasis and code marks go."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[\[([^\]|]+)\|([^\]]+)\]\]", r"\2", text)
    text = re.sub(r"\[\[([^\]]+)\]\]", r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])[*_](?!\s)(.+?)(?<!\s)[*_](?![\w*])", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return " ".join(text.split())


def split_front_matter(text: str) -> tuple[dict, str]:
    """YAML-ish `key: value` front matter between `---` lines (simple scalars and lists)."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    meta: dict = {}
    for line in text[3:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "-")):
            meta[key.strip()] = value.strip().strip("\"'")
    body_start = text.find("\n", end + 4)
    return meta, text[body_start + 1:] if body_start >= 0 else ""


def parse(path: Path) -> ParsedDoc:
    meta, body = split_front_matter(read_text(path).replace("\r\n", "\n"))
    builder = DocBuilder()
    lines = body.split("\n")
    para: list[str] = []
    in_fence = False

    def flush() -> None:
        if para:
            builder.paragraph(inline_to_text(" ".join(para)) if not in_fence else "\n".join(para))
            para.clear()

    table: list[str] = []
    for i, line in enumerate(lines):
        if not in_fence and _TABLE_ROW.match(line):
            if not table:
                flush()
            table.append(line)
            continue
        if table:
            if len(table) > 2 and _TABLE_RULE.match(table[1]):
                for row in table_rows(table):
                    builder.paragraph(row)
            else:
                para.extend(table)
            table = []
        if _FENCE.match(line):
            if in_fence:
                builder.paragraph("\n".join(para))
                para.clear()
                in_fence = False
            else:
                flush()
                in_fence = True
            continue
        if in_fence:
            para.append(line)
            continue
        if m := _ATX.match(line):
            flush()
            builder.heading(len(m.group(1)), inline_to_text(m.group(2)))
        elif _SETEXT.match(line) and para and i > 0 and lines[i - 1].strip():
            title = para.pop()
            flush()
            builder.heading(1 if line.lstrip().startswith("=") else 2, inline_to_text(title))
        elif not line.strip():
            flush()
        elif _LIST.match(line):
            flush()  # each list item is its own block; indented lines continue it
            para.append(_LIST.sub("", line, count=1))
        else:
            para.append(line.strip().lstrip(">").strip())
    if table and len(table) > 2 and _TABLE_RULE.match(table[1]):
        for row in table_rows(table):
            builder.paragraph(row)
    else:
        para.extend(table)
    flush()
    doc = builder.build(meta.get("title") or path.stem, meta)
    if meta.get("title"):
        doc.title = meta["title"]
    return doc
