"""GraphML (yEd, Gephi, networkx, Neo4j's APOC export) read into a `GraphData`.

A node's label is its `labels` attribute or data (Neo4j: ":Person"), else its `label`/`type`
data, else "Node"; an edge's type likewise, else "LINKED_TO". The GraphML id is kept as `id`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.graphs.model import Edge, GraphData, Node

if TYPE_CHECKING:
    from lxml import etree

LABEL_KEYS = ("labels", "label", "type", "kind", "category")
TYPE_KEYS = ("label", "type", "relationship", "kind")
_CASTS: dict[str, Callable[[str], object]] = {"int": int, "long": int, "float": float, "double": float,
          "boolean": lambda s: s.strip().lower() in ("true", "1", "yes")}


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _value(text: str | None, kind: str) -> object:
    if text is None:
        return None
    try:
        return _CASTS.get(kind, str)(text.strip() if kind in _CASTS else text)
    except ValueError:
        return text


def _label(raw: str | None) -> list[str]:
    return [p for p in (raw or "").replace(";", ":").split(":") if p.strip()]


def read(path: Path) -> GraphData:
    from lxml import etree

    graph = GraphData()
    keys: dict[str, tuple[str, str]] = {}  # key id -> (attr.name, attr.type)
    directed = True
    try:
        for _, el in etree.iterparse(str(path), events=("end",), huge_tree=False, resolve_entities=False):
            tag = _local(el.tag)
            if tag == "key":
                keys[el.get("id")] = (el.get("attr.name") or el.get("id"), el.get("attr.type") or "string")
            elif tag == "graph":
                directed = el.get("edgedefault", "directed") != "undirected"
            elif tag in ("node", "edge"):
                data = {}
                for d in el:
                    if _local(d.tag) == "data" and d.get("key") in keys:
                        name, kind = keys[d.get("key")]
                        data[name] = _value(d.text, kind)
                if tag == "node":
                    _node(graph, el, data)
                else:
                    _edge(graph, el, data)
                el.clear()
    except etree.XMLSyntaxError as exc:
        raise ParseError(f"not valid GraphML: {exc}") from exc
    if not directed and graph.edges:
        graph.warnings.append("the graph is undirected: edges are stored from source to target")
    return graph


def _node(graph: GraphData, el: etree._Element, data: dict) -> None:
    labels = _label(el.get("labels"))
    for key in LABEL_KEYS:
        if not labels and isinstance(data.get(key), str):
            labels = _label(data[key])
    data = {k: v for k, v in data.items() if k != "labels"}
    node_id = el.get("id")
    data.setdefault("id", node_id)
    graph.add_node(Node(f"n:{node_id}", labels[0] if labels else "Node", data))


def _edge(graph: GraphData, el: etree._Element, data: dict) -> None:
    src, dst = f"n:{el.get('source')}", f"n:{el.get('target')}"
    rel_type = el.get("label") or next((data.pop(k) for k in TYPE_KEYS if isinstance(data.get(k), str)), None)
    for ref in (src, dst):
        if ref not in graph.nodes:  # GraphML lets edges name nodes declared later or never
            graph.add_node(Node(ref, "Node", {"id": ref[2:]}))
    graph.edges.append(Edge(src, dst, rel_type or "LINKED_TO", data))
