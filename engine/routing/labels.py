"""Route labels and the corpus each one reads. The set is open: add a label and its corpus here."""

LABELS: dict[str, str | None] = {
    "none": None,  # answer from the model alone, and say so
    "paragraph": "text/paragraph",
    "document": "text/document",
}
