"""The lint of issue 20: statement text (SQL, Cypher, SPARQL) is composed only from constants,
bound-parameter marks and the quoting helpers of `local_stores.quoting`.

A statement-like f-string, `%`/`.format` template or `+` concatenation outside `local_stores/quoting`
may interpolate only: constants and UPPER_CASE module constants; calls of the quoting helpers, of a
function of the same module annotated `-> Quoted`, of `check_query` (the sandbox's own checked
statement), `int` or `len`; parameters annotated `Quoted`, `int` or `float`; local names whose
every assignment is one of these; joins, concatenations and conditionals of them. Anything else
(an attribute, a subscript, an unannotated parameter) fails with its file and line.

A statement that rewrites a generated query (the app's viewers widen a cited query to show its
paths or triples) is run through the same sandbox as the query itself; its line says so with a
`# sandboxed: <why>` comment (on it or the line above), which this lint accepts and nothing else does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CHECKED = ("engine", "local_stores", "desktop", "installers", "bench")
EXEMPT = ROOT / "local_stores" / "quoting"
KEYWORDS = re.compile(r"\b(SELECT|FROM|WHERE|CREATE|TABLE|INSERT|INTO|VALUES|DELETE|DROP|ALTER|COPY|ATTACH|"
                      r"PRAGMA|EXPLAIN|MATCH|MERGE|UNWIND|RETURN|LIMIT|ORDER BY|GROUP BY|COMMENT ON|PREFIX|"
                      r"DISTINCT|CAST|UNION|FILTER|OPTIONAL)\b")
EXECUTING = {"execute", "executemany", "executescript", "query", "_rows", "sql", "fetch"}
SAFE_CALLS = {"check_query", "int", "len"}
SAFE_ANNOTATIONS = {"Quoted", "int", "float"}


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(_text(v) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _text(node.left) + " " + _text(node.right)
    return ""


def _statement_like(node: ast.AST, executed: bool) -> bool:
    found = set(KEYWORDS.findall(_text(node)))
    return len(found) >= 2 or (executed and len(found) >= 1)


def _in_raise(node: ast.AST, parents: dict) -> bool:
    """Inside a `raise` statement: an error message, not a statement."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Raise):
            return True
    return False


