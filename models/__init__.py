"""Model catalog (catalog.toml) and the project's own trained artefacts."""

from pathlib import Path

CATALOG_PATH = Path(__file__).with_name("catalog.toml")
