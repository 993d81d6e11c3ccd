"""A graph citation: the nodes and relationships the Cypher matched, drawn, with the Cypher and the
result rows.

The citation carries the query and its result; the paths behind the result are fetched by running
the same MATCH once more with its patterns named as paths (`MATCH p0 = (a)-[:R]->(b) ... RETURN p0`),
read-only through `Trove.query`. When the query cannot be rewritten that way (WITH, UNWIND, ...),
the nodes in the result rows are drawn."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPolygonF, QResizeEvent
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from desktop.viewers.common import ResultGrid, Viewer, cell_text, is_dark

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop.workers import Engine
    from engine import AskResult, Citation, QueryLocator, Trove
    from local_stores.results import QueryResult

_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_CLAUSE = re.compile(r"\b(OPTIONAL\s+MATCH|MATCH|WHERE|RETURN|ORDER\s+BY|LIMIT|SKIP)\b", re.IGNORECASE)
_UNSUPPORTED = re.compile(r"\b(WITH|UNWIND|CALL|UNION|FOREACH)\b", re.IGNORECASE)
_NODE_VAR = re.compile(r"\(\s*([A-Za-z_]\w*)")
MAX_PATHS = 40


def paths_query(cypher: str) -> str | None:
    """The MATCH/WHERE of `cypher` with each pattern named as a path and returned; None when the
    query has clauses this rewrite does not follow."""
    strings: list[str] = []

    def hide(m: re.Match[str]) -> str:  # a string literal, kept aside while the query is cut up
        strings.append(m.group(0))
        return f"\x00{len(strings) - 1}\x00"

    text = _STRING.sub(hide, cypher.strip().rstrip(";"))
    if _UNSUPPORTED.search(text) or not re.search(r"\bMATCH\b", text, re.IGNORECASE):
        return None
    pieces = _CLAUSE.split(text)
    kept, returned = [], []
    for keyword, body in zip(pieces[1::2], pieces[2::2], strict=True):
        word = " ".join(keyword.upper().split())
        if word in ("MATCH", "OPTIONAL MATCH"):
            patterns = []
            for pattern in _top_level_split(body):
                named = re.match(r"\s*([A-Za-z_]\w*)\s*=", pattern)
                if named:
                    returned.append(named.group(1))
                    patterns.append(pattern.strip())
                elif "-" in pattern:
                    name = f"trove_p{len(returned)}"
                    returned.append(name)
                    patterns.append(f"{name} = {pattern.strip()}")
                else:
                    returned += _NODE_VAR.findall(pattern)
                    patterns.append(pattern.strip())
            kept.append(f"{word} {', '.join(patterns)}")
        elif word == "WHERE":
            kept.append(f"WHERE {body.strip()}")
    if not returned:
        return None
    ends = ", ".join(dict.fromkeys(returned))
    query = " ".join(kept) + f" RETURN {ends} LIMIT {MAX_PATHS}"  # sandboxed: the cited query widened
    return re.sub("\x00(\\d+)\x00", lambda m: strings[int(m.group(1))], query)


def _top_level_split(text: str) -> list[str]:
    """`(a)-[r]->(b), (c)` -> the patterns, splitting on commas outside brackets and braces."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [p for p in out if p.strip()]


NodeKey = tuple[str, object, object]  # ("id", table, offset), ("node", label, name) or ("value", column, text)


@dataclass
class Graph:
    nodes: dict[NodeKey, dict] = field(default_factory=dict)  # key -> {"label": .., "name": .., "props": ..}
    edges: list[tuple[NodeKey, NodeKey, str]] = field(default_factory=list)

    def node_names(self) -> list[str]:
        return sorted(n["name"] for n in self.nodes.values())

    def edge_types(self) -> list[str]:
        return sorted({t for _, _, t in self.edges})


def _node_key(node: dict) -> NodeKey:
    ident = node.get("_id")
    if isinstance(ident, dict):
        return ("id", ident.get("table"), ident.get("offset"))
    return ("node", node.get("_label"), _node_name(node))


def _node_name(node: dict) -> str:
    props = {k: v for k, v in node.items() if not k.startswith("_") and v is not None}
    for key in ("name", "title", "label", "id"):
        if key in props:
            return str(props[key])
    return cell_text(next(iter(props.values()), node.get("_label", "?")))


