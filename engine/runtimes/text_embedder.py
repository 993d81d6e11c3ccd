"""Sentence vectors from an ONNX transformer (all-MiniLM-L6-v2 int8): no torch needed."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.models import ModelManager

RECENT_TEXTS = 64
BATCH_TOKENS = 512  # a batch holds texts up to this many tokens, padding included (bench/RESULTS.md §23)


class TextEmbedder:
    """Mean-pooled, L2-normalised sentence vectors; batched by length; thread count from settings."""

    role = "text-embedder"

    def __init__(self, model_path: Path, tokenizer_path: Path, threads: int = 1, max_tokens: int = 256,
                 batch_size: int = 32) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.batch_size = batch_size
        self.dim = int(self.session.get_outputs()[0].shape[-1] or 384)
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_manager(cls, manager: ModelManager, threads: int = 1, batch_size: int = 32) -> TextEmbedder:
        spec = manager.spec(cls.role)
        paths = manager.paths(cls.role)
        onnx = next(p for name, p in paths.items() if name.endswith(".onnx"))
        return cls(onnx, paths["tokenizer.json"], threads=threads,
                   max_tokens=int(spec.extra.get("max_tokens", 256)), batch_size=batch_size)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dim) float32 array of unit vectors, in the order of `texts`."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Each distinct text is embedded once: a photo's seventeen "A face in photo …" regions, a
        # one-paragraph document and its paragraph.
        unique = list(dict.fromkeys(texts))
        encodings = self.tokenizer.encode_batch(unique)
        vectors = np.zeros((len(unique), self.dim), dtype=np.float32)
        for idx in self._batches([len(e.ids) for e in encodings]):
            vectors[idx] = self._run([encodings[i] for i in idx])
        if len(unique) == len(texts):
            return vectors
        row = {text: i for i, text in enumerate(unique)}
        return vectors[[row[text] for text in texts]]

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        """Indices sorted by length, cut into batches of at most `batch_size` texts and BATCH_TOKENS
        tokens: short texts (a photo's regions) go many to a batch, long paragraphs few."""
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        batches: list[list[int]] = []
        for i in order:  # ascending, so the newest text is the batch's longest
            if batches and len(batches[-1]) < self.batch_size and (len(batches[-1]) + 1) * lengths[i] <= BATCH_TOKENS:
                batches[-1].append(i)
            else:
                batches.append([i])
        return batches

    def embed_one(self, text: str) -> np.ndarray:
        """One text's vector (read-only). The last few are remembered: one ask embeds its question
        for the router, for source selection and for every corpus it searches."""
        with self._lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
                return vector
        vector = self.embed([text])[0]
        vector.setflags(write=False)
        with self._lock:
            self._recent[text] = vector
            while len(self._recent) > RECENT_TEXTS:
                self._recent.popitem(last=False)
        return vector

    def _run(self, encodings: list) -> np.ndarray:  # list of tokenizers.Encoding
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
