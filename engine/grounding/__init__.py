"""Element grounding (GranuRAG): from a retrieved photo down to the elements that are visible in it.

Regions (engine.runtimes.vision) -> filter -> match to the inventory (knowledge packs, or generic
elements built from the regions) -> the visible set, each element with the box to cite.
"""

from engine.grounding.annotate import annotate, crop, load_image, thumbnail_jpeg
from engine.grounding.citations import (
    ElementCitation,
    annotate_evidence,
    grounded_evidence,
    inventory_evidence,
    render,
)
from engine.grounding.inventory import Element, Inventory, Reference, generic_element
from engine.grounding.matching import (
    Decision,
    Grounding,
    GroundingSettings,
    VlmCheck,
    ground,
    reference_vectors,
)
from engine.grounding.pack import Entity, KnowledgePack, PackElement, find_packs, is_pack_file, load_pack

__all__ = [
    "Decision", "Element", "ElementCitation", "Entity", "Grounding", "GroundingSettings",
    "Inventory", "KnowledgePack", "PackElement", "Reference", "VlmCheck", "annotate", "annotate_evidence", "crop",
    "find_packs", "generic_element", "ground", "grounded_evidence", "inventory_evidence", "is_pack_file",
    "load_image", "load_pack", "reference_vectors", "render", "thumbnail_jpeg",
]
