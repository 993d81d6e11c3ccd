"""RDF files -> Oxigraph (OmniRetrieval: RDF stays RDF, queried in SPARQL). Each file becomes one
store and one catalog source of kind "rdf", whose descriptor (classes, predicates, samples,
prefixes) is what source selection and SPARQL writing read."""

from __future__ import annotations

from pathlib import Path

from engine.errors import ParseError, SkipFile
from local_stores.rdf_store import FORMATS, EmptyRdf, RdfLoadError, RdfStore

KIND = "rdf"
EXTENSIONS = dict(FORMATS)  # extension -> RDF syntax: {".ttl": "Turtle", ".rdf": "RDF/XML", ...}


def kind_of(path: Path) -> str | None:
    return KIND if path.suffix.lower() in EXTENSIONS else None


def load(store: RdfStore, name: str, path: Path) -> dict:
    """Load `path` as RDF source `name` (replacing it) and return its descriptor; ParseError or
    SkipFile with the reason, and the previous store of that name kept as it was."""
    try:
        return store.load(name, path)
    except EmptyRdf as exc:
        raise SkipFile(str(exc)) from exc
    except RdfLoadError as exc:
        raise ParseError(str(exc)) from exc
    except OSError as exc:  # the store's own folder (disk full, permissions)
        raise ParseError(f"cannot store this RDF file: {exc}") from exc
