"""Model manager: the catalog of roles and models, installing and verifying their files."""

from engine.models.catalog import Catalog, ModelFile, ModelSpec, load_catalog
from engine.models.manager import ModelManager

__all__ = ["Catalog", "ModelFile", "ModelManager", "ModelSpec", "load_catalog"]
