"""Citation kind -> the viewer that shows it (one line per kind)."""

from __future__ import annotations

from desktop.viewers.common import Viewer
from desktop.viewers.document import DocumentViewer
from desktop.viewers.graph import GraphViewer
from desktop.viewers.photo import PhotoViewer
from desktop.viewers.rdf import RdfViewer
from desktop.viewers.table import TableViewer
from desktop.viewers.video import VideoViewer

VIEWERS: dict[str, type[Viewer]] = {
    "paragraph": DocumentViewer,
    "document": DocumentViewer,
    "table": TableViewer,
    "graph": GraphViewer,
    "rdf": RdfViewer,
    "image": PhotoViewer,
    "region": PhotoViewer,
    "clip": VideoViewer,
    "video": VideoViewer,
}


def viewer_for(kind: str) -> type[Viewer]:
    """The viewer class of a citation kind; a document view for kinds this app does not know yet."""
    return VIEWERS.get(kind, DocumentViewer)


__all__ = ["VIEWERS", "Viewer", "viewer_for"]
