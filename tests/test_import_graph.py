"""The shape of the tree: no import circles among Trove's modules (imports inside functions count:
a circle closed by a late import is still a circle), and the app reads the engine through its
public API only (`from engine import ...`)."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "local_stores", "desktop")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import outside `if TYPE_CHECKING:` blocks, at any depth."""
    out: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.module and not child.level:
                out.append((child.module, [a.name for a in child.names]))
            elif isinstance(child, ast.Import):
                out.extend((a.name, []) for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for module, names in _imports(path):
            targets |= {f"{module}.{n}" for n in names if f"{module}.{n}" in modules} or {module}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in graph:
        if v not in index:
            connect(v)
    return found


def test_no_module_imports_itself_round_a_circle():
    graph = _graph()
    assert len(graph) > 100  # the whole tree was read
    assert _circles(graph) == []


def test_a_circle_would_be_found():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_app_reads_the_engine_through_its_public_api_only():
    used = {}
    for path in (ROOT / "desktop").rglob("*.py"):
        for module, names in _imports(path) + _type_only_imports(path):
            if module == "engine" or module.startswith("engine."):
                used.setdefault(module, set()).update(names)
    assert set(used) == {"engine"}, f"the app imports engine internals: {sorted(set(used) - {'engine'})}"
    assert used["engine"] <= set(engine.__all__)
    assert all(getattr(engine, name) is not None for name in engine.__all__)  # each public name loads


def _type_only_imports(path: Path) -> list[tuple[str, list[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.module, [a.name for a in node.names]) for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for node in ast.walk(block) if isinstance(node, ast.ImportFrom) and node.module]
