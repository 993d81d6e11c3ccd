"""Helpers the writers share to say what a source is about (its summary and part texts, whose
embeddings match questions to sources)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.native.sources import Source


def stem(source: Source) -> str:
    """The source's name as words: `family_tree.cypher` -> `family tree`; a server's `sales_eu` -> `sales eu`."""
    return Path(source.shown).stem.replace("_", " ").replace("-", " ")


def property_words(props: list[dict]) -> list[str]:
    """Each column or property's name (its label when it has one) and up to two text values."""
    words = []
    for p in props:
        words.append(str(p.get("label") or p["name"]).replace("_", " "))
        words += [str(v) for v in (p.get("values") or p.get("samples", [])[:2]) if isinstance(v, str)]
    return words
