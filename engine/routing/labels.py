"""Route labels and the corpus each one reads. The set is open: add a label and its corpus here."""

LABELS: dict[str, str | None] = {
    "none": None,  # answer from the model alone, and say so
    "paragraph": "text/paragraph",
    "document": "text/document",
    "table": None,  # SQL over the table and database sources (engine.native), not a vector corpus
    "graph": None,  # Cypher over property graphs in Kùzu
    "rdf": None,  # SPARQL over RDF graphs
    "image": "image/photo",  # whole photos
    "region": "image/region",  # elements inside photos (objects, faces, text)
    "clip": "video/clip",  # moments of a video (start and end seconds)
    "video": "video/video",  # whole videos
}
ORDER = tuple(LABELS)  # the trained router's output order
# labels answered by native queries, and the catalog source kinds each one reads
NATIVE: dict[str, tuple[str, ...]] = {"table": ("table", "database"), "graph": ("graph",), "rdf": ("rdf",)}
