"""Cypher `CREATE` scripts (the form Neo4j examples and exports come in) read into a `GraphData`.

Kùzu cannot run these scripts as they are (it needs its schema declared first and has no
multi-label nodes), so they are parsed here: CREATE/MERGE of node and relationship patterns with
literal properties, and uniqueness constraints as key hints. Statements of other kinds (MATCH …
SET, procedures) are skipped and counted in the warnings.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import cast

from engine.errors import ParseError, SkipFile
from engine.ingest.graphs.model import Edge, GraphData, Node

_TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<string>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*")
  | (?P<number>-?\d+\.\d*(?:[eE][-+]?\d+)?|-?\d*\.\d+(?:[eE][-+]?\d+)?|-?\d+(?:[eE][-+]?\d+)?)
  | (?P<name>`[^`]+`|[A-Za-z_][\w]*)
  | (?P<arrow><-|->)
  | (?P<punct>[()\[\]{}:,;.\-=|*$<>+])
""", re.VERBOSE | re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


class _Unsupported(Exception):
    """A statement this reader does not handle; it is skipped."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            out.append(("other", text[pos]))
            pos += 1
            continue
        pos = m.end()
        if m.lastgroup != "space":
            out.append((m.lastgroup or "other", m.group()))
    return out


def _unquote(token: str) -> str:
    body = token[1:-1]
    if token[0] == "'":
        body = body.replace("''", "'")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]], graph: GraphData) -> None:
        self.toks, self.i, self.graph = tokens, 0, graph
        self.anonymous = 0
        self.vars: dict[str, str] = {}  # variable -> node ref (kept across statements: scripts rely on it)

    # -- token helpers -----------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> tuple[str, str]:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else ("eof", "")

    def word(self, ahead: int = 0) -> str:
        kind, text = self.peek(ahead)
        return text.upper() if kind == "name" else ""

    def take(self, text: str | None = None) -> str:
        kind, value = self.peek()
        if kind == "eof" or (text is not None and value != text):
            raise _Unsupported(f"expected {text or 'more'} near {value or 'the end'!r}")
        self.i += 1
        return value

    def skip_statement(self) -> None:
        """Past the current statement: to the next ';' or the next top-level CREATE/MERGE."""
        depth, start = 0, self.i
        while self.peek()[0] != "eof":
            value = self.peek()[1]
            if value in "([{":
                depth += 1
            elif value in ")]}":
                depth -= 1
            elif value == ";" and depth <= 0:
                self.i += 1
                return
            elif depth <= 0 and self.word() in ("CREATE", "MERGE") and self.i > start:
                return
            self.i += 1

    # -- statements --------------------------------------------------------------------------
    def script(self) -> int:
        skipped = 0
        while self.peek()[0] != "eof":
            if self.peek()[1] == ";":
                self.i += 1
                continue
            start = self.i
            try:
                self.statement()
            except _Unsupported as exc:
                skipped += 1
                if len(self.graph.warnings) < 20:
                    self.graph.warnings.append(f"statement {start} skipped: {exc}")
                self.i = start
                self.skip_statement()
        return skipped

    def statement(self) -> None:
        verb = self.word()
        if verb == "CREATE" and self.word(1) in ("CONSTRAINT", "INDEX", "OR"):
            self.constraint()
        elif verb in ("CREATE", "MERGE"):
            self.i += 1
            self.patterns(merge=verb == "MERGE")
        else:
            raise _Unsupported(f"{verb or self.peek()[1]!r} statements are not read (only CREATE and MERGE)")

    def constraint(self) -> None:
        """`CREATE CONSTRAINT … FOR (p:Person) REQUIRE (p.name) IS UNIQUE` (or `ON … ASSERT`)."""
        start = self.i
        self.skip_statement()
        words = [t for _, t in self.toks[start:self.i]]
        text = " ".join(words)
        m = re.search(r"\(\s*\w+\s*:\s*`?(\w+)`?\s*\).*?\.\s*`?(\w+)`?.*\bIS\s+UNIQUE", text, re.IGNORECASE)
        if m and words[1].upper() == "CONSTRAINT":
            self.graph.keys.setdefault(m.group(1), m.group(2))

    def patterns(self, merge: bool) -> None:
        self.pattern(merge)
        while self.peek()[1] == ",":
            self.i += 1
            self.pattern(merge)
        if self.word() not in ("", "CREATE", "MERGE") and self.peek()[1] != ";":
            raise _Unsupported(f"{self.peek()[1]!r} after a CREATE pattern")

    def pattern(self, merge: bool) -> None:
        if self.peek()[0] == "name" and self.peek(1)[1] == "=":  # p = (a)-[..]->(b)
            self.i += 2
        left = self.node(merge)
        while self.peek()[1] in ("-", "<-"):
            incoming = self.take() == "<-"
            rel_type, props = self.relationship()
            end = self.take()
            if end not in ("->", "-"):
                raise _Unsupported(f"expected - or -> after a relationship, not {end!r}")
            outgoing = end == "->"
            right = self.node(merge)
            if incoming == outgoing:
                raise _Unsupported("a relationship needs one direction")
            src, dst = (right, left) if incoming else (left, right)
            self.graph.edges.append(Edge(src.ref, dst.ref, rel_type, props))
            left = right

    def node(self, merge: bool) -> Node:
        self.take("(")
        var = self.take() if self.peek()[0] == "name" else None
        labels = []
        while self.peek()[1] == ":":
            self.i += 1
            labels.append(self.take().strip("`"))
        props = self.properties() if self.peek()[1] == "{" else {}
        self.take(")")
        known = self.graph.nodes.get(self.vars.get(var, "")) if var else None
        if known is not None and not labels:  # a reference to a node created before
            known.props.update(props)
            return known
        if not labels:
            raise _Unsupported(f"node ({var or ''}) has no label and was not created before")
        if len(labels) > 1:
            props.setdefault("labels", labels)
        if merge:
            ref = f"m:{labels[0]}:{sorted(props.items(), key=str)}"
        else:  # labels on a known variable: a new statement's node that reuses the name
            self.anonymous += 1
            ref = f"a:{self.anonymous}"
        node = self.graph.add_node(Node(ref, labels[0], props))
        if var:
            self.vars[var] = node.ref
        return node

    def relationship(self) -> tuple[str, dict]:
        self.take("[")
        if self.peek()[0] == "name":
            self.i += 1
        self.take(":")
        rel_type = self.take().strip("`")
        props = self.properties() if self.peek()[1] == "{" else {}
        self.take("]")
        return rel_type, props

    def properties(self) -> dict:
        self.take("{")
        out = {}
        while self.peek()[1] != "}":
            key = self.take().strip("`")
            self.take(":")
            out[key] = self.value()
            if self.peek()[1] == ",":
                self.i += 1
        self.take("}")
        return out

    def value(self) -> object:
        kind, text = self.peek()
        self.i += 1
        if kind == "string":
            return _unquote(text)
        if kind == "number":
            return float(text) if any(c in text for c in ".eE") else int(text)
        if text == "[":
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.i += 1
            self.i += 1
            return items
        if text == "-" and self.peek()[0] == "number":
            return -cast("int | float", self.value())  # the next token is a number
        upper = text.upper()
        if upper in ("TRUE", "FALSE"):
            return upper == "TRUE"
        if upper == "NULL":
            return None
        if kind == "name" and self.peek()[1] == "(":  # date('2020-01-01'), datetime(...)
            self.i += 1
            arg = self.value()
            self.take(")")
            return _temporal(upper, arg)
        raise _Unsupported(f"value {text!r} is not a literal")


def _temporal(function: str, arg: object) -> object:
    try:
        if function == "DATE" and isinstance(arg, str):
            return dt.date.fromisoformat(arg)
        if function in ("DATETIME", "LOCALDATETIME") and isinstance(arg, str):
            return dt.datetime.fromisoformat(arg.replace("Z", "+00:00"))
    except ValueError:
        pass
    return arg


def read(text: str, name: str = "script") -> GraphData:
    """The graph a CREATE script builds. ParseError when nothing in it could be read."""
    graph = GraphData()
    reader = _Reader(_tokens(text), graph)
    skipped = reader.script()
    if not graph.nodes:
        if skipped:
            raise ParseError(f"no CREATE statements could be read ({skipped} statements skipped; "
                             f"first: {graph.warnings[0] if graph.warnings else '?'})")
        raise SkipFile("the script creates no nodes")
    if skipped:
        graph.warnings.insert(0, f"{skipped} statements of {name} were not read")
    return graph
