from __future__ import annotations

from pathlib import Path

from engine.ingest.parsed import ParsedDoc
from engine.ingest.parsers import parser_for


def parsed(path: Path) -> ParsedDoc:
    """The file read by its kind's parser, its blocks' offsets checked against its text."""
    parse = parser_for(path)
    assert parse is not None, path
    doc = parse(path)
    for block in doc.blocks:
        assert doc.text[block.start:block.end] == block.text
    return doc
