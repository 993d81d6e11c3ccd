"""Document parsers, one module per kind, each implementing `DocumentParser` (mypy checks every
one against it): `KIND`, `EXTENSIONS`, `UNPACKS` and `parse(path) -> ParsedDoc`; a zip-based kind
(`UNPACKS = True`) also takes `max_unpacked_mb`. A new kind is one module plus one entry in `PARSERS`.
A module whose reading changes what it gives for a file it read before raises its `VERSION` (1 when
absent): the indexer reads that kind's files again.
The mail kinds are objects built with `parser_for`, which reads their attachments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from engine.ingest.parsed import ParsedDoc
from engine.ingest.parsers import doc, docx, epub, html, markdown, odp, odt, pdf, plain, ppt, pptx, rst, rtf
from engine.ingest.parsers.eml import Eml
from engine.ingest.parsers.mbox import Mbox
from engine.ingest.parsers.msg import Msg


class DocumentParser(Protocol):
    """Read-only members, so that a module's `EXTENSIONS = (".odp",)` is one."""

    @property
    def KIND(self) -> str: ...

    @property
    def EXTENSIONS(self) -> tuple[str, ...]: ...

    @property
    def UNPACKS(self) -> bool: ...  # a zip of XML parts: `parse` takes `max_unpacked_mb` too

    def parse(self, path: Path, /) -> ParsedDoc: ...


def kind_of(path: Path) -> str | None:
    """The document kind of a path by its extension, or None when no parser handles it."""
    parser = _parser_of(path)
    return parser.KIND if parser else None


def version_of(kind: str) -> int:
    """The version of the parser of a document kind (1 when it sets none, or for no parser)."""
    return int(getattr(PARSERS.get(kind), "VERSION", 1))


def unpacks(path: Path) -> bool:
    """Whether the path's kind is a zip of XML parts (docx, odt, epub, pptx, odp)."""
    parser = _parser_of(path)
    return parser is not None and parser.UNPACKS


def parser_for(path: Path, max_unpacked_mb: float | None = None) -> Callable[[Path], ParsedDoc] | None:
    """`parse(path)` for the path's kind, None when no parser handles it; a zip-based kind's parser
    gets `max_unpacked_mb` when given (else its own default, the setting's)."""
    parser = _parser_of(path)
    if parser is None:
        return None
    if max_unpacked_mb is not None and parser.UNPACKS:
        return functools.partial(parser.parse, max_unpacked_mb=max_unpacked_mb)  # type: ignore[call-arg]  # UNPACKS
    return parser.parse


def _parser_of(path: Path) -> DocumentParser | None:
    if path.name == "mbox" and path.parent.suffix.lower() == ".mbox":  # Apple Mail's export: NAME.mbox/mbox
        return PARSERS[Mbox.KIND]
    return _BY_EXTENSION.get(path.suffix.lower())


PARSERS: dict[str, DocumentParser] = {parser.KIND: parser for parser in (
    plain, markdown, rst, html, rtf, pdf, doc, docx, odt, epub, ppt, pptx, odp, Eml(parser_for), Mbox(parser_for),
    Msg(parser_for))}
_BY_EXTENSION = {ext: parser for parser in PARSERS.values() for ext in parser.EXTENSIONS}
