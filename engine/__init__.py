"""Trove's engine. Its public API, what the CLI, the app and other programs use, is importable from
here: `from engine import Trove, Settings, load_settings, AskResult, ...`. Each name is loaded on
first use, so importing `engine` stays cheap (the app starts before any model or engine module loads).
Everything else under `engine.` is internal and may change."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.browsing import ClipThumb, IndexedFile, PageText, RootSummary, page_picture, photo_pixels
    from engine.connections import holdings
    from engine.conversations.export import write_markdown
    from engine.conversations.store import Summary
    from engine.conversations.turns import Conversation, Turn
    from engine.errors import TroveError
    from engine.gate import Busy, Gate
    from engine.home_index import backend_problem
    from engine.ingest.extensions import PHOTO as PHOTO_SUFFIXES
    from engine.ingest.indexer import IndexReport, Progress
    from engine.ingest.preloading import preload as preload_modules
    from engine.locators import (
        Locator,
        MomentLocator,
        PassageLocator,
        PhotoLocator,
        QueryLocator,
        RegionLocator,
        as_locator,
        attachment_words,
        image_file,
        mail_words,
        page_words,
        source_name,
    )
    from engine.pipeline import Trove
    from engine.result import AskResult, Citation, QueryRun, citation_place, clock
    from engine.routing.base import Decision, Route
    from engine.scope import Scope
    from engine.settings import Settings, load_settings

_PUBLIC = {
    "Trove": "engine.pipeline", "Settings": "engine.settings", "load_settings": "engine.settings",
    "AskResult": "engine.result", "Citation": "engine.result", "QueryRun": "engine.result",
    "citation_place": "engine.result", "clock": "engine.result",
    "IndexReport": "engine.ingest.indexer", "Progress": "engine.ingest.indexer",
    "RootSummary": "engine.browsing", "PageText": "engine.browsing", "ClipThumb": "engine.browsing",
    "IndexedFile": "engine.browsing",
    "photo_pixels": "engine.browsing", "page_picture": "engine.browsing",
    "Decision": "engine.routing.base", "Route": "engine.routing.base",
    "Conversation": "engine.conversations.turns", "Turn": "engine.conversations.turns",
    "Summary": "engine.conversations.store", "write_markdown": "engine.conversations.export",
    "Scope": "engine.scope", "TroveError": "engine.errors", "Gate": "engine.gate", "Busy": "engine.gate",
    "PHOTO_SUFFIXES": "engine.ingest.extensions", "holdings": "engine.connections",
    "page_words": "engine.locators", "mail_words": "engine.locators", "image_file": "engine.locators",
    "attachment_words": "engine.locators",
    "source_name": "engine.locators", "backend_problem": "engine.home_index",
    "Locator": "engine.locators", "PassageLocator": "engine.locators", "QueryLocator": "engine.locators",
    "PhotoLocator": "engine.locators", "RegionLocator": "engine.locators", "MomentLocator": "engine.locators",
    "as_locator": "engine.locators", "preload_modules": "engine.ingest.preloading",
}
_RENAMED = {"PHOTO_SUFFIXES": "PHOTO", "preload_modules": "preload"}  # public name -> its name in its module
__all__ = ["AskResult", "Busy", "Citation", "ClipThumb", "Conversation", "Decision", "Gate", "IndexReport",
           "IndexedFile", "Locator", "MomentLocator", "PHOTO_SUFFIXES", "PageText", "PassageLocator",
           "PhotoLocator", "Progress", "QueryLocator", "QueryRun", "RegionLocator", "RootSummary", "Route",
           "Scope", "Settings", "Summary", "Trove", "TroveError", "Turn", "as_locator",
           "attachment_words", "backend_problem", "citation_place", "clock", "holdings", "image_file",
           "load_settings", "mail_words", "page_picture", "page_words", "photo_pixels", "preload_modules",
           "source_name", "write_markdown"]


def __getattr__(name: str) -> object:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name]), _RENAMED.get(name, name))
