"""Photos and videos as evidence (UniversalRAG's visual corpora + GranuRAG's element grounding).

A photo is too coarse to cite: for each retrieved photo, its regions are grounded in the inventory
(the user's knowledge packs, else generic "a cat", "text 'TRAM 28'") and only the kept regions
become evidence, each with its box. The photo itself is evidence for what is *about* it (when,
where, captions), not for what is in it. Clips and whole videos are evidence as retrieved."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.corpora import CLIP, LOOKS, PHOTO, REGION, VIDEO
from engine.generation.finding import is_find, main_thing, names_in
from engine.locators import RegionLocator, as_locator, image_file, picture_fields
from engine.retrieval.hybrid import Hit, HybridRetriever
from local_stores.corpus_store import CorpusStore, Item

if TYPE_CHECKING:
    from engine.grounding.inventory import Inventory
    from engine.grounding.matching import Decision, GroundingSettings, VlmCheck
    from engine.runtimes.embedders import ImageEmbedderLike, TextEmbedderLike
    from engine.runtimes.vision.clip import ImageTextEmbedder

# said by the regions instead; what the whole photo looks like ("church, church building") no region says
_CONTENT_LINES = ("Shows ", "Text in the photo:")


@dataclass
class VisualContext:
    """What grounding needs at ask time; the inventory and reference vectors are cached by the caller."""

    store: CorpusStore
    retriever: HybridRetriever
    text_embedder: TextEmbedderLike
    image_embedder: ImageEmbedderLike | None = None
    inventory: Inventory | None = None
    references: dict[str, np.ndarray] | None = None
    grounding: GroundingSettings | None = None
    vlm_check: VlmCheck | None = None  # when a vision-language model is installed
    image_text: ImageTextEmbedder | None = None  # an imported CLIP/SigLIP: the question meets the photos' looks
    photos: int = 2  # photos grounded per question
    k: int = 8
    _next_id: int = field(default=-1, repr=False)

    def synthetic_id(self) -> int:
        """Ids for evidence that is not a stored item (a grounded region): negative, never clashing."""
        self._next_id -= 1
        return self._next_id


def visual_hits(ctx: VisualContext, question: str, vector: np.ndarray, labels: set[str]
                ) -> list[tuple[str, Hit]]:
    """Evidence for the visual routes among `labels` (image, region, clip, video), best first."""
    out: list[tuple[str, Hit]] = []
    if labels & {"image", "region"}:
        out += photo_hits(ctx, question, vector, "region" in labels)
    for label, corpus in (("clip", CLIP), ("video", VIDEO)):
        if label in labels:
            out += [(label, h) for h in close_to_best(ctx.retriever.search(question, corpus, ctx.k, vector=vector))]
    return out


def close_to_best(hits: list[Hit], share: float = 0.75, by_score: bool = True) -> list[Hit]:
    """The hits that score at least `share` of the best one (the fused score, comparable within one
    result list; else the dense relevance): a moment of a video that fits the question well is not
    to be drowned by the other moments of the same video."""
    if not hits:
        return hits

    def value(hit: Hit) -> float:
        return hit.score if by_score else hit.relevance

    top = max(value(h) for h in hits)
    return [h for h in hits if value(h) >= share * top]


def photo_hits(ctx: VisualContext, question: str, vector: np.ndarray, regions_too: bool) -> list[tuple[str, Hit]]:
    """The best photos (found by their own text or by one of their regions), each followed by its
    grounded regions."""
    photos = ctx.retriever.search(question, PHOTO, ctx.k, vector=vector)
    thing = main_thing(question) if is_find(question) else None
    if thing is not None:
        photos += _photos_showing(ctx, thing, vector, {h.item.id for h in photos})
    best: dict[int, Hit] = {h.item.file_id: h for h in photos}
    region_relevance: dict[int, dict[tuple, float]] = {}  # photo -> {box: how well the region fits the question}
    if regions_too:
        for region_hit in ctx.retriever.search(question, REGION, 4 * ctx.k, vector=vector):
            file_id = region_hit.item.file_id
            boxes = region_relevance.setdefault(file_id, {})
            boxes[_box_key(region_hit.item.locator.get("box", ()))] = region_hit.relevance
            photo_hit = best.get(file_id) or _photo_of(ctx, region_hit)
            if photo_hit is not None and region_hit.relevance > photo_hit.relevance:
                best[file_id] = Hit(photo_hit.item, max(photo_hit.score, region_hit.score),
                                    {**photo_hit.signals, "dense": region_hit.relevance}, region_hit.given)
    ranked = close_to_best(sorted(best.values(), key=lambda h: -h.relevance), by_score=False)
    if thing is not None:  # "find my photo of a cat sitting on the toilet": the cat first, not the toilet
        ranked.sort(key=lambda h: not names_in(h.item.text, h.item.source, {thing}))
    looks = looks_hits(ctx, question, vector)
    if looks:
        ranked = fuse_looks(ranked, looks)
    ranked = ranked[:ctx.photos]
    out: list[tuple[str, Hit]] = []
    for photo_hit in ranked:
        out += grounded(ctx, photo_hit, region_relevance.get(photo_hit.item.file_id, {}))
    return out


def _photos_showing(ctx: VisualContext, thing: str, vector: np.ndarray, known: set[int]) -> list[Hit]:
    """The photos whose text names the `thing` a find request asks for, by keyword, scored by how well
    they fit the question: a photo of a cat on a toilet is outranked by photos of toilets when the
    question says more about the toilet than the cat."""
    found = [item_id for item_id, _ in ctx.store.bm25(PHOTO, thing, ctx.k, ctx.retriever.files) if item_id not in known]
    vectors = ctx.store.vectors(PHOTO, found)
    items = ctx.store.items(list(vectors))
    return [Hit(items[i], float(v @ vector), {"dense": float(v @ vector)}) for i, v in vectors.items() if i in items]


def looks_hits(ctx: VisualContext, question: str, vector: np.ndarray) -> list[Hit]:
    """Photos whose looks fit the question (an imported text-image model), best first. A hit's relevance
    stays the question's similarity to the photo's own text (the scale every threshold is set on); how
    well it looks the part is the `looks` signal."""
    if ctx.image_text is None or not ctx.store.corpora().get(LOOKS):
        return []
    looks = dict(ctx.store.dense(LOOKS, ctx.image_text.embed_text(question), ctx.k, ctx.retriever.files))
    out: list[Hit] = []
    for item in ctx.store.items(list(looks)).values():
        photo = ctx.store.file_items(item.file_id, PHOTO)
        if photo:
            text_vector = ctx.store.vectors(PHOTO, [photo[0].id]).get(photo[0].id)
            relevance = float(text_vector @ vector) if text_vector is not None else 0.0
            out.append(Hit(photo[0], relevance, {"dense": relevance, "looks": looks[item.id]}))
    return sorted(out, key=lambda h: -h.signals["looks"])


def fuse_looks(by_text: list[Hit], by_looks: list[Hit], k: int = 60) -> list[Hit]:
    """Photos ranked by reciprocal-rank fusion of the text ranking and the looks ranking: the two
    similarities live on different scales, their ranks do not."""
    fused: dict[int, float] = {}
    hits: dict[int, Hit] = {}
    for ranking in (by_text, by_looks):
        for rank, hit in enumerate(ranking):
            fused[hit.item.file_id] = fused.get(hit.item.file_id, 0.0) + 1 / (k + rank + 1)
            known = hits.get(hit.item.file_id)
            hits[hit.item.file_id] = hit if known is None else Hit(known.item, known.score,
                                                                    {**hit.signals, **known.signals},
                                                                    known.given or hit.given)
    return [hits[f] for f in sorted(fused, key=lambda f: -fused[f])]


def _box_key(box: Iterable[float]) -> tuple[int, ...]:
    return tuple(round(float(v)) for v in box)


def _photo_of(ctx: VisualContext, region_hit: Hit) -> Hit | None:
    items = ctx.store.file_items(region_hit.item.file_id, PHOTO)
    return Hit(items[0], region_hit.score, dict(region_hit.signals), region_hit.given) if items else None


def grounded(ctx: VisualContext, photo_hit: Hit, relevance: dict[tuple, float] | None = None
             ) -> list[tuple[str, Hit]]:
    """One evidence per region grounding keeps (those that fit the question best first), then the
    photo as evidence about it. The decisions, kept and rejected, go in the photo's locator."""
    from engine.grounding.matching import ground
    from engine.ingest.photos.image_io import load_photo
    from engine.runtimes.vision.regions import Region

    item = photo_hit.item
    regions = [Region.from_dict(r) for r in item.locator.get("regions", [])]
    try:
        image = load_photo(Path(image_file(item.source, as_locator(item.locator)))).image
    except Exception as exc:  # the photo moved or broke since it was indexed: cite it, not its regions
        return [("image", _photo_evidence(photo_hit, note=f"regions not shown: {exc}"))]
    grounding = ground(image, regions, ctx.inventory or _empty_inventory(), ctx.text_embedder, ctx.image_embedder,
                       ctx.references, ctx.grounding, ctx.vlm_check)
    fit = relevance or {}
    units = text_blocks(grounding.kept)
    units.sort(key=lambda unit: (-max(fit.get(_box_key(d.region.box), 0.0) for d in unit),
                                 all(d.element is not None and d.element.generic for d in unit)))  # all kept
    photo = _photo_evidence(photo_hit, decisions=grounding.as_dict()["decisions"])
    out = [("region", _region_evidence(ctx, photo_hit, unit, rank)) for rank, unit in enumerate(units)]
    at = min(len(out), FIRST_REGIONS)  # what the photo is about (when, where, captions) after the best regions
    photo.score = photo_hit.score * (0.99 - 0.01 * at)
    return out[:at] + [("image", photo)] + out[at:]