def _is_rel(value: dict) -> bool:
    return "_src" in value and "_dst" in value


def graph_from_rows(rows: list) -> Graph:
    """Nodes and relationships found in result rows (paths, nodes and relationships as the graph
    engine returns them)."""
    graph = Graph()
    pending_rels: list[dict] = []

    def add_node(node: dict) -> NodeKey:
        key = _node_key(node)
        graph.nodes.setdefault(key, {"label": node.get("_label", ""), "name": _node_name(node),
                                     "props": {k: v for k, v in node.items() if not k.startswith("_")}})
        return key

    def walk(value: object) -> None:
        if isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict) and "_nodes" in value:
            keys = [add_node(n) for n in value.get("_nodes", [])]
            for i, rel in enumerate(value.get("_rels", [])):
                if _is_rel(rel):
                    pending_rels.append(rel)
                elif i + 1 < len(keys):
                    graph.edges.append((keys[i], keys[i + 1], rel.get("_label", "")))
        elif isinstance(value, dict) and _is_rel(value):
            pending_rels.append(value)
        elif isinstance(value, dict) and "_label" in value:
            add_node(value)

    for row in rows:
        walk(list(row))
    by_id = {k[1:]: k for k in graph.nodes if k[0] == "id"}
    for rel in pending_rels:
        src, dst = (by_id.get((rel[e].get("table"), rel[e].get("offset"))) for e in ("_src", "_dst"))
        if src is None or dst is None:
            continue
        edge = (src, dst, rel.get("_label", ""))
        if edge not in graph.edges:
            graph.edges.append(edge)
    return graph


def values_graph(columns: list[str], rows: list) -> Graph:
    """A result with no nodes in it (names, numbers): each distinct value drawn as a node."""
    graph = Graph()
    for row in rows:
        for column, value in zip(columns, row, strict=False):
            if value is not None and column != "_row":
                graph.nodes.setdefault(("value", column, cell_text(value)),
                                       {"label": column, "name": cell_text(value), "props": {}})
    return graph


def layout(graph: Graph) -> dict[object, QPointF]:
    """Left to right in layers: nodes nothing points to first, then what they point to."""
    incoming = {k: 0 for k in graph.nodes}
    out: dict[object, list] = {k: [] for k in graph.nodes}
    for src, dst, _ in graph.edges:
        incoming[dst] += 1
        out[src].append(dst)
    depth: dict[object, int] = {}
    queue = [k for k, n in incoming.items() if n == 0] or list(graph.nodes)[:1]
    for k in queue:
        depth[k] = 0
    while queue:
        k = queue.pop(0)
        for nxt in out[k]:
            if nxt not in depth:
                depth[nxt] = depth[k] + 1
                queue.append(nxt)
    for k in graph.nodes:  # in a cycle nothing reached
        depth.setdefault(k, 0)
    layers: dict[int, list] = {}
    for k in graph.nodes:
        layers.setdefault(depth[k], []).append(k)
    pos = {}
    for d, keys in layers.items():
        for i, k in enumerate(keys):
            pos[k] = QPointF(d * LAYER_GAP, (i - (len(keys) - 1) / 2) * 80.0)
    return pos


NODE_W, NODE_H = 170.0, 46.0
LAYER_GAP = 300.0


