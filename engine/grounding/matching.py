"""Matching one photo's regions to inventory elements: the visible set, and why each region was (not) kept.

For every region: drop it when the detector was unsure or it is tiny, drop the larger of two boxes that
overlap >= 80 % (GranuRAG: the smaller holds the detail), then score it against every element:
text similarity (its label/OCR text vs the element's description, labels and words, with exact label
and OCR-word hits counting strongly) combined with image similarity (its crop vs the element's
reference crops) when an image embedder and reference photos exist. Every decision keeps a reason, so
a person can see why something was or was not said.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.grounding.annotate import crop, load_image
from engine.grounding.inventory import (
    Element,
    Inventory,
    generic_element,
    region_labels,
    region_text,
    words,
)
from engine.runtimes.embedders import ImageEmbedderLike, TextEmbedderLike
from engine.runtimes.vision.regions import Region, intersection, keep_smaller

MATCHED, GENERIC = "matched", "generic"
LOW_SCORE, TOO_SMALL, OVERLAP, NO_MATCH, VLM_REJECTED = "low-score", "too-small", "overlap", "no-match", "vlm-rejected"


VlmCheck = Callable[[np.ndarray, Element], bool | None]  # (region crop BGR, element) -> does the crop show it?
# (None: the model could not look, e.g. the picture overflowed its context: the match stands unconfirmed)


@dataclass
class GroundingSettings:
    """Thresholds and weights of matching. Scores are in [0, 1].

    Text score = 1 - (1 - cosine)(1 - label_hit·[label hit])(1 - ocr_hit·[share of an element's words read]).
    Image score = max cosine to the element's reference crops, rescaled so `image_floor` (what unrelated
    photos reach with the Coral embedder, .36-.54) maps to 0 and 1 stays 1. With both, the match score
    is their weighted mean; without an image score it is the text score."""

    min_score: dict[str, float] = field(default_factory=lambda: {"object": 0.40, "face": 0.60, "text": 0.50})
    default_min_score: float = 0.40  # for kinds not in `min_score`
    min_side: float = 8.0  # pixels; smaller regions cannot be recognised reliably
    overlap: float | None = 0.8  # share of the smaller box inside the larger; None keeps every box
    # only boxes of one label compete: a cup on a table is a second element, not a finer copy of the table
    # (False applies GranuRAG's rule across labels, as for an open-vocabulary detector queried with elements)
    overlap_same_label: bool = True
    text_weight: float = 0.4
    image_weight: float = 0.6
    label_hit: float = 0.8
    ocr_hit: float = 0.8
    image_floor: float = 0.5
    match_threshold: float = 0.5
    generic: bool = True  # a region no pack element matches becomes "a cat", "text 'TRAM 28'"
    crop_margin: float = 0.08

    def min_score_for(self, kind: str) -> float:
        return self.min_score.get(kind, self.default_min_score)


@dataclass
class Decision:
    """What grounding did with one region: the element it shows (None = rejected) and why."""

    region: Region
    element: Element | None
    score: float  # match score; the detector score for generic elements and rejected-before-matching regions
    reason: str
    status: str  # matched | generic | low-score | too-small | overlap | no-match | vlm-rejected
    text_score: float | None = None
    image_score: float | None = None  # raw cosine to the best reference crop

    @property
    def kept(self) -> bool:
        return self.element is not None

    def as_dict(self) -> dict:
        return {"region": self.region.as_dict(), "element": self.element.as_dict() if self.element else None,
                "score": round(float(self.score), 4), "status": self.status, "reason": self.reason,
                "text_score": None if self.text_score is None else round(float(self.text_score), 4),
                "image_score": None if self.image_score is None else round(float(self.image_score), 4)}


@dataclass
class Grounding:
    """All decisions for one photo, in region order; the visible set is what the answer may talk about."""

    decisions: list[Decision]

    @property
    def kept(self) -> list[Decision]:
        """Decisions with an element: each is one citable box."""
        return [d for d in self.decisions if d.kept]

    @property
    def rejected(self) -> list[Decision]:
        return [d for d in self.decisions if not d.kept]

    @property
    def visible(self) -> list[Element]:
        """Elements with at least one matched region, each once, in region order."""
        return list({d.element.id: d.element for d in self.kept if d.element is not None}.values())

    def as_dict(self) -> dict:
        return {"visible": [e.id for e in self.visible], "decisions": [d.as_dict() for d in self.decisions]}


def reference_vectors(inventory: Inventory, image_embedder: ImageEmbedderLike,
                      margin: float = GroundingSettings.crop_margin) -> dict[str, np.ndarray]:
    """Element id -> (k, d) unit vectors of its reference crops. Slow-ish (one embedder run per crop):
    compute once per inventory and pass to `ground`, or keep it in a cache keyed by the pack files."""
    photos: dict[str, np.ndarray] = {}
    out: dict[str, np.ndarray] = {}
    for element in inventory.elements:
        vectors = []
        for ref in element.references:
            key = str(ref.photo)
            if key not in photos:
                photos[key] = load_image(ref.photo)
            image = photos[key]
            vectors.append(_embed_image(image_embedder, crop(image, ref.box, margin) if ref.box else image))
        if vectors:
            out[element.id] = np.stack(vectors)
    return out


def ground(image: np.ndarray, regions: list[Region], inventory: Inventory, text_embedder: TextEmbedderLike,
           image_embedder: ImageEmbedderLike | None = None, references: dict[str, np.ndarray] | None = None,
           settings: GroundingSettings | None = None, vlm_check: VlmCheck | None = None) -> Grounding:
    """Decide, for each region of one photo (BGR, the frame the boxes are in), which element it shows.

    `references` are `reference_vectors(inventory, image_embedder)`; computed here when an image embedder
    is given without them. `vlm_check`, when given, must confirm each match on the region crop."""
    settings = settings or GroundingSettings()
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    decisions: dict[int, Decision] = {}
    survivors = _filter(regions, settings, decisions)

    elements = inventory.elements
    text_scores = np.zeros((len(survivors), len(elements)), dtype=np.float32)
    image_cos = np.full((len(survivors), len(elements)), np.nan, dtype=np.float32)
    if survivors and elements:
        region_vecs = text_embedder.embed([region_text(region) for _, region in survivors])
        cosine = np.clip(region_vecs @ inventory.text_vectors(text_embedder).T, 0.0, 1.0)
        for row, (_, region) in enumerate(survivors):
            labels = set(region_labels(region))
            read = set(words(region.text))
            for col, element in enumerate(elements):
                label_hit = 1.0 if labels & set(element.labels) else 0.0
                text_scores[row, col] = 1.0 - (1.0 - cosine[row, col]) * (1.0 - settings.label_hit * label_hit) * (
                    1.0 - settings.ocr_hit * _share_read(element.text, read))
        if image_embedder is not None and any(e.references for e in elements):
            if references is None:
                references = reference_vectors(inventory, image_embedder, settings.crop_margin)
            for row, (_, region) in enumerate(survivors):
                vec = _embed_image(image_embedder, crop(image, region.box, settings.crop_margin))
                for col, element in enumerate(elements):
                    if element.id in references:
                        image_cos[row, col] = float(np.max(references[element.id] @ vec))

    for row, (index, region) in enumerate(survivors):
        decisions[index] = _decide(image, region, elements, text_scores[row], image_cos[row], settings, vlm_check)
    return Grounding([decisions[i] for i in range(len(regions))])


def _filter(regions: list[Region], settings: GroundingSettings,
            decisions: dict[int, Decision]) -> list[tuple[int, Region]]:
    """Regions that pass the detector-score, size and overlap rules; a decision for each one that does not."""
    passed: list[tuple[int, Region]] = []
    for index, region in enumerate(regions):
        need = settings.min_score_for(region.kind)
        width, height = region.box[2] - region.box[0], region.box[3] - region.box[1]
        if region.score < need:
            decisions[index] = Decision(region, None, region.score,
                                        f"below detector score {region.score:.2f} < {need:.2f}", LOW_SCORE)
        elif min(width, height) < settings.min_side:
            decisions[index] = Decision(region, None, region.score,
                                        f"too small ({width:.0f}x{height:.0f} px < {settings.min_side:.0f})", TOO_SMALL)
        else:
            passed.append((index, region))
    if settings.overlap is None:
        return passed
    groups: dict[tuple[str, str], list[Region]] = {}
    for _, region in passed:
        groups.setdefault((region.kind, region.label if settings.overlap_same_label else ""), []).append(region)
    kept_ids = {id(r) for group in groups.values() for r in keep_smaller(group, settings.overlap)}
    out = []
    for index, region in passed:
        if id(region) in kept_ids:
            out.append((index, region))
            continue
        finer = next((j for j, other in passed if other is not region and other.kind == region.kind
                      and (other.label == region.label or not settings.overlap_same_label)
                      and 0 < other.area <= region.area
                      and intersection(other.box, region.box) / other.area >= settings.overlap), None)
        what = f"region {finer + 1} ({_region_name(regions[finer])})" if finer is not None else "a smaller region"
        decisions[index] = Decision(region, None, region.score,
                                    f"overlaps {what} by >= {settings.overlap:.0%}: kept the finer box", OVERLAP)
    return out


def _decide(image: np.ndarray, region: Region, elements: list[Element], text_scores: np.ndarray,
            image_cos: np.ndarray, settings: GroundingSettings, vlm_check: VlmCheck | None) -> Decision:
    best, best_score, best_text, best_image = None, -1.0, None, None
    for col, element in enumerate(elements):
        text = float(text_scores[col])
        cos = None if np.isnan(image_cos[col]) else float(image_cos[col])
        score = text
        if cos is not None:
            image_part = float(np.clip((cos - settings.image_floor) / (1.0 - settings.image_floor), 0.0, 1.0))
            score = (settings.text_weight * text + settings.image_weight * image_part) / (
                settings.text_weight + settings.image_weight)
        if score > best_score:
            best, best_score, best_text, best_image = element, score, text, cos

    if best is not None and best_score >= settings.match_threshold:
        parts = f"text {_short(best_text)}" + (f", image {_short(best_image)}" if best_image is not None else "")
        decision = Decision(region, best, best_score,
                            f"matched {_quoted(best)} (score {_short(best_score)}: {parts})", MATCHED,
                            best_text, best_image)
    else:
        if best is None:
            missed = "no element in the inventory"
        else:
            missed = f"no element above {settings.match_threshold:.2f} (best: '{best.name}' {_short(best_score)})"
        if not settings.generic:
            return Decision(region, None, max(best_score, 0.0), missed, NO_MATCH, best_text, best_image)
        element = generic_element(region)
        decision = Decision(region, element, region.score,
                            f"{missed}; kept as {element.name} (detector {_short(region.score)})", GENERIC)
    if vlm_check is not None and decision.element is not None:
        seen = vlm_check(crop(image, region.box, settings.crop_margin), decision.element)
        if seen is None:
            decision.reason += "; the VLM could not look at it"
        elif not seen:
            return Decision(region, None, decision.score,
                            f"the VLM did not confirm {decision.element.title} ({decision.reason})", VLM_REJECTED,
                            decision.text_score, decision.image_score)
        else:
            decision.reason += "; confirmed by the VLM"
    return decision


def _share_read(phrases: tuple[str, ...], read: set[str]) -> float:
    """Best share of one identifying phrase's words that OCR read in the region (1.0 = all of them)."""
    best = 0.0
    for phrase in phrases:
        tokens = words(phrase)
        if tokens:
            best = max(best, sum(t in read for t in tokens) / len(tokens))
    return best


def _embed_image(embedder: ImageEmbedderLike, image: np.ndarray) -> np.ndarray:
    """A unit vector of one BGR crop, from `embed` (coral.ImageEmbedder) or `run`."""
    # an embedder with only run(image) is taken too, which the Protocol cannot say
    method = getattr(embedder, "embed", None) or embedder.run  # type: ignore[attr-defined]
    vector = np.asarray(method(image), dtype=np.float32).reshape(-1)
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def _quoted(element: Element) -> str:
    """'tabby fur' of Chelsea; just 'Chelsea' for an entity that is its own element."""
    if element.entity and element.entity.lower() != element.name.lower():
        return f"'{element.name}' of {element.entity}"
    return f"'{element.name}'"


def _short(value: float | None) -> str:
    """.62 style, as in the reasons people read."""
    if value is None:
        return "-"
    text = f"{value:.2f}"
    return text[1:] if text.startswith("0.") else text


def _region_name(region: Region) -> str:
    return f"text '{region.text}'" if region.kind == "text" and region.text else region.label or region.kind