FIRST_REGIONS = 3


def text_blocks(decisions: list[Decision]) -> list[list[Decision]]:
    """Kept regions as citable units: each object or face alone; lines of text that sit together
    (one sign, one poster caption) as one block, so a sign is read whole."""
    texts = sorted((d for d in decisions if d.region.kind == "text"), key=lambda d: d.region.box[1])
    blocks: list[list[Decision]] = []
    for decision in texts:
        x1, y1, x2, y2 = decision.region.box
        height = y2 - y1
        for block in blocks:
            bx1, _, bx2, by2 = _union(block)
            last = block[-1].region.box
            near = y1 - by2 <= 1.5 * max(height, last[3] - last[1])
            if near and min(x2, bx2) - max(x1, bx1) > 0:
                block.append(decision)
                break
        else:
            blocks.append([decision])
    merged = True
    while merged:  # lines placed side by side on one sign end up in blocks that overlap: one block
        merged = False
        for i in range(len(blocks)):
            for j in range(i + 1, len(blocks)):
                a, b = _union(blocks[i]), _union(blocks[j])
                if min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1]):
                    blocks[i] = sorted(blocks[i] + blocks.pop(j), key=lambda d: (d.region.box[1], d.region.box[0]))
                    merged = True
                    break
            if merged:
                break
    return [[d] for d in decisions if d.region.kind != "text"] + blocks


