"""Node/edge CSV pairs read into a `GraphData`.

An edge file is a CSV whose header has Neo4j's import columns (`:START_ID`, `:END_ID`, optional
`:TYPE`), or one named like `*edges*`/`*relationships*`/`*links*` with source/target columns. Its
nodes come from the node files in the same folder (`:ID` headers, or `*nodes*` files with an `id`
column); a node no file describes is created with its id only. Typed headers (`born:int`,
`roles:string[]`) are honoured; other values are read as numbers when they all look like numbers.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from engine.errors import ParseError, SkipFile
from engine.ingest.graphs.model import Edge, GraphData, Node
from engine.ingest.textio import decode

EDGE_NAME = re.compile(r"edges?|relationships?|links?|\brels?\b", re.IGNORECASE)
NODE_NAME = re.compile(r"nodes?|vert(ex|ices)", re.IGNORECASE)
SOURCE = ("source", "src", "from", "start", "head", "subject")
TARGET = ("target", "dst", "to", "end", "tail", "object")
TYPE = ("type", "label", "relationship", "relation", "predicate")
_INT = re.compile(r"^-?\d{1,18}$")
_FLOAT = re.compile(r"^-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")


def _header(path: Path) -> list[str]:
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return []
    line = head.decode("utf-8", "replace").lstrip("\ufeff").splitlines()[0] if head.strip() else ""
    return [c.strip().strip('"') for c in re.split(r"[,\t;|]", line)]


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.lower() for h in header]
    return next((lowered.index(n) for n in names if n in lowered), None)


def is_edge_file(path: Path) -> bool:
    if path.suffix.lower() not in (".csv", ".tsv"):
        return False
    header = _header(path)
    upper = [h.split("(")[0].upper() for h in header]
    if any(h.endswith(":START_ID") for h in upper) and any(h.endswith(":END_ID") for h in upper):
        return True
    return bool(EDGE_NAME.search(path.stem)) and _column(header, SOURCE) is not None \
        and _column(header, TARGET) is not None


def _is_node_file(path: Path) -> bool:
    header = _header(path)
    if any(re.search(r":ID(\(|$)", h, re.IGNORECASE) for h in header):
        return True
    return bool(NODE_NAME.search(path.stem)) and _column(header, ("id",)) is not None


def _records(path: Path) -> tuple[list[str], list[list[str]]]:
    text = decode(path.read_bytes(), path)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",\t;|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    rows = list(csv.reader(io.StringIO(text), dialect))
    if len(rows) < 2:
        raise SkipFile(f"{path.name}: no data rows")
    return [h.strip() for h in rows[0]], rows[1:]


def _typed(name: str) -> tuple[str, str | None]:
    """`born:int` -> ('born', 'int'); `:ID(Person)` -> (':ID', 'Person')."""
    if ":" not in name:
        return name, None
    prop, kind = name.rsplit(":", 1)
    return prop, kind


def _convert(text: str, kind: str | None) -> object:
    if text == "":
        return None
    kind = (kind or "").lower()
    if kind.endswith("[]"):
        return [_convert(x, kind[:-2]) for x in text.split(";") if x != ""]
    if kind in ("int", "long", "short", "byte") or (not kind and _INT.match(text)):
        return int(text)
    if kind in ("float", "double") or (not kind and _FLOAT.match(text)):
        return float(text)
    if kind == "boolean":
        return text.lower() == "true"
    return text


def _default_label(path: Path, fallback: str) -> str:
    stem = NODE_NAME.sub("", EDGE_NAME.sub("", path.stem)).strip(" _-.s") or fallback
    return stem[:1].upper() + stem[1:]


def _read_nodes(graph: GraphData, path: Path) -> None:
    header, rows = _records(path)
    label_col = next((i for i, h in enumerate(header) if h.upper() == ":LABEL"), _column(header, ("label",)))
    id_col = next((i for i, h in enumerate(header) if re.search(r":ID(\(|$)", h, re.IGNORECASE)),
                  _column(header, ("id",)))
    if id_col is None:
        raise ParseError(f"{path.name}: a node file needs an id column (:ID or id)")
    label = _default_label(path, "Node")
    for row in rows:
        if len(row) <= id_col or not row[id_col]:
            continue
        props = {}
        for i, raw in enumerate(row[: len(header)]):
            name, kind = _typed(header[i])
            if i == label_col or (i == id_col and not name):
                continue
            if i == id_col and kind and kind.upper().startswith("ID"):
                kind = None
            props[name or "id"] = _convert(raw, kind)
        labels = [x for x in row[label_col].split(";") if x] if label_col is not None and label_col < len(row) else []
        graph.add_node(Node(f"n:{row[id_col]}", labels[0] if labels else label, props))


def read(path: Path) -> GraphData:
    """The graph an edge file describes, with the node files beside it."""
    graph = GraphData()
    for sibling in sorted(path.parent.iterdir()):
        if sibling != path and sibling.suffix.lower() in (".csv", ".tsv") and _is_node_file(sibling):
            _read_nodes(graph, sibling)
    header, rows = _records(path)
    upper = [h.split("(")[0].upper() for h in header]
    src = next((i for i, h in enumerate(upper) if h.endswith(":START_ID")), _column(header, SOURCE))
    dst = next((i for i, h in enumerate(upper) if h.endswith(":END_ID")), _column(header, TARGET))
    kind_col = next((i for i, h in enumerate(upper) if h == ":TYPE"), _column(header, TYPE))
    if src is None or dst is None:
        raise ParseError(f"{path.name}: an edge file needs source and target columns")
    default_type = re.sub(r"\W+", "_", EDGE_NAME.sub("", path.stem)).strip("_").upper() or "LINKED_TO"
    for row in rows:
        if len(row) <= max(src, dst) or not row[src] or not row[dst]:
            continue
        for ref in (row[src], row[dst]):
            if f"n:{ref}" not in graph.nodes:
                graph.add_node(Node(f"n:{ref}", "Node", {"id": _convert(ref, None)}))
        props = {}
        for i, raw in enumerate(row[: len(header)]):
            if i in (src, dst, kind_col):
                continue
            name, kind = _typed(header[i])
            props[name] = _convert(raw, kind)
        rel = row[kind_col] if kind_col is not None and kind_col < len(row) and row[kind_col] else default_type
        graph.edges.append(Edge(f"n:{row[src]}", f"n:{row[dst]}", rel, props))
    if not graph.edges:
        raise SkipFile("the edge file has no edges")
    return graph
