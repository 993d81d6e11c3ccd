"""RDF files -> Oxigraph (OmniRetrieval: RDF stays RDF, queried in SPARQL). Each file becomes one
store and one catalog source of kind "rdf", whose descriptor (classes, predicates, samples,
prefixes) is what source selection and SPARQL writing read.

RDF/XML is checked with libxml2 before Oxigraph reads it: Oxigraph's RDF/XML parser expands a
DTD's entities without a limit (ten levels of "billion laughs" ask it for 4.8 GB) and slows with
the square of the nesting depth (20,000 levels: 9 s; 200,000: hours)."""

from __future__ import annotations

from pathlib import Path

from engine.errors import ParseError, SkipFile
from local_stores.rdf_store import FORMATS, EmptyRdf, RdfLoadError, RdfStore, format_of

KIND = "rdf"
EXTENSIONS = dict(FORMATS)  # extension -> RDF syntax: {".ttl": "Turtle", ".rdf": "RDF/XML", ...}
MAX_XML_DEPTH = 256  # libxml2's own limit for a document tree


def kind_of(path: Path) -> str | None:
    return KIND if path.suffix.lower() in EXTENSIONS else None


def load(store: RdfStore, name: str, path: Path) -> dict:
    """Load `path` as RDF source `name` (replacing it) and return its descriptor; ParseError or
    SkipFile with the reason, and the previous store of that name kept as it was."""
    if format_of(path) == "RDF/XML":
        check_xml(path)
    try:
        return store.load(name, path)
    except EmptyRdf as exc:
        raise SkipFile(str(exc)) from exc
    except RdfLoadError as exc:
        raise ParseError(str(exc)) from exc
    except OSError as exc:  # the store's own folder (disk full, permissions)
        raise ParseError(f"cannot store this RDF file: {exc}") from exc


class _TooDeep(Exception):
    pass


class _Depth:
    """An lxml parser target that builds nothing and only follows the nesting depth."""

    def __init__(self) -> None:
        self.depth = 0

    def start(self, tag: str, attrib: dict) -> None:
        self.depth += 1
        if self.depth > MAX_XML_DEPTH:
            raise _TooDeep

    def end(self, tag: str) -> None:
        self.depth -= 1

    def close(self) -> None:
        return None


def check_xml(path: Path) -> None:
    """SkipFile when an XML file nests deeper than MAX_XML_DEPTH or its entities expand too much
    (libxml2's amplification limit). Streams the file through libxml2 building no tree, entities
    unresolved and nothing fetched (about 1 s per 10 MB); other syntax errors are left to the loader,
    once a second, forgiving pass has measured the depth past the error."""
    from lxml import etree

    try:
        try:
            _stream(path, recover=False)
        except etree.XMLSyntaxError as exc:
            if "amplification" in str(exc):
                raise SkipFile("its XML entities expand to far more than the file (a 'billion laughs' file): "
                               "not read") from None
            _stream(path, recover=True)
    except _TooDeep:
        raise SkipFile(f"XML nested deeper than {MAX_XML_DEPTH} levels: not read") from None


def _stream(path: Path, recover: bool, chunk_bytes: int = 1 << 20) -> None:
    from lxml import etree

    parser = etree.XMLParser(target=_Depth(), resolve_entities=False, no_network=True, load_dtd=False,
                             recover=recover)
    with path.open("rb") as fh:
        while chunk := fh.read(chunk_bytes):
            parser.feed(chunk)
    parser.close()
