"""The modules indexing imports the first time it needs them (ingest, the stores it writes, the value
index it reads back: libraries and Trove's own), loaded ahead of time.

Loading a module holds the interpreter lock while its code is unmarshalled or its C extension is
loaded (over 100 ms from a cold disk, more on busy cores): when that happens on an indexing thread,
every other thread of the process waits, an app's window included. An app calls `preload` before its
window shows. The clients of database servers (neo4j, falkordb, psycopg, and Trove's stores on them) load when a
server is connected, not while a folder is indexed, and are left out."""

from __future__ import annotations

import importlib

MODULES = (
    "engine.ingest.photos.analyse", "engine.ingest.photos.exif", "engine.ingest.photos.items",
    "engine.ingest.videos.items", "engine.ingest.videos.subtitles", "engine.runtimes", "local_stores.database_files",
    "numpy", "charset_normalizer", "duckdb", "kuzu", "pyparsing", "rdflib", "rdflib.plugins.sparql",
    "rdflib.plugins.sparql.parserutils", "pypdf", "pypdf.errors", "pdfplumber", "pypdfium2", "pypdfium2.raw",
    "docx", "docx.enum.style", "docx.opc.exceptions", "docx.table", "docx.text.paragraph", "pptx",
    "pptx.enum.shapes", "pptx.exc", "lxml", "lxml.html", "olefile", "striprtf.striprtf", "openpyxl",
    "openpyxl.utils.exceptions", "python_calamine", "yaml", "PIL", "pillow_heif", "cv2", "scenedetect.common",
    "scenedetect.detectors",
)
SERVER_CLIENTS = ("neo4j", "falkordb", "psycopg", "local_stores.falkordb_graph", "local_stores.neo4j_graph",
                  "local_stores.postgres_database", "local_stores.sparql_endpoint")  # loaded when one is connected


def preload() -> list[str]:
    """Import every module of `MODULES` on this thread; the ones not installed (optional kinds)."""
    missing = []
    for name in MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
