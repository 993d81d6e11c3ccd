"""What the engine needs of an embedder, as protocols: the runtimes (`text_embedder.TextEmbedder`,
`vision.coral.ImageEmbedder`) satisfy them, and so can a stand-in in a test. Code that only embeds
types against these, not against a runtime class."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class TextEmbedderLike(Protocol):
    """Texts to unit vectors of `dim` floats (one row per text)."""

    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray: ...


class ImageEmbedderLike(Protocol):
    """A BGR image to a vector. (Grounding also takes an object with `run(image)` instead.)"""

    def embed(self, image: np.ndarray) -> np.ndarray: ...