def _union(block: list[Decision]) -> tuple[float, float, float, float]:
    boxes = [d.region.box for d in block]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _empty_inventory() -> Inventory:
    from engine.grounding.inventory import Inventory

    return Inventory()


def _photo_evidence(hit: Hit, decisions: list[dict] | None = None, note: str = "") -> Hit:
    """The photo's own item, its text cut to what is about the photo (not what is in it)."""
    about = [line for line in hit.item.text.splitlines()
             if not line.startswith(_CONTENT_LINES) and not line.endswith(" visible.")]
    locator = {k: v for k, v in hit.item.locator.items() if k != "regions"}
    if decisions is not None:
        locator["grounding"] = decisions
    if note:
        locator["note"] = note
    item = Item(hit.item.corpus, hit.item.source, "\n".join(about), locator, hit.item.title, hit.item.heading,
                hit.item.ord, hit.item.file_id, hit.item.id)
    return Hit(item, hit.score, dict(hit.signals), hit.given)


def _coloured(name: str, colour: str) -> str:
    """"a bus" as "a blue bus" when the region's colour is known."""
    if not colour:
        return name
    article, _, rest = name.partition(" ")
    if article.lower() in ("a", "an") and rest:
        return f"{'an' if colour[:1] in 'aeiou' else 'a'} {colour} {rest}"
    return f"{colour} {name}"


def _region_evidence(ctx: VisualContext, photo_hit: Hit, unit: list, rank: int) -> Hit:  # list[Decision]
    """One citable unit: a region, or a block of text lines, with the box to draw."""
    named = [d for d in unit if not d.element.generic] or unit
    decision = named[0]
    element, region = decision.element, decision.region
    box_value = _union(unit)
    lines = [d.region.text for d in unit if d.region.text]
    if element.generic:  # "A person.", "A blue bus.", "Text: "EILEEN COLLINS / FIRST WOMAN TO PILOT"."
        name = _coloured(element.name, region.colour)
        text = (f'Text: "{" / ".join(lines)}"' if lines else name[:1].upper() + name[1:]) + "."
    else:  # the boxes are for the viewer; the model reads what is there
        said = region.label if region.kind != "text" else "text"
        text = f"{element.title} ({said})" + (f": {element.description}" if element.description else "") + "."
        if lines:
            text += f' The text reads "{" / ".join(lines)}".'
    locator: RegionLocator = {
        **picture_fields(photo_hit.item.locator), "box": [round(float(v), 1) for v in box_value], "kind": region.kind,
        "label": region.label, "detector_score": round(float(region.score), 4),
        "match_score": round(float(decision.score), 4), "element": element.id, "entity": element.entity,
        "name": element.name, "reason": decision.reason}
    if lines:
        locator["text"] = " / ".join(lines)
    if region.colour:
        locator["colour"] = region.colour
    if len(unit) > 1:
        locator["lines"] = [{"text": d.region.text, "box": [round(float(v), 1) for v in d.region.box]} for d in unit]
    item = Item(REGION, photo_hit.item.source, text, locator, photo_hit.item.title, photo_hit.item.heading,
                rank, photo_hit.item.file_id, ctx.synthetic_id())
    return Hit(item, photo_hit.score * (0.99 - 0.01 * rank), dict(photo_hit.signals), photo_hit.given)
