"""An RDF citation: the triples behind the answer, the SPARQL, and its result bindings.

The triples are those the query's WHERE matched: the same WHERE is run once more as a CONSTRUCT
whose template is the query's triple patterns (read-only, through `Trove.query`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from desktop.viewers.common import ResultGrid, Viewer

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop.workers import Engine
    from engine import AskResult, Citation, QueryLocator, Trove
    from local_stores.results import QueryResult

MAX_TRIPLES = 200
_PREFIX = re.compile(r"PREFIX\s+([\w-]*):\s*<([^>]*)>", re.IGNORECASE)


def _skip(text: str, i: int) -> int:
    """Past a string literal or an IRI starting at `i` (else `i` itself)."""
    ch = text[i]
    if ch in "\"'":
        j = i + 1
        while j < len(text) and text[j] != ch:
            j += 2 if text[j] == "\\" else 1
        return j
    if ch == "<" and re.match(r"<[^\s<>\"{}|^`]*>", text[i:]):
        return text.index(">", i)
    return i


def where_group(query: str) -> tuple[int, int] | None:
    """Offsets of the outer `{ … }` of the query's WHERE, skipping strings and IRIs."""
    m = re.search(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", query, re.IGNORECASE)
    if not m:
        return None
    w = re.compile(r"\bWHERE\b", re.IGNORECASE).search(query, m.end())
    i = w.end() if w else m.end()
    depth, start = 0, None
    while i < len(query):
        j = _skip(query, i)
        if j != i:
            i = j + 1
            continue
        if query[i] == "{":
            depth += 1
            start = i if start is None else start
        elif query[i] == "}" and start is not None:
            depth -= 1
            if depth == 0:
                return start, i + 1
        i += 1
    return None


def triple_patterns(query: str) -> list[tuple]:
    """The triple patterns of the query's basic graph patterns (prefixes resolved), via rdflib."""
    from rdflib.plugins.sparql import algebra, parser

    tree = algebra.translateQuery(parser.parseQuery(query))
    found: list[tuple] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if getattr(node, "name", "") == "BGP":
                found.extend(t for t in node.get("triples", []) if t not in found)
            for value in node.values():
                walk(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value)

    walk(tree.algebra)
    return found


def construct_query(query: str) -> str | None:
    """`query` as a CONSTRUCT of its own triple patterns over its own WHERE; None if it has none."""
    group = where_group(query)
    if group is None:
        return None
    patterns = triple_patterns(query)
    if not patterns:
        return None
    form = re.search(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", query, re.IGNORECASE)
    assert form is not None  # rdflib parsed the query above: it has a query form
    head = query[: form.start()]
    template = " .\n  ".join(" ".join(term.n3() for term in t) for t in patterns)
    where = query[group[0]:group[1]]
    # sandboxed: the cited query widened
    return f"{head}CONSTRUCT {{\n  {template} .\n}} WHERE {where} LIMIT {MAX_TRIPLES}"


COMMON = {"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
          "xsd": "http://www.w3.org/2001/XMLSchema#", "owl": "http://www.w3.org/2002/07/owl#"}
_IRI = re.compile(r"^[A-Za-z][\w+.-]*:[^\s<>\"]*[/#][^\s<>\"]*$")


def shorten(value: object, prefixes: dict[str, str]) -> str:
    """An IRI as prefix:name when a prefix covers it."""
    text = "" if value is None else str(value)
    for prefix, iri in sorted(prefixes.items(), key=lambda kv: -len(kv[1])):
        if iri and text.startswith(iri) and re.fullmatch(r"[\w.-]*", text[len(iri):]):
            return f"{prefix}:{text[len(iri):]}"
    return f"<{text}>"


def turtle_rows(rows: list, declared: dict[str, str]) -> tuple[list[list[str]], dict[str, str]]:
    """Triples as Turtle writes them: IRIs as prefixed names (a prefix made up for a namespace the
    query did not name), text in quotes; and the prefixes used."""
    prefixes = {**COMMON, **declared}
    for row in rows:
        for value in row:
            if isinstance(value, str) and _IRI.match(value) and shorten(value, prefixes).startswith("<"):
                namespace = value[: max(value.rfind("/"), value.rfind("#")) + 1]
                prefixes.setdefault(f"ns{sum(p.startswith('ns') for p in prefixes) + 1}", namespace)
    out = [[shorten(v, prefixes) if isinstance(v, str) and _IRI.match(v) else
            (f'"{v}"' if isinstance(v, str) else str(v)) for v in row] for row in rows]
    used = {p: iri for p, iri in prefixes.items() if any(cell.startswith(f"{p}:") for row in out for cell in row)}
    return out, used


class RdfViewer(Viewer):
    language = "SPARQL"

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(engine, parent)
        self.triples = ResultGrid()
        self.triples.setAccessibleName("triples")
        self.bindings = ResultGrid()
        self.bindings.setAccessibleName("result rows")
        self.caption, self.query_box = self.add_query_panels(self.language, self.triples, self.bindings, (400, 160))
        self.prefixes: dict[str, str] = {}

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        self.citation = citation
        loc = cast("QueryLocator", citation.locator)  # shown for query citations only (viewers.VIEWERS)
        query = loc.get("query", "")
        self.header.set(citation.n, citation.kind, citation.source, f"SPARQL result from {loc.get('source')}", loc)
        self.query_box.set_query(query)
        self.bindings.set_rows(loc.get("columns", []), loc.get("result_rows", []))
        self.caption.setText("Finding the triples the query matched…")

        self.prefixes = dict(_PREFIX.findall(query))  # the engine adds PREFIX lines to what it runs

        def fetch(trove: Trove) -> QueryResult:
            construct = construct_query(query)
            if construct is None:
                raise ValueError("the query has no triple patterns to show")
            return trove.query(loc.get("source", ""), construct)

        self.engine.call(fetch, on_done=self._fill, on_error=self._no_triples)

    def _fill(self, result: QueryResult) -> None:  # rows of subject, predicate, object
        rows, used = turtle_rows(result.rows, self.prefixes)
        self.triples.set_rows(["subject", "predicate", "object"], rows)
        more = " (the first ones)" if result.truncated else ""
        legend = "; ".join(f"{p}: &lt;{iri}&gt;" for p, iri in sorted(used.items()))
        self.caption.setText(f"<b>{len(rows)} triples</b> matched by the query{more}; its result below.<br>"
                             f"<small>{legend}</small>")
        self.mark_ready()

    def _no_triples(self, message: str) -> None:
        self.caption.setText(f"The triples could not be listed: {message}. The result bindings are below.")
        self.mark_ready()

    def triple_rows(self) -> list[list[str]]:
        return self.triples.rows()