class Module:
    """One source file: what its names mean, to tell safe interpolations from unsafe ones."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = path.read_text(encoding="utf-8").splitlines()
        self.tree = ast.parse("\n".join(self.lines))
        self.quoting_names: set[str] = set()  # functions and module aliases from local_stores.quoting
        self.quoted_functions: set[str] = set()  # this module's functions annotated -> Quoted
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("local_stores.quoting"):
                self.quoting_names |= {a.asname or a.name for a in node.names}
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _returns_quoted(node):
                self.quoted_functions.add(node.name)
        self.parents = {child: parent for parent in ast.walk(self.tree) for child in ast.iter_child_nodes(parent)}

    def function_of(self, node: ast.AST) -> ast.AST:
        while node in self.parents and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            node = self.parents[node]
        return node if node in self.parents else self.tree

    def safe_call(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "Quoted":  # an assertion, as safe as what it wraps
            return bool(call.args) and self.safe(call.args[0])
        if isinstance(func, ast.Name):
            return func.id in self.quoting_names | self.quoted_functions | SAFE_CALLS
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in self.quoting_names:
                return True
            if func.attr == "join" and len(call.args) == 1:
                return self.safe(call.args[0])
        return False

    def safe_name(self, name: ast.Name, seen: frozenset[str]) -> bool:
        if name.id.isupper() or name.id in seen:
            return True
        scope = self.function_of(name)
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in [*scope.args.args, *scope.args.kwonlyargs, *scope.args.posonlyargs]:
                if arg.arg == name.id:
                    return arg.annotation is not None and ast.unparse(arg.annotation) in SAFE_ANNOTATIONS
        values = list(self._assigned(scope, name.id))
        return bool(values) and all(v is not None and self.safe(v, seen | {name.id}) for v in values)

    def _assigned(self, scope: ast.AST, name: str):  # noqa: ANN202 (values, None when not understood)
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign):
                if any(name in _names(t) for t in node.targets):  # a tuple target: its whole value
                    yield node.value
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                if isinstance(node.target, ast.Name) and node.target.id == name:
                    yield node.value
            elif isinstance(node, (ast.For, ast.comprehension)) and name in _names(node.target):
                yield node.iter if self._quoted_source(node.iter) else None

    def _quoted_source(self, iterable: ast.AST) -> bool:
        """Iterating a call of a function annotated with `Quoted` in its return type (directly, or
        through a local name assigned only such calls)."""
        if isinstance(iterable, ast.Name):
            values = list(self._assigned(self.function_of(iterable), iterable.id))
            return bool(values) and all(v is not None and self._quoted_source(v) for v in values)
        return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
            and iterable.func.id in self.quoted_functions


    def safe(self, node: ast.AST | None, seen: frozenset[str] = frozenset()) -> bool:
        if node is None or isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return self.safe_name(node, seen)
        if isinstance(node, ast.Call):
            return self.safe_call(node) and not (isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                                                 and not self.safe(node.args[0], seen))
        if isinstance(node, ast.FormattedValue):
            return self.safe(node.value, seen)
        if isinstance(node, ast.JoinedStr):
            return all(self.safe(v, seen) for v in node.values if isinstance(v, ast.FormattedValue))
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Mod):
            return self.safe(node.left, seen) and self.safe(node.right, seen)
        if isinstance(node, ast.IfExp):
            return self.safe(node.body, seen) and self.safe(node.orelse, seen)
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            targets = {n for gen in node.generators for n in _names(gen.target)
                       if self._quoted_source(gen.iter)}
            return self.safe(node.elt, seen | targets)
        if isinstance(node, ast.Subscript):  # an entry of a constant table of the module
            return isinstance(node.value, ast.Name) and node.value.id.isupper()
        if isinstance(node, (ast.List, ast.Tuple)):
            return all(self.safe(e, seen) for e in node.elts)
        return False

    def problems(self) -> list[str]:
        out = []
        for node in ast.walk(self.tree):
            if _in_raise(node, self.parents) or self._sandboxed(node):
                continue
            parent = self.parents.get(node)
            executed = isinstance(parent, ast.Call) and node in parent.args[:1] and (
                getattr(parent.func, "attr", None) in EXECUTING or getattr(parent.func, "id", None) in EXECUTING)
            if isinstance(node, ast.JoinedStr) and _statement_like(node, executed) and not self.safe(node):
                out.append(self._where(node, "f-string"))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _statement_like(node.left, executed):
                out.append(self._where(node, "%-template"))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and not isinstance(parent, ast.BinOp) \
                    and _statement_like(node, executed) and not self.safe(node):
                out.append(self._where(node, "concatenation"))
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "format" \
                    and _statement_like(node.func.value, executed):  # type: ignore[attr-defined]
                out.append(self._where(node, ".format template"))
        return out

    def _sandboxed(self, node: ast.AST) -> bool:
        lines = range(max(getattr(node, "lineno", 1) - 2, 0), getattr(node, "end_lineno", 0) or 0)  # and the line above
        return any(re.search(r"# sandboxed: \S.{8,}", self.lines[i]) for i in lines)

    def _where(self, node: ast.AST, what: str) -> str:
        where = self.path.relative_to(ROOT) if ROOT in self.path.parents else self.path
        return f"{where}:{node.lineno}: {what} composes a statement: {ast.unparse(node)[:120]}"


def _returns_quoted(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return function.returns is not None and "Quoted" in ast.unparse(function.returns)


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _sources() -> list[Path]:
    return sorted(p for folder in CHECKED for p in (ROOT / folder).rglob("*.py") if EXEMPT not in p.parents)


def test_statements_are_composed_only_through_the_quoting_helpers() -> None:
    problems = [p for path in _sources() for p in Module(path).problems()]
    assert not problems, "statement text built outside local_stores.quoting:\n" + "\n".join(problems)


@pytest.mark.parametrize(("source", "flagged"), [
    ('def f(name):\n    con.execute(f\'SELECT * FROM "{name}"\')\n', True),
    ("def f(name):\n    q = 'SELECT * FROM ' + name + ' WHERE 1'\n", True),
    ("def f(t):\n    con.execute('DROP TABLE %s' % t)\n", True),
    ("def f(t):\n    con.execute('SELECT a FROM {}'.format(t))\n", True),
    ("def f(row):\n    con.execute(f\"MATCH (n:{row['label']}) RETURN n\")\n", True),
    ("from local_stores.quoting import duckdb_sql as duck\n"
     "def f(name):\n    con.execute(f'SELECT * FROM {duck.ident(name)}')\n", False),
    ("from local_stores.quoting.sparql import iri\n"
     "def f(p):\n    v = iri(p)\n    q = f'SELECT ?o WHERE {{ ?s {v} ?o }} LIMIT {LIMIT}'\n", False),
    ("from local_stores.quoting import Quoted\n"
     "def f(ref: Quoted, n: int):\n    con.execute(f'SELECT count(*) FROM {ref} LIMIT {n}')\n", False),
    ("def f(kind):\n    raise ValueError(f'only read-only SELECT queries may run, not {kind}')\n", False),
    ("def f(q):\n    return f'{q} RETURN p LIMIT 5'  # sandboxed: a generated query, widened\n", False),
    ("def f(q):\n    return f'{q} RETURN p LIMIT 5'  # sandboxed:\n", True),
])
def test_the_lint_tells_composed_statements_from_quoted_ones(tmp_path: Path, source: str, flagged: bool) -> None:
    path = tmp_path / "sample.py"
    path.write_text(source, encoding="utf-8")
    problems = Module(path).problems()
    assert bool(problems) is flagged, problems