class GraphView(QGraphicsView):
    """The graph drawn: rounded boxes for nodes (name and label), arrows for relationships."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setAccessibleName("graph drawing")
        self.graph = Graph()

    def draw(self, graph: Graph) -> None:
        self.graph = graph
        scene = self.scene()
        scene.clear()
        pos = layout(graph)
        dark = is_dark(self)
        ink = QColor("#e8e8e8") if dark else QColor("#202020")
        fill = QColor("#2f4b6e") if dark else QColor("#dbe8f7")
        paper = self.palette().color(self.backgroundRole())
        for src, dst, rel in graph.edges:
            self._arrow(scene, pos[src], pos[dst], rel, ink, paper)
        for key, node in graph.nodes.items():
            p = pos[key]
            rect = QRectF(p.x() - NODE_W / 2, p.y() - NODE_H / 2, NODE_W, NODE_H)
            path = QPainterPath()
            path.addRoundedRect(rect, 10, 10)
            item = scene.addPath(path, QPen(ink, 1.2), QBrush(fill))
            item.setToolTip("\n".join(f"{k}: {v}" for k, v in node["props"].items()))
            name = scene.addSimpleText(_short(node["name"], 22))
            name.setBrush(ink)
            font = name.font()
            font.setBold(True)
            name.setFont(font)
            name.setPos(p.x() - name.boundingRect().width() / 2, p.y() - NODE_H / 2 + 5)
            label = scene.addSimpleText(f":{node['label']}" if node["label"] else "")
            label.setBrush(ink)
            label.setPos(p.x() - label.boundingRect().width() / 2, p.y() + 2)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-30, -30, 30, 30))
        self.fit()

    def fit(self) -> None:
        """The whole graph in view, never drawn larger than life (a small graph stays readable)."""
        self.resetTransform()
        rect = self.scene().sceneRect()
        if rect.width() > self.viewport().width() or rect.height() > self.viewport().height():
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self.centerOn(rect.center())

    @staticmethod
    def _arrow(scene: QGraphicsScene, a: QPointF, b: QPointF, rel: str, ink: QColor, paper: QColor) -> None:
        if a == b:
            return
        start = QPointF(a.x() + NODE_W / 2, a.y()) if b.x() > a.x() else QPointF(a.x(), a.y() + NODE_H / 2)
        end = QPointF(b.x() - NODE_W / 2, b.y()) if b.x() > a.x() else QPointF(b.x(), b.y() - NODE_H / 2)
        scene.addLine(start.x(), start.y(), end.x(), end.y(), QPen(ink, 1.4))
        angle = math.atan2(end.y() - start.y(), end.x() - start.x())
        head = QPolygonF([end, QPointF(end.x() - 10 * math.cos(angle - 0.4), end.y() - 10 * math.sin(angle - 0.4)),
                          QPointF(end.x() - 10 * math.cos(angle + 0.4), end.y() - 10 * math.sin(angle + 0.4))])
        scene.addPolygon(head, QPen(ink), QBrush(ink))
        text = scene.addSimpleText(rel)
        text.setBrush(ink)
        mid = (start + end) / 2
        text.setPos(mid.x() - text.boundingRect().width() / 2, mid.y() - text.boundingRect().height() / 2)
        label_bg = scene.addRect(text.sceneBoundingRect().adjusted(-3, -1, 3, 1), QPen(Qt.PenStyle.NoPen),
                                 QBrush(paper))
        label_bg.setZValue(1)
        text.setZValue(2)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.scene().items():
            self.fit()


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


class GraphViewer(Viewer):
    language = "Cypher"

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(engine, parent)
        self.view = GraphView()
        self.grid = ResultGrid()
        self.grid.setAccessibleName("result rows")
        self.caption, self.query_box = self.add_query_panels(self.language, self.view, self.grid, (420, 140))

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        self.citation = citation
        loc = cast("QueryLocator", citation.locator)  # shown for query citations only (viewers.VIEWERS)
        self.header.set(citation.n, citation.kind, citation.source, f"Cypher result from the graph {loc.get('source')}",
                        loc)
        self.query_box.set_query(loc.get("query", ""))
        self.grid.set_rows(loc.get("columns", []), loc.get("result_rows", []))
        rewritten = paths_query(loc.get("query", ""))
        if rewritten is None:
            self._fallback("the rows' own nodes (this query is not a plain MATCH … RETURN)")
            return

        def fetch(trove: Trove) -> QueryResult:
            return trove.query(loc.get("source", ""), rewritten)

        self.engine.call(fetch, on_done=self._drawn, on_error=lambda msg: self._fallback(f"the result rows ({msg})"))

    def _drawn(self, result: QueryResult) -> None:
        graph = graph_from_rows(result.rows)
        if not graph.nodes:
            self._fallback("the result rows (the matched paths came back empty)")
            return
        self.caption.setText(f"The paths this query matched: {len(graph.nodes)} nodes, {len(graph.edges)} "
                             "relationships.")
        self.view.draw(graph)
        self.mark_ready()

    def _fallback(self, why: str) -> None:
        assert self.citation is not None  # set by show_citation, which is what falls back
        loc = cast("QueryLocator", self.citation.locator)
        rows = loc.get("result_rows", [])
        graph = graph_from_rows(rows)
        if not graph.nodes:
            graph = values_graph(loc.get("columns", []), rows)
        self.caption.setText(f"Drawn from {why}.")
        self.view.draw(graph)
        self.mark_ready()
