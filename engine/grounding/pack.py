"""Knowledge packs: a person's own list of the things in their photos (entities and their elements).

A pack is a YAML file named `trove-pack.yaml` or `*.trove-pack.yaml` (format: docs/knowledge-pack.md).
Loading validates every field and fails with a `ParseError` naming the file and the field, so a
person can fix the pack themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from engine.errors import ParseError

PACK_NAME = "trove-pack.yaml"
PACK_SUFFIX = ".trove-pack.yaml"

Box = tuple[float, float, float, float]

_PACK_KEYS = {"name", "entities"}
_ENTITY_KEYS = {"name", "kind", "description", "reference_photos", "elements"}
_ELEMENT_KEYS = {"name", "description", "labels", "text", "box"}


@dataclass(frozen=True)
class PackElement:
    """One visible part of an entity ("tabby fur", "red collar") and how to recognise it."""

    name: str
    description: str = ""
    labels: tuple[str, ...] = ()  # detector / classifier labels it shows up as
    text: tuple[str, ...] = ()  # OCR words that identify it
    box: Box | None = None  # in the entity's first reference photo; None = the whole photo


@dataclass(frozen=True)
class Entity:
    """A thing, pet or person the pack describes, with its reference photos and elements."""

    name: str
    kind: str = ""
    description: str = ""
    reference_photos: tuple[Path, ...] = ()  # absolute paths
    elements: tuple[PackElement, ...] = ()


@dataclass(frozen=True)
class KnowledgePack:
    path: Path
    name: str
    entities: tuple[Entity, ...]


def is_pack_file(path: Path) -> bool:
    """True for `trove-pack.yaml` and `*.trove-pack.yaml` (case-insensitive)."""
    name = path.name.lower()
    return name == PACK_NAME or name.endswith(PACK_SUFFIX)


def find_packs(folder: Path) -> list[Path]:
    """Every pack file under `folder`, sorted, so packs can live beside the photos they describe."""
    return sorted(p for p in folder.rglob("*.yaml") if p.is_file() and is_pack_file(p))


def load_pack(path: Path | str) -> KnowledgePack:
    """Read and validate a pack; reference photo paths are resolved relative to the pack file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ParseError(f"{path}: cannot read the knowledge pack: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ParseError(f"{path}: the knowledge pack is not UTF-8 text") from exc
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        raise ParseError(f"{path}: not valid YAML{at}: {getattr(exc, 'problem', None) or exc}") from exc
    return _Loader(path).pack(raw)


class _Loader:
    """Validation with the file and a field path ("entities[0].elements[1].box") in every message."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field: str, reason: str) -> ParseError:
        return ParseError(f"{self.path}: {field}: {reason}")

    def pack(self, raw: Any) -> KnowledgePack:
        if raw is None:
            raise ParseError(f"{self.path}: the knowledge pack is empty; it needs an 'entities' list")
        if not isinstance(raw, dict):
            raise ParseError(f"{self.path}: the knowledge pack must be a mapping with an 'entities' list")
        self.unknown(raw, _PACK_KEYS, "")
        name = self.optional_str(raw, "name", "name") or self.path.name
        entities_raw = raw.get("entities")
        if not isinstance(entities_raw, list) or not entities_raw:
            raise self.fail("entities", "missing or empty; list the entities the pack describes")
        entities = tuple(self.entity(e, f"entities[{i}]") for i, e in enumerate(entities_raw))
        seen: set[str] = set()
        for i, entity in enumerate(entities):
            if entity.name.lower() in seen:
                raise self.fail(f"entities[{i}].name", f"'{entity.name}' is listed twice")
            seen.add(entity.name.lower())
        return KnowledgePack(self.path, name, entities)

    def entity(self, raw: Any, field: str) -> Entity:
        if not isinstance(raw, dict):
            raise self.fail(field, "must be a mapping with at least a 'name'")
        self.unknown(raw, _ENTITY_KEYS, field)
        name = self.required_str(raw, "name", f"{field}.name")
        kind = self.optional_str(raw, "kind", f"{field}.kind")
        description = self.optional_str(raw, "description", f"{field}.description")
        photos = tuple(self.photo(p, f"{field}.reference_photos[{i}]")
                       for i, p in enumerate(self.str_list(raw, "reference_photos", f"{field}.reference_photos")))
        elements_raw = raw.get("elements")
        elements: tuple[PackElement, ...]
        if elements_raw is None:  # an entity with no elements is one element: itself
            elements = (PackElement(name, description),)
        elif not isinstance(elements_raw, list) or not elements_raw:
            raise self.fail(f"{field}.elements", "must be a non-empty list (or left out)")
        else:
            elements = tuple(self.element(e, f"{field}.elements[{i}]", photos) for i, e in enumerate(elements_raw))
        seen: set[str] = set()
        for i, element in enumerate(elements):
            if element.name.lower() in seen:
                raise self.fail(f"{field}.elements[{i}].name", f"'{element.name}' is listed twice in '{name}'")
            seen.add(element.name.lower())
        return Entity(name, kind, description, photos, elements)

    def element(self, raw: Any, field: str, photos: tuple[Path, ...]) -> PackElement:
        if not isinstance(raw, dict):
            raise self.fail(field, "must be a mapping with at least a 'name'")
        self.unknown(raw, _ELEMENT_KEYS, field)
        name = self.required_str(raw, "name", f"{field}.name")
        description = self.optional_str(raw, "description", f"{field}.description")
        labels = tuple(s.strip() for s in self.str_list(raw, "labels", f"{field}.labels"))
        text = tuple(s.strip() for s in self.str_list(raw, "text", f"{field}.text"))
        box = self.box(raw.get("box"), f"{field}.box", photos) if raw.get("box") is not None else None
        return PackElement(name, description, labels, text, box)

    def box(self, raw: Any, field: str, photos: tuple[Path, ...]) -> Box:
        numbers = isinstance(raw, list) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
        if not numbers or len(raw) != 4:
            raise self.fail(field, f"must be 4 numbers [x1, y1, x2, y2] in pixels, got {raw!r}")
        x1, y1, x2, y2 = (float(v) for v in raw)
        if x1 < 0 or y1 < 0 or x2 <= x1 or y2 <= y1:
            raise self.fail(field, f"needs 0 <= x1 < x2 and 0 <= y1 < y2, got {raw!r}")
        if not photos:
            raise self.fail(field, "a box needs a reference photo to point into; add reference_photos to the entity")
        width, height = self.photo_size(photos[0], field)
        if x2 > width or y2 > height:
            raise self.fail(field, f"{raw!r} lies outside {photos[0].name} ({width}x{height} pixels)")
        return x1, y1, x2, y2

    def photo(self, raw: str, field: str) -> Path:
        photo = Path(raw).expanduser()
        photo = photo if photo.is_absolute() else (self.path.parent / photo)
        if not photo.is_file():
            raise self.fail(field, f"reference photo not found: {photo} (paths are relative to the pack file)")
        return photo.resolve()

    def photo_size(self, photo: Path, field: str) -> tuple[int, int]:
        """Width and height as displayed (after EXIF rotation), read from the header only."""
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(photo) as image:
                orientation = image.getexif().get(0x0112, 1)
                width, height = image.size
        except (OSError, UnidentifiedImageError) as exc:
            raise self.fail(field, f"cannot read the reference photo {photo.name}: {exc}") from exc
        return (height, width) if orientation in (5, 6, 7, 8) else (width, height)

    def unknown(self, raw: dict, allowed: set[str], field: str) -> None:
        for key in raw:
            if key not in allowed:
                where = f"{field}.{key}" if field else str(key)
                raise self.fail(where, f"unknown field; expected one of {', '.join(sorted(allowed))}")

    def required_str(self, raw: dict, key: str, field: str) -> str:
        value = raw.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise self.fail(field, "missing; every entity and element needs a name")
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise self.fail(field, f"must be text, got {value!r}")
        return str(value).strip()

    def optional_str(self, raw: dict, key: str, field: str) -> str:
        value = raw.get(key)
        if value is None:
            return ""
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise self.fail(field, f"must be text, got {value!r}")
        return str(value).strip()

    def str_list(self, raw: dict, key: str, field: str) -> list[str]:
        value = raw.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(field, f"must be a list of non-empty strings, got {value!r}")
        return value
