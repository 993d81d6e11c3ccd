import ast
import importlib.util
import sys

import pytest

from engine.ingest import libraries
from tests.conftest import ROOT

OWN_PACKAGES = {"engine", "local_stores", "models", "desktop"}


def test_preload_imports_every_installed_library_ingest_loads_lazily():
    missing = libraries.preload()
    assert all(importlib.util.find_spec(name.split(".")[0]) is None for name in missing)  # optional kinds
    assert all(name in sys.modules for name in libraries.LIBRARIES if name not in missing)
    assert "pypdf" in sys.modules and "docx" in sys.modules


def test_preload_names_a_library_that_is_not_installed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(libraries, "LIBRARIES", ("pypdf", "no_such_parser_library"))
    assert libraries.preload() == ["no_such_parser_library"]


def test_every_library_ingest_imports_inside_a_function_is_preloaded():
    preloaded = {name.split(".")[0] for name in libraries.LIBRARIES}
    lazy = {}
    for path in (ROOT / "engine" / "ingest").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for top in _third_party_imports(node):
                    lazy.setdefault(top, path.name)
    assert {top: where for top, where in lazy.items() if top not in preloaded} == {}


def _third_party_imports(function: ast.FunctionDef) -> list[str]:
    names = []
    for node in ast.walk(function):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    tops = [name.split(".")[0] for name in names]
    return [top for top in tops if top not in OWN_PACKAGES and top not in sys.stdlib_module_names]
