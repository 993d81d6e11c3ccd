import ast
import importlib.util
import sys

import pytest

from engine.ingest import preloading
from tests.conftest import ROOT

OWN_PACKAGES = {"engine", "local_stores", "models", "desktop"}  # `from local_stores import x`: x is the module


def test_preload_imports_every_installed_module_indexing_loads_lazily():
    missing = preloading.preload()
    assert all(importlib.util.find_spec(name.split(".")[0]) is None for name in missing)  # optional kinds
    assert all(name in sys.modules for name in preloading.MODULES if name not in missing)
    assert "pypdf" in sys.modules and "docx" in sys.modules


def test_preload_names_a_library_that_is_not_installed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(preloading, "MODULES", ("pypdf", "no_such_parser_library"))
    assert preloading.preload() == ["no_such_parser_library"]


def test_every_module_indexing_imports_inside_a_function_is_preloaded():
    """Ingest, the stores and the value index (engine.native): a module first imported on the indexing
    thread stalls the app's window (CI: 264 ms for python-pptx, then rdflib's SPARQL parser)."""
    lazy: dict[str, str] = {}
    for folder in (ROOT / "engine" / "ingest", ROOT / "engine" / "native", ROOT / "local_stores"):
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef):
                    for name in _lazy_imports(node):
                        lazy.setdefault(name, path.name)
    unloaded = {name: where for name, where in lazy.items() if name not in preloading.MODULES
                and not any(name == c or name.startswith(c + ".") for c in preloading.SERVER_CLIENTS)}
    assert unloaded == {}
    assert "rdflib.plugins.sparql" in lazy and "pptx" in lazy  # the scan reads what it should


def _lazy_imports(function: ast.FunctionDef) -> list[str]:
    names = []
    for node in ast.walk(function):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in OWN_PACKAGES:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return [name for name in names if name not in OWN_PACKAGES and name.split(".")[0] not in sys.stdlib_module_names]
