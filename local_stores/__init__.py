"""Embedded stores: one module per engine, plus the catalog of roots, files and sources."""
