"""Trove's desktop app (PySide6): sources, asking, clickable citations, models. Uses the engine's
public API (`engine.pipeline.Trove`) and runs every engine call off the UI thread."""
