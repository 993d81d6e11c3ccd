"""Route labels and the corpus each one reads. The set is open: add a label and its corpus here."""

from engine.corpora import CLIP, DOCUMENT, PARAGRAPH, PHOTO, REGION, VIDEO
from engine.native.kinds import KINDS

LABELS: dict[str, str | None] = {
    "none": None,  # answer from the model alone, and say so
    "paragraph": PARAGRAPH,
    "document": DOCUMENT,
    "table": None,  # SQL over the table and database sources (engine.native), not a vector corpus
    "graph": None,  # Cypher over property graphs in Kùzu
    "rdf": None,  # SPARQL over RDF graphs
    "image": PHOTO,  # whole photos
    "region": REGION,  # elements inside photos (objects, faces, text)
    "clip": CLIP,  # moments of a video (start and end seconds)
    "video": VIDEO,  # whole videos
}
ORDER = tuple(LABELS)  # the trained router's output order
GRANULARITIES = tuple(label for label, corpus in LABELS.items() if corpus is not None)  # what search can rank
# labels answered by native queries, and the catalog source kinds each one reads (engine.native.kinds)
NATIVE: dict[str, tuple[str, ...]] = {label: tuple(k.name for k in KINDS.values() if k.citation == label)
                                      for label in ("table", "graph", "rdf")}
