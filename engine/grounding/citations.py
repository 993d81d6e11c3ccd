"""Grounded evidence for the answer prompt: one numbered line per visible region, and the annotated photo.

Two settings, compared by the benchmark (GranuRAG): *grounded* lists only the elements seen in the
photo, each with the box to cite; *whole inventory* (setting C) lists every inventory element in the
same format, without grounding, as the baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.grounding.annotate import annotate
from engine.grounding.inventory import Element, Inventory
from engine.grounding.matching import Grounding
from engine.runtimes.vision.regions import Region


@dataclass(frozen=True)
class ElementCitation:
    """One numbered evidence line; `region` is None in the whole-inventory baseline."""

    n: int
    element: Element
    line: str
    region: Region | None = None
    score: float | None = None

    @property
    def locator(self) -> dict:
        """What a citation [n] points at: the box in the photo and the element it shows."""
        out: dict = {"element": self.element.id, "entity": self.element.entity, "name": self.element.name}
        if self.region is not None:
            out.update(box=[round(float(v), 1) for v in self.region.box], kind=self.region.kind,
                       label=self.region.label)
        return out


def grounded_evidence(grounding: Grounding, start: int = 1) -> list[ElementCitation]:
    """One citation per kept region, numbered from `start`:
    "[1] Chelsea — tabby fur (cat, score .88) at box (12,30,200,280): orange-brown tabby fur ..."."""
    items = []
    for i, decision in enumerate(grounding.kept):
        element, region = decision.element, decision.region
        assert element is not None
        n = start + i
        box = ",".join(str(round(v)) for v in region.box)
        line = f"[{n}] {element.title} ({region.label or region.kind}, score {_short(decision.score)}) at box ({box})"
        items.append(ElementCitation(n, element, _with_description(line, element), region, decision.score))
    return items


def inventory_evidence(inventory: Inventory, start: int = 1) -> list[ElementCitation]:
    """Every inventory element in the same format, without boxes or scores (GranuRAG setting C):
    "[1] Chelsea — tabby fur (cat): orange-brown tabby fur ..."."""
    items = []
    for i, element in enumerate(inventory.elements):
        n = start + i
        said = "/".join(element.labels) or element.entity_kind
        line = f"[{n}] {element.title}" + (f" ({said})" if said else "")
        items.append(ElementCitation(n, element, _with_description(line, element)))
    return items


def render(items: list[ElementCitation]) -> str:
    """The evidence lines as one block for the prompt."""
    return "\n".join(item.line for item in items)


def annotate_evidence(image: np.ndarray, items: list[ElementCitation]) -> np.ndarray:
    """The photo with each cited region's box numbered as in the evidence lines (for a VLM and the app)."""
    boxed = [(item.region.box, item.element.name, item.n) for item in items if item.region is not None]
    return annotate(image, [(box, name) for box, name, _ in boxed], numbers=[n for _, _, n in boxed])


def _with_description(line: str, element: Element) -> str:
    return f"{line}: {element.description}" if element.description and not element.generic else line


def _short(value: float) -> str:
    text = f"{value:.2f}"
    return text[1:] if text.startswith("0.") else text
