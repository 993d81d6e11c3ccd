"""The element inventory: every element grounding may name, from knowledge packs or from the regions.

Pack elements carry a description, detector labels, OCR words and reference crops. When no pack
element matches a region, a *generic* element is built from the region itself ("a cat",
"text 'TRAM 28'"), so grounding also works with no pack at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.grounding.pack import Box, KnowledgePack
from engine.runtimes.embedders import TextEmbedderLike
from engine.runtimes.vision.regions import FACE, TEXT, Region

# Darknet/VOC spellings some detectors use, and a few plain synonyms, mapped to COCO names.
_LABEL_ALIASES = {
    "motorbike": "motorcycle", "aeroplane": "airplane", "diningtable": "dining table", "sofa": "couch",
    "tvmonitor": "tv", "tv monitor": "tv", "pottedplant": "potted plant", "cellphone": "cell phone",
    "human face": "face", "people": "person", "man": "person", "woman": "person",
}


def normalise_label(label: str) -> str:
    """Lower case, single spaces, underscores as spaces, VOC spellings as COCO names."""
    text = " ".join(label.replace("_", " ").lower().split())
    return _LABEL_ALIASES.get(text, text)


def words(text: str) -> list[str]:
    """Lower-case alphanumeric tokens (for OCR-word hits)."""
    return re.findall(r"[0-9a-z]+", text.lower())


@dataclass(frozen=True)
class Reference:
    """Where an element can be seen: a reference photo and a box in it (None = the whole photo)."""

    photo: Path
    box: Box | None = None


@dataclass(frozen=True)
class Element:
    """One nameable element. `id` is stable across runs ("Chelsea/tabby fur", "generic/object/cat")."""

    id: str
    name: str
    description: str = ""
    entity: str = ""  # "" for generic elements
    entity_kind: str = ""
    labels: tuple[str, ...] = ()
    text: tuple[str, ...] = ()
    references: tuple[Reference, ...] = ()
    generic: bool = False

    @property
    def title(self) -> str:
        """How answers and evidence lines name it: "Chelsea — tabby fur", "Grandpa's bicycle", or "a cat"."""
        if not self.entity or self.entity.lower() == self.name.lower():
            return self.name
        return f"{self.entity} \u2014 {self.name}"

    def match_text(self) -> str:
        """The sentence embedded for text matching: name, description, labels and OCR words."""
        parts = [self.name]
        if self.description and self.description.lower() != self.name.lower():
            parts.append(self.description)
        if self.labels:
            parts.append(", ".join(self.labels))
        if self.text:
            parts.append("text " + " ".join(f"'{t}'" for t in self.text))
        return ". ".join(parts)

    def as_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "entity": self.entity, "kind": self.entity_kind,
                "description": self.description, "labels": list(self.labels), "text": list(self.text),
                "generic": self.generic}


def region_labels(region: Region) -> list[str]:
    """The region's normalised labels: its detector label plus any classifier labels the pipeline put in
    `region.extra["labels"]` (e.g. ImageNet words "tabby, tabby cat" split on commas)."""
    labels = [normalise_label(region.label)] if region.kind != TEXT and region.label else []
    for extra in region.extra.get("labels", []) or []:
        labels += [normalise_label(part) for part in str(extra).split(",") if part.strip()]
    return list(dict.fromkeys(label for label in labels if label))


def region_text(region: Region) -> str:
    """What a region says about itself, as text to embed: its labels, and its OCR string."""
    if region.kind == TEXT:
        return f"text '{region.text.strip()}'" if region.text.strip() else "text"
    labels = region_labels(region)
    if region.kind == FACE:
        labels = ["a human face"] + [label for label in labels if label != "face"]
    said = ", ".join(labels) or region.kind
    return f"{said}. text '{region.text.strip()}'" if region.text.strip() else said


def generic_element(region: Region) -> Element:
    """The element a region is when no pack element matches: "a cat", "a face", "text 'TRAM 28'"."""
    if region.kind == TEXT:
        said = " ".join(region.text.split())
        short = said if len(said) <= 40 else said[:39] + "\u2026"
        name = f"text '{short}'" if short else "some text"
        return Element(f"generic/text/{said.lower()}", name, "text read in the photo", labels=("text",),
                       text=(said,) if said else (), generic=True)
    label = normalise_label(region.label) or region.kind
    article = "an" if label[:1] in "aeiou" else "a"
    return Element(f"generic/{region.kind}/{label}", f"{article} {label}", f"a {region.kind} detected as '{label}'",
                   labels=(label,), generic=True)


@dataclass
class Inventory:
    """All pack elements, in pack order. Caches their text vectors per text embedder."""

    elements: list[Element] = field(default_factory=list)
    _text_cache: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_packs(cls, packs: Iterable[KnowledgePack]) -> Inventory:
        """Elements of every entity of every pack; an element with a box cites the entity's first photo,
        one without a box cites each reference photo whole."""
        elements: list[Element] = []
        seen: set[str] = set()
        for pack in packs:
            for entity in pack.entities:
                for item in entity.elements:
                    refs: tuple[Reference, ...]
                    if item.box is not None:
                        refs = (Reference(entity.reference_photos[0], item.box),)
                    else:
                        refs = tuple(Reference(photo) for photo in entity.reference_photos)
                    element_id = f"{entity.name}/{item.name}"
                    if element_id in seen:  # the same entity in two packs: the first pack wins
                        continue
                    seen.add(element_id)
                    elements.append(Element(element_id, item.name, item.description, entity.name, entity.kind,
                                            tuple(normalise_label(label) for label in item.labels), item.text, refs))
        return cls(elements)

    def __len__(self) -> int:
        return len(self.elements)

    def by_id(self, element_id: str) -> Element | None:
        return next((e for e in self.elements if e.id == element_id), None)

    def text_vectors(self, embedder: TextEmbedderLike) -> np.ndarray:
        """(n, d) unit vectors of each element's `match_text()`, computed once per embedder."""
        key = id(embedder)
        if key not in self._text_cache:
            self._text_cache[key] = embedder.embed([e.match_text() for e in self.elements])
        return self._text_cache[key]


