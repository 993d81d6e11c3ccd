"""Document parsers: each module has `KIND`, `EXTENSIONS` and `parse(path) -> ParsedDoc`; a
zip-based kind also has `UNPACKS = True` and `parse(path, max_unpacked_mb)`.

A new kind is one module plus one line in `_MODULES`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from engine.ingest.document import ParsedDoc

_MODULES = ["plain", "markdown", "rst", "html", "pdf", "docx", "odt", "epub", "eml"]


def _load() -> dict[str, ModuleType]:
    by_ext: dict[str, ModuleType] = {}
    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for ext in module.EXTENSIONS:
            by_ext[ext] = module
    return by_ext


_BY_EXT: dict[str, ModuleType] | None = None


def by_extension() -> dict[str, ModuleType]:
    global _BY_EXT
    if _BY_EXT is None:
        _BY_EXT = _load()
    return _BY_EXT


def kind_of(path: Path) -> str | None:
    """The document kind of a path by its extension, or None when no parser handles it."""
    module = by_extension().get(path.suffix.lower())
    return module.KIND if module else None


def unpacks(path: Path) -> bool:
    """Whether the path's kind is a zip of XML parts (docx, odt, epub)."""
    return getattr(by_extension().get(path.suffix.lower()), "UNPACKS", False)


def parser_for(path: Path, max_unpacked_mb: float | None = None) -> Callable[[Path], ParsedDoc] | None:
    """`parse(path)` for the path's kind, None when no parser handles it; a zip-based kind's parser
    gets `max_unpacked_mb` when given (else its own default, the setting's)."""
    module = by_extension().get(path.suffix.lower())
    if module is None:
        return None
    if max_unpacked_mb is not None and unpacks(path):
        return functools.partial(module.parse, max_unpacked_mb=max_unpacked_mb)
    return module.parse
