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


def test_each_distinct_text_is_embedded_once_and_every_copy_gets_its_vector(embedder, monkeypatch):  # noqa: ANN001
    texts = ["A face in photo a.jpg.", "A cup in photo a.jpg.", "A face in photo a.jpg.", "A face in photo a.jpg."]
    alone = embedder.embed(texts[:2])
    rows: list[int] = []
    run = embedder._run
    monkeypatch.setattr(embedder, "_run", lambda encodings: rows.append(len(encodings)) or run(encodings))
    vectors = embedder.embed(texts)
    assert sum(rows) == 2 and vectors.shape == (4, 384)
    assert np.allclose(vectors[[0, 2, 3]], alone[0], atol=1e-6) and np.allclose(vectors[1], alone[1], atol=1e-6)


def test_batches_hold_many_short_texts_or_few_long_ones(embedder):  # noqa: ANN001
    from engine.runtimes.text_embedder import BATCH_TOKENS

    lengths = [20] * 40 + [200] * 5 + [9]
    batches = embedder._batches(lengths)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= embedder.batch_size
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= BATCH_TOKENS
    assert max(len(b) for b in batches) > 8 and [len(b) for b in batches if lengths[b[0]] == 200] == [2, 2, 1]


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
