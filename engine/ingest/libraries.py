"""The libraries ingest imports the first time it reads a file of their kind, loaded ahead of time.

Loading a C extension holds the interpreter lock for as long as the library takes to load (over
100 ms from a cold disk): when that happens on an indexing thread, every other thread of the
process waits, an app's window included. An app calls `preload` before its window shows."""

from __future__ import annotations

import importlib

LIBRARIES = ("numpy", "charset_normalizer", "pypdf", "pdfplumber", "pypdfium2", "docx", "pptx", "lxml.html",
             "olefile", "striprtf.striprtf", "openpyxl", "python_calamine", "duckdb", "yaml", "PIL.Image",
             "pillow_heif", "cv2", "scenedetect")


def preload() -> list[str]:
    """Import every library of `LIBRARIES` on this thread; the ones not installed (optional kinds)."""
    missing = []
    for name in LIBRARIES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
