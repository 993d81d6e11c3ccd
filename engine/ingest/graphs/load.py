"""Graph files -> Kùzu: read a file into `GraphData`, infer its schema, build its database, and
describe it for source selection and Cypher writing."""

from __future__ import annotations

from pathlib import Path

from engine.errors import ParseError, SkipFile
from engine.ingest.graphs import cypher_script, edge_csv, graphml
from engine.ingest.graphs.model import GENERATED_KEY, GraphData, LabelSchema, RelSchema, coerce, identifier, infer
from engine.ingest.textio import decode
from local_stores.graph_store import GraphStore, NodeTable, RelTable

READERS = {
    "cypher": lambda path: cypher_script.read(decode(path.read_bytes(), path), path.name),
    "graphml": lambda path: graphml.read(path),
    "edges": lambda path: edge_csv.read(path),
}
EXTENSIONS = {".cypher": "cypher", ".cql": "cypher", ".graphml": "graphml"}


def kind_of(path: Path) -> str | None:
    """'graph' for graph files: by extension, or a CSV of relationships (see edge_csv)."""
    if path.suffix.lower() in EXTENSIONS:
        return "graph"
    if edge_csv.is_edge_file(path):
        return "graph"
    return None


def read(path: Path) -> GraphData:
    fmt = EXTENSIONS.get(path.suffix.lower()) or "edges"
    return READERS[fmt](path)


def tables(graph: GraphData) -> tuple[list[NodeTable], list[RelTable]]:
    """Kùzu tables and rows for `graph`: names made safe, values coerced to their inferred types."""
    labels, rels = infer(graph)
    names: dict[str, str] = {}
    taken: set[str] = set()
    schemas: list[LabelSchema | RelSchema] = [*labels, *rels]
    for schema in schemas:
        names[schema.name] = identifier(schema.name, taken)
        taken.add(names[schema.name])
    prop_names: dict[tuple[str, str], str] = {}

    def prop(owner: str, name: str, used: set[str]) -> str:
        if (owner, name) not in prop_names:
            prop_names[(owner, name)] = identifier(name, used)
            used.add(prop_names[(owner, name)])
        return prop_names[(owner, name)]

    node_tables: list[NodeTable] = []
    key_of: dict[str, object] = {}
    for schema in labels:
        used: set[str] = set()
        props = {prop(schema.name, p, used): t for p, t in schema.properties.items()}
        table = NodeTable(names[schema.name], prop(schema.name, schema.key, used), props)
        node_tables.append(table)
        numbered = 0
        for node in graph.nodes.values():
            if node.label != schema.name:
                continue
            row = {prop(schema.name, k, used): coerce(v, schema.properties[k]) for k, v in node.props.items()}
            if schema.key == GENERATED_KEY:
                numbered += 1
                row[GENERATED_KEY] = numbered
            table.rows.append({p: row.get(p) for p in props})
            key_of[node.ref] = row[table.key]
    label_of = {n.ref: names[n.label] for n in graph.nodes.values()}
    rel_tables: list[RelTable] = []
    for rel_schema in rels:
        used = set()
        props = {prop(rel_schema.name, p, used): t for p, t in rel_schema.properties.items()}
        rel_table = RelTable(names[rel_schema.name], [(names[a], names[b]) for a, b in rel_schema.pairs], props)
        for edge in graph.edges:
            if edge.type != rel_schema.name:
                continue
            row = {"from": label_of[edge.src], "to": label_of[edge.dst], "src": key_of[edge.src],
                   "dst": key_of[edge.dst]}
            row.update({p: None for p in props})
            row.update({prop(rel_schema.name, k, used): coerce(v, rel_schema.properties[k])
                        for k, v in edge.props.items()})
            rel_table.rows.append(row)
        rel_tables.append(rel_table)
    return node_tables, rel_tables


def build(store: GraphStore, name: str, graph: GraphData, path: Path | str, fmt: str) -> dict:
    """Build graph `name` in Kùzu and return its descriptor."""
    nodes, rels = tables(graph)
    try:
        store.build(name, nodes, rels)
    except RuntimeError as exc:
        raise ParseError(f"Kùzu could not store this graph: {str(exc).splitlines()[0][:200]}") from exc
    described = store.describe(name)
    for label in described["nodes"].values():
        if label.get("key") == GENERATED_KEY:
            label["hidden"] = [GENERATED_KEY]
    return {"language": "cypher", "dialect": "kuzu", "engine": "kuzu", "file": str(path), "format": fmt,
            **described, "warnings": graph.warnings[:20]}


def load(store: GraphStore, name: str, path: Path) -> dict:
    """Read a graph file and build it; ParseError/SkipFile with the reason."""
    graph = read(path)
    if not graph.nodes:
        raise SkipFile("the file holds no nodes")
    return build(store, name, graph, path, EXTENSIONS.get(path.suffix.lower()) or "edges")
