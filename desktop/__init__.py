"""Trove's desktop app (PySide6): sources, asking, clickable citations, models. Uses the engine's
public API (`engine.pipeline.Trove`) and runs every engine call off the UI thread."""

from desktop import _compat  # noqa: F401  (a PySide6 6.12.0 bug on Python 3.11, see there)
