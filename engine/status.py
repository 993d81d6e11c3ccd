"""What a Trove home holds, for `trove status` and the app: roots, files by state, corpora, every
structured source with its shape, knowledge packs, problems, installed models, missing vision roles."""

from __future__ import annotations

from engine.connections import listed
from engine.corpora import PARAGRAPH
from engine.ingest.photos.analyse import ROLE_EFFECT
from engine.ingest.scans import READ_BY
from engine.models.manager import ModelManager
from engine.settings import Settings
from local_stores.catalog import Catalog
from local_stores.corpus_store import CorpusStore


def status(settings: Settings, catalog: Catalog, store: CorpusStore, manager: ModelManager) -> dict:
    files = catalog.files()
    sources = catalog.sources()
    return {
        "home": str(settings.home),
        "index": settings.index_backend or str(settings.index_path),  # the home's file, or the shared index
        "roots": [path for _, path in catalog.roots()],
        "files": {state: sum(1 for f in files if f.state == state) for state in ("indexed", "skipped", "failed")},
        "by_kind": catalog.counts(),
        "corpora": store.corpora(),
        "ocr_pages": dict(zip(("pages", "files"), store.pages_read_by(PARAGRAPH, READ_BY), strict=True)),
        **_sources(sources),
        "connections": listed(catalog),
        "vision_missing": vision_missing(settings, manager),
        "problems": [{"path": f.path, "state": f.state, "reason": f.reason}
                     for f in files if f.state != "indexed" or f.reason],  # indexed with a warning
        "models": {m.role: m.name for m in manager.catalog.models
                   if "default" in m.tags and manager.is_installed(m.name)},
    }


def _sources(sources: list[dict]) -> dict[str, list[dict]]:
    """The structured sources and knowledge packs, per kind, each with what shapes it."""
    return {
        "tables": [{"name": src["name"], "file": src["location"], "rows": src["descriptor"].get("rows"),
                    "columns": [c["name"] for c in src["descriptor"].get("columns", []) if c["name"] != "_row"],
                    "warnings": src["descriptor"].get("warnings", [])}
                   for src in sources if src["kind"] == "table"],
        "databases": [{"name": src["name"], "file": src["location"], "engine": src["engine"],
                       "tables": {t["table"]: t["rows"] for t in src["descriptor"].get("tables", [])}}
                      for src in sources if src["kind"] == "database"],
        "graphs": [{"name": src["name"], "file": src["location"], "format": src["descriptor"].get("format"),
                    "nodes": {k: v["count"] for k, v in src["descriptor"].get("nodes", {}).items()},
                    "relationships": {k: v["count"] for k, v in src["descriptor"].get("relationships", {}).items()},
                    "warnings": src["descriptor"].get("warnings", [])}
                   for src in sources if src["kind"] == "graph"],
        "rdf": [{"name": src["name"], "file": src["location"], "triples": src["descriptor"].get("triples"),
                 "classes": len(src["descriptor"].get("classes", []))}
                for src in sources if src["kind"] == "rdf"],
        "packs": [{"name": src["descriptor"].get("name"), "file": src["location"],
                   "entities": [e["name"] for e in src["descriptor"].get("entities", [])]}
                  for src in sources if src["kind"] == "pack"],
    }


def vision_missing(settings: Settings, manager: ModelManager) -> dict[str, str]:
    """Vision roles with no model, and what that costs (checked without loading any model)."""
    out = {role: effect for role, effect in ROLE_EFFECT.items() if not manager.is_installed(role)}
    if not settings.photo_ocr:
        out["ocr"] = f"{ROLE_EFFECT['ocr']} (setting photo_ocr = false)"
    if not manager.is_installed("vlm"):
        out["vlm"] = ("photo regions are matched by words and image similarity, and answers are written from "
                      "text; import a vision-language model (a .gguf and its mmproj) to have them looked at")
    return out
