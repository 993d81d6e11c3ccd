"""The models Trove runs, as one object the façade is given: each is loaded from the installed
files on first use, and any can be given instead (a test's shared embedder, a scripted LLM).

`Models(manager, settings)` loads nothing; `models.llm` loads the LLM the settings name the first
time it is read; `models.llm = ScriptedLLM(...)` replaces it."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engine.errors import ModelError

if TYPE_CHECKING:
    from engine.ingest.photos.analyse import VisionModels
    from engine.models.manager import ModelManager
    from engine.runtimes.llm import LLM
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.runtimes.vlm import VisionLanguageModel
    from engine.settings import Settings


class Models:
    def __init__(self, manager: ModelManager, settings: Settings) -> None:
        self.manager, self.settings = manager, settings

    @cached_property
    def embedder(self) -> TextEmbedder:
        from engine.runtimes.text_embedder import TextEmbedder

        return TextEmbedder.from_manager(self.manager, threads=self.settings.threads,
                                         batch_size=self.settings.embed_batch)

    @cached_property
    def llm(self) -> LLM:
        from engine.runtimes.llm import LLM

        return LLM.from_manager(self.manager, self.settings.llm, n_ctx=self.settings.llm_context,
                                threads=self.settings.threads)

    @cached_property
    def vision(self) -> VisionModels:
        """Detector, faces, OCR, classifier, image embedder and text-image model: those installed."""
        from engine.ingest.photos.analyse import VisionModels

        return VisionModels.from_manager(self.manager, self.settings.detector, self.settings.threads,
                                         self.settings.photo_ocr)

    @cached_property
    def vlm(self) -> VisionLanguageModel | None:
        """The vision-language model, None when none is installed (a role only users fill)."""
        from engine.runtimes.vlm import VisionLanguageModel

        try:
            return VisionLanguageModel.from_manager(self.manager, n_ctx=self.settings.llm_context,
                                                    threads=self.settings.threads)
        except ModelError:
            return None

    def looks_model(self) -> str | None:
        """The installed text-image model's name (checked without loading it), else None."""
        if not self.manager.is_installed("image-text-embedder"):
            return None
        return self.manager.model_for("image-text-embedder").name
