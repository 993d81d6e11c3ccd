"""A property graph as plain data, and the schema Kùzu needs inferred from it.

Kùzu is schema-first (a node table per label, a relationship table per type, typed properties,
a primary key per node table) while the files users keep are schema-less, so the types and keys
are inferred here: a property's type is the one its values agree on (else STRING), and a label's
key is a declared unique property, else an `id`/`name`/`title`-like property that is unique and
never empty, else a generated number.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import cast

GENERATED_KEY = "node_key"  # the key added to labels that have no natural one; hidden from the model
KEY_CANDIDATES = ("id", "key", "uuid", "name", "title", "path", "code")
MAX_LIST = 5000


@dataclass
class Node:
    ref: str  # the node's identity in its file (a variable, an id); not a property
    label: str
    props: dict = field(default_factory=dict)


@dataclass
class Edge:
    src: str  # Node.ref
    dst: str
    type: str
    props: dict = field(default_factory=dict)


@dataclass
class GraphData:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)  # label -> declared unique property
    warnings: list[str] = field(default_factory=list)

    def add_node(self, node: Node) -> Node:
        """Add a node, or merge its properties into the node with the same ref."""
        known = self.nodes.get(node.ref)
        if known is None:
            self.nodes[node.ref] = node
            return node
        known.props.update({k: v for k, v in node.props.items() if v is not None})
        return known


@dataclass
class LabelSchema:
    name: str
    key: str
    properties: dict[str, str]  # name -> Kùzu type, in first-seen order (the key first)
    count: int = 0


@dataclass
class RelSchema:
    name: str
    pairs: list[tuple[str, str]]
    properties: dict[str, str]
    count: int = 0


def identifier(name: str, taken: set[str] | None = None) -> str:
    """A Kùzu-safe name for a label, type or property: letters, digits and underscores."""
    out = re.sub(r"\W+", "_", name.strip(), flags=re.ASCII).strip("_") or "x"
    if out[0].isdigit():
        out = "_" + out
    if out.lower() in {"id", "_id"} and out != "id":
        out = "id"
    if taken is not None:
        base, n = out, 2
        while out.lower() in {t.lower() for t in taken}:
            out, n = f"{base}_{n}", n + 1
    return out


def kuzu_type(values: list) -> str:
    """The Kùzu type every non-null value fits (lists typed by their items), STRING when they differ."""
    kinds = {_kind(v) for v in values if v is not None}
    if not kinds:
        return "STRING"
    if kinds <= {"INT64"}:
        return "INT64"
    if kinds <= {"INT64", "DOUBLE"}:
        return "DOUBLE"
    if len(kinds) == 1:
        (only,) = kinds
        if only == "LIST":
            items = [x for v in values if isinstance(v, list) for x in v]
            inner = kuzu_type(items)
            return f"{inner}[]"
        return only
    return "STRING"


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INT64" if -(2**63) <= value < 2**63 else "DOUBLE"
    if isinstance(value, float):
        return "DOUBLE"
    if isinstance(value, dt.datetime):
        return "TIMESTAMP"
    if isinstance(value, dt.date):
        return "DATE"
    if isinstance(value, list):
        return "LIST"
    return "STRING"


def coerce(value: object, kuzu: str) -> object:
    """A value as the column's type wants it (values of mixed kinds become text)."""
    if value is None:
        return None
    if kuzu.endswith("[]"):
        inner = kuzu[:-2]
        items = value if isinstance(value, list) else [value]
        return [coerce(x, inner) for x in items]
    if kuzu == "STRING":
        if isinstance(value, list):
            return ", ".join(str(x) for x in value)
        return value if isinstance(value, str) else str(value)
    if kuzu == "DOUBLE":  # inferred from values that are all numbers (kuzu_type)
        return float(cast("int | float", value))
    return value


def infer(graph: GraphData) -> tuple[list[LabelSchema], list[RelSchema]]:
    """Node tables and relationship tables for `graph`, with types and keys."""
    by_label: dict[str, list[Node]] = {}
    for node in graph.nodes.values():
        by_label.setdefault(node.label, []).append(node)
    labels = []
    for label, nodes in by_label.items():
        names = list(dict.fromkeys(k for n in nodes for k in n.props))
        props = {name: kuzu_type([n.props.get(name) for n in nodes]) for name in names}
        key = _key(label, nodes, props, graph.keys.get(label))
        if key == GENERATED_KEY:
            props = {GENERATED_KEY: "INT64", **props}
        else:
            props = {key: props[key], **{k: v for k, v in props.items() if k != key}}
        labels.append(LabelSchema(label, key, props, len(nodes)))
    rels: dict[str, RelSchema] = {}
    values: dict[str, dict[str, list]] = {}
    for edge in graph.edges:
        pair = (graph.nodes[edge.src].label, graph.nodes[edge.dst].label)
        rel = rels.setdefault(edge.type, RelSchema(edge.type, [], {}))
        if pair not in rel.pairs:
            rel.pairs.append(pair)
        rel.count += 1
        for k, v in edge.props.items():
            values.setdefault(edge.type, {}).setdefault(k, []).append(v)
    for name, rel in rels.items():
        rel.properties = {k: kuzu_type(vs) for k, vs in values.get(name, {}).items()}
    return labels, list(rels.values())


def _key(label: str, nodes: list[Node], props: dict[str, str], declared: str | None) -> str:
    """The primary key: the declared one when it holds, else a natural unique one, else generated."""
    candidates = ([declared] if declared else []) + [p for c in KEY_CANDIDATES for p in props if p.lower() == c]
    for name in candidates:
        if name not in props or props[name] not in ("STRING", "INT64"):
            continue
        values = [n.props.get(name) for n in nodes]
        if all(v is not None and v != "" for v in values) and len(set(values)) == len(values):
            return name
    return GENERATED_KEY


def samples(values: list, k: int = 3) -> list:
    """The most common short values (what a model needs to write a literal the data holds)."""
    flat = [x for v in values if v is not None for x in (v if isinstance(v, list) else [v])]
    common = Counter(str(x) if not isinstance(x, (int, float, bool)) else x for x in flat[:MAX_LIST])
    return [v for v, _ in common.most_common(k) if not isinstance(v, str) or len(v) <= 60]
