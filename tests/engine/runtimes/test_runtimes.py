"""The real runtimes: MiniLM int8 ONNX embedder and a small GGUF through llama-cpp-python."""

import numpy as np
import pytest

from engine.runtimes.llm import LLM


def test_embedder_gives_unit_vectors_that_rank_meaning(embedder):  # noqa: ANN001
    vectors = embedder.embed(["The cat sits on the mat.", "A feline rests on a rug.", "Quarterly tax deadline",
                              "x " * 600])  # the last one is truncated at 256 tokens, not an error
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    sims = vectors @ vectors.T
    assert sims[0, 1] > 0.4 > sims[0, 2]
    # batching and order do not change a sentence's vector
    alone = embedder.embed(["A feline rests on a rug."])[0]
    assert float(alone @ vectors[1]) > 0.999


def test_a_repeated_text_is_embedded_once_and_its_vector_cannot_be_changed(embedder):  # noqa: ANN001
    first = embedder.embed_one("When is the dentist appointment?")
    assert embedder.embed_one("When is the dentist appointment?") is first
    assert np.allclose(first, embedder.embed(["When is the dentist appointment?"])[0], atol=1e-5)
    with pytest.raises(ValueError):
        first *= 2


def test_llm_chat_streams_the_same_text_it_returns(smoke_llm: LLM):
    messages = [{"role": "user", "content": "Say hello."}]
    pieces: list[str] = []
    text = smoke_llm.chat(messages, max_tokens=12, on_token=pieces.append)
    assert text and "".join(pieces) == text
    assert smoke_llm.chat(messages, max_tokens=12) == text  # greedy decoding is repeatable


def test_llm_json_output_follows_the_schema_even_from_a_tiny_model(smoke_llm: LLM):
    labels = {"type": "array", "items": {"type": "string", "enum": ["paragraph", "document", "table"]}, "maxItems": 3}
    schema = {"type": "object", "properties": {"labels": labels, "confidence": {"type": "number"}},
        "required": ["labels", "confidence"]}
    out = smoke_llm.chat_json([{"role": "user", "content": "Which sources answer: what is my rent?"}], schema,
                              max_tokens=80)
    assert set(out) == {"labels", "confidence"}
    assert all(label in ("paragraph", "document", "table") for label in out["labels"])
    assert isinstance(out["confidence"], (int, float))
