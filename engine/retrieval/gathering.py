"""Everything an answer is written from, before it is packed: the routes a question takes, the hits
of every route (native query results first), the native queries run, and the question's vector."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.corpora import CLIP, PHOTO, VISUAL
from engine.errors import TroveError
from engine.native.described import names_structured
from engine.result import QueryRun
from engine.retrieval.hybrid import Hit, HybridRetriever
from engine.retrieval.named import with_named
from engine.retrieval.visual import VisualContext, grounded, visual_hits
from engine.routing.base import Decision, Route
from engine.routing.labels import LABELS, NATIVE
from engine.runtimes.calls import during
from engine.scope import EVERYTHING, Within
from local_stores.corpus_store import Item

if TYPE_CHECKING:
    from engine.conversations.follow_up import FollowUp
    from engine.grounding.inventory import Inventory
    from engine.models.loaded import Models
    from engine.native.querier import NativeQuerier
    from engine.routing.checking import CheckedRouter
    from engine.settings import Settings
    from local_stores.catalog import Catalog
    from local_stores.corpus_store import CorpusStore

VISUAL_LABELS = {"image", "region", "clip", "video"}  # answered by engine.retrieval.visual
FALLBACK_LABELS = ("paragraph",)  # searched when the routes found nothing relevant


@dataclass
class Gathered:
    routes: list[Route]
    hits: list[tuple[str, Hit]]  # (route label or citation kind, hit)
    runs: list[QueryRun]
    vector: np.ndarray
    timings: dict[str, float] = field(default_factory=dict)  # ms per stage


class Gatherer:
    def __init__(self, store: CorpusStore, catalog: Catalog, routing: CheckedRouter, native: NativeQuerier,
                 models: Models, settings: Settings) -> None:
        self.store, self.catalog, self.routing, self.native = store, catalog, routing, native
        self.models, self.settings = models, settings
        self._inventory: tuple[tuple, Inventory, dict | None] | None = None  # (pack versions, elements, vectors)

    def retriever(self, within: Within = EVERYTHING) -> HybridRetriever:
        return HybridRetriever(self.store, self.models.embedder, files=within.files,
                               admits=within.admits if within.span is not None else None)

    def gather(self, question: str, image: Path | str | None = None, labels: Sequence[str] | None = None,
               on_routes: Callable[[list[Route]], None] | None = None, follow: FollowUp | None = None,
               within: Within = EVERYTHING) -> Gathered:
        """The routes (or the given route `labels`), then each route's hits; with `image`, that photo's
        own grounded regions and the indexed photos like it first of all. `on_routes` hears the routes
        as soon as they are chosen (the app shows them while it searches). A follow-up (`follow`)
        keeps the route and source of the query it refines, and sees the photos and clips the turn
        before it cited first. `within`: the scope the question stays inside (routes, files, sources)."""
        timings: dict[str, float] = {}
        with timed(timings, "embed"):
            vector = self.models.embedder.embed_one(question)
        with timed(timings, "route"):
            given = [Route(label, 1.0, Decision.GIVEN) for label in labels or ()]
            routes = self.routing.route(question, vector, within.labels) if labels is None else given
            if labels is None and follow is not None:
                routes = follow.routes(routes)
        if on_routes is not None:
            on_routes(routes)
        gathered = Gathered(routes, [], [], vector, timings)
        kinds = {kind for route in routes for kind in NATIVE.get(route.label, ())}
        if kinds:
            with timed(timings, "query"):
                gathered.hits, gathered.runs = self.native.answer(question, vector, kinds,
                                                                  follow.prior if follow else None, within.sources)
        with timed(timings, "retrieve"):
            retriever = self.retriever(within)
            cited = self._cited_texts(follow, within)
            for route in routes:
                corpus = LABELS.get(route.label)
                if corpus and route.label not in VISUAL_LABELS:
                    gathered.hits += self._text_hits(question, route.label, corpus, retriever, cited, vector)
        self._visual(gathered, question, image, retriever, follow)
        asked_there = bool(gathered.runs) and names_structured(question)  # "In my US geography database, …"
        if image is None and not asked_there and not any(h.relevance >= self.settings.min_relevance
                                                         for _, h in gathered.hits):
            with timed(timings, "fallback"):
                self._fallback(gathered, question, retriever, within)
        return gathered

    def _text_hits(self, question: str, label: str, corpus: str, retriever: HybridRetriever,
                   cited: frozenset[int], vector: np.ndarray) -> list[tuple[str, Hit]]:
        """A text route's hits; a follow-up's first from the files the turn before cited (what "it"
        and "the same report" refer to), then from every file."""
        k = self.settings.evidence_items
        first = HybridRetriever(self.store, self.models.embedder, files=cited).search(
            question, corpus, max(1, k // 2), vector=vector) if cited else []
        found = with_named(self.store, question, corpus, retriever.search(question, corpus, k, vector=vector))
        return [(label, h) for h in [*first, *found]]

    def _cited_texts(self, follow: FollowUp | None, within: Within) -> frozenset[int]:
        """The files of the passages and documents the turn before cited (those in scope)."""
        if follow is None:
            return frozenset()
        records = (self.catalog.file(c.source) for c in follow.cited if c.kind in ("paragraph", "document"))
        return frozenset(r.id for r in records if r is not None and r.state == "indexed"
                         and (within.files is None or r.id in within.files))

    def _visual(self, gathered: Gathered, question: str, image: Path | str | None,
                retriever: HybridRetriever, follow: FollowUp | None = None) -> None:
        visual = {route.label for route in gathered.routes} & VISUAL_LABELS
        if not visual and image is None:
            return
        with timed(gathered.timings, "ground"):
            context = self.visual_context(retriever)
            if image is not None:
                gathered.hits = self._about_photo(context, Path(image), question) + gathered.hits
            if follow is not None and follow.cited:
                gathered.hits += self._cited_before(context, follow, retriever.files)
            gathered.hits += visual_hits(context, question, gathered.vector, visual)

    def _cited_before(self, context: VisualContext, follow: FollowUp,
                      files: Collection[int] | None) -> list[tuple[str, Hit]]:
        """The photos (grounded anew, for this question) and the clips the turn before cited: what
        "it" and "that moment" refer to (those in scope: `files`)."""
        out: list[tuple[str, Hit]] = []
        for citation in follow.cited:
            record = self.catalog.file(citation.source)
            if record is None or record.state != "indexed" or (files is not None and record.id not in files):
                continue  # removed since, or out of scope; the question is searched as usual
            if citation.kind in ("image", "region"):
                photos = self.store.file_items(record.id, PHOTO)
                out += grounded(context, Hit(photos[0], 1.0, given=True)) if photos else []
            elif citation.kind == "clip":
                out += [("clip", Hit(clip, 1.0, given=True)) for clip in self.store.file_items(record.id, CLIP)
                        if clip.locator.get("start_s") == citation.locator.get("start_s")]
        return out

    def _fallback(self, gathered: Gathered, question: str, retriever: HybridRetriever, within: Within) -> None:
        """A route that found nothing relevant (or `none`) may be a misroute: the passages of the files
        are searched before the answer says the files hold nothing (or answers from the model alone).
        Not where the question names the database, table or graph it asks and a query ran on one: a
        passage of another file is then no answer ("Alaska", from a table of background checks, for
        the largest state bordering Arkansas)."""
        searched = {route.label for route in gathered.routes}
        corpora = self.store.corpora()
        for label in FALLBACK_LABELS:
            corpus = LABELS[label]
            if label in searched or corpus is None or corpus not in corpora or (
                    within.labels is not None and label not in within.labels):
                continue
            found = [(label, h) for h in with_named(self.store, question, corpus, retriever.search(
                question, corpus, self.settings.evidence_items, vector=gathered.vector))]
            if any(h.relevance >= self.settings.min_relevance for _, h in found):
                gathered.routes = [*gathered.routes, Route(label, 0.0, Decision.FALLBACK)]
                gathered.hits = gathered.hits + found
                return

    def visual_context(self, retriever: HybridRetriever) -> VisualContext:
        inventory, references = self.inventory()
        vlm, vision = self.models.vlm, self.models.vision
        return VisualContext(self.store, retriever, self.models.embedder, vision.embedder, inventory, references,
                             k=self.settings.evidence_items, vlm_check=vlm.shows if vlm else None,
                             image_text=vision.image_text)

    def inventory(self) -> tuple[Inventory, dict | None]:
        """The elements of every indexed knowledge pack (GranuRAG's inventory) and their reference
        vectors; re-read only when a pack changed."""
        from engine.grounding.inventory import Inventory
        from engine.grounding.matching import reference_vectors
        from engine.grounding.pack import load_pack

        packs = sorted((src["location"], src["updated_at"]) for src in self.catalog.sources() if src["kind"] == "pack")
        if self._inventory is None or self._inventory[0] != tuple(packs):
            loaded = []
            for location, _ in packs:
                try:
                    loaded.append(load_pack(Path(location)))
                except TroveError:
                    continue  # changed into something invalid since indexing; the next run records why
            inventory = Inventory.from_packs(loaded)
            embedder = self.models.vision.embedder
            references = reference_vectors(inventory, embedder) if embedder is not None and len(inventory) else None
            self._inventory = (tuple(packs), inventory, references)
        return self._inventory[1], self._inventory[2]

    def _about_photo(self, context: VisualContext, path: Path, question: str) -> list[tuple[str, Hit]]:
        """Asking with a photo: its own grounded regions, then the indexed photos most like it."""
        from engine.ingest.photos.analyse import analyse
        from engine.ingest.photos.image_io import load_photo

        if not path.is_file():
            raise TroveError(f"{path}: no such photo")
        photo = load_photo(path)
        found = analyse(photo.image, self.models.vision, self.settings.region_overlap)
        regions = [dict(r.as_dict(), n=i) for i, r in enumerate(found.regions)]
        own = Item(PHOTO, str(path.resolve()), f"The photo you asked with: {path.name}.",
                   {"width": photo.width, "height": photo.height, "regions": regions, "query_photo": True},
                   title=path.name, file_id=0, id=context.synthetic_id())
        hits = grounded(context, Hit(own, 1.0, given=True))
        if found.vector is not None:
            for item_id, similarity in self.store.dense(VISUAL, found.vector, self.settings.evidence_items,
                                                        context.retriever.files):
                twin = self.store.items([item_id]).get(item_id)
                photos = self.store.file_items(twin.file_id, PHOTO) if twin else []
                if photos and similarity >= self.settings.similar_photo_min:
                    hits.append(("image", Hit(photos[0], similarity, {"dense": similarity, "visual": similarity})))
        return hits


@contextmanager
def timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Adds the block's time, in ms, to `timings[stage]`; model calls in it are logged as `stage`'s."""
    t0 = time.perf_counter()
    try:
        with during(stage):
            yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000
