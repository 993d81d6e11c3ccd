"""The vector store's corpora: one vector space each, dropped whole when its model is replaced."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from local_stores.sqlite_db import Database
from local_stores.vector_store import Item, VectorStore


def _unit(rows: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_corpus_of_a_replaced_model_is_dropped_and_made_again_with_the_new_size(tmp_path: Path):
    store = VectorStore(Database(tmp_path / "index.db"))
    store.ensure_corpus("image/looks", "image", "looks", 4, "clip-a")
    store.ensure_corpus("text/paragraph", "text", "paragraph", 3, "minilm")
    items = [Item("image/looks", f"/p/{i}.jpg", f"photo {i}", {}, file_id=i + 1) for i in range(3)]
    store.add(items, _unit(3, 4, 0))
    store.add([Item("text/paragraph", "/p/a.md", "a note about photos", {}, file_id=9)], _unit(1, 3, 1))
    assert store.sources("image/looks") == {"/p/0.jpg", "/p/1.jpg", "/p/2.jpg"}
    assert store.embedder_of("image/looks") == "clip-a" and store.embedder_of("image/other") is None

    store.drop_corpus("image/looks")
    assert store.corpora() == {"text/paragraph": 1} and store.embedder_of("image/looks") is None
    store.ensure_corpus("image/looks", "image", "looks", 8, "clip-b")
    store.add(items[:1], _unit(1, 8, 2))
    assert store.corpora()["image/looks"] == 1 and store.embedder_of("image/looks") == "clip-b"
    assert [i for i, _ in store.dense("image/looks", _unit(1, 8, 2)[0], 5)] and store.bm25("text/paragraph", "note", 5)


def test_a_files_vectors_are_found_again_by_what_each_item_was_made_of(tmp_path: Path):
    from local_stores.vector_store import item_key

    store = VectorStore(Database(tmp_path / "index.db"))
    store.ensure_corpus("text/paragraph", "text", "paragraph", 3, "minilm")
    store.ensure_corpus("text/document", "text", "document", 3, "minilm")
    mine = [Item("text/paragraph", "/n/a.md", f"paragraph {i}", {}, title="A", heading="H", file_id=1)
            for i in range(2)]
    mine.append(Item("text/document", "/n/a.md", "paragraph 0", {}, title="A", file_id=1))
    vectors = _unit(3, 3, 4)
    store.add(mine, vectors)
    store.add([Item("text/paragraph", "/n/b.md", "paragraph 0", {}, title="A", heading="H", file_id=2)], _unit(1, 3, 5))
    known = store.file_vectors(1)
    assert set(known) == {item_key(item) for item in mine}  # same text, other corpus: a key of its own
    for item, vector in zip(mine, vectors, strict=True):
        assert np.allclose(known[item_key(item)], vector)
    assert store.file_vectors(3) == {}
    ids, matrix = store.all_vectors("text/paragraph")
    assert matrix.shape == (3, 3) and list(ids) == sorted(ids) and store.all_vectors("image/none")[0].size == 0


def _sqlite_vec_dense(store: VectorStore, corpus: str, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The store's search as sqlite-vec alone answers it (no matrix in memory)."""
    import local_stores.vector_store as module

    limit, module.MATRIX_MB = module.MATRIX_MB, 0
    try:
        store._matrices.clear()
        return store.dense(corpus, vector, k)
    finally:
        module.MATRIX_MB = limit


def test_search_in_memory_finds_what_sqlite_vec_finds_and_follows_every_write(tmp_path: Path):
    store = VectorStore(Database(tmp_path / "index.db"))
    store.ensure_corpus("text/paragraph", "text", "paragraph", 16, "minilm")
    vectors = _unit(300, 16, 7)
    store.add([Item("text/paragraph", f"/n/{i}.md", f"p {i}", {}, file_id=i + 1) for i in range(300)], vectors)
    query = _unit(1, 16, 8)[0]
    expected = _sqlite_vec_dense(store, "text/paragraph", query, 10)
    found = store.dense("text/paragraph", query, 10)
    assert "text/paragraph" in store._matrices
    assert [i for i, _ in found] == [i for i, _ in expected]
    assert np.allclose([c for _, c in found], [c for _, c in expected], atol=1e-5)
    assert np.allclose(store.vectors("text/paragraph", [found[0][0]])[found[0][0]], vectors[found[0][0] - 1])

    store.add([Item("text/paragraph", "/n/new.md", "new", {}, file_id=900)], query[None, :])  # this connection
    assert store.dense("text/paragraph", query, 1)[0][1] > 0.999
    other = VectorStore(Database(tmp_path / "index.db"))  # another process's connection, say the watcher's
    other.delete_file(900)
    assert store.dense("text/paragraph", query, 1)[0][1] < 0.999
    with store.db.transaction():  # a write under way is seen, by sqlite-vec, until it is rolled back or committed
        store.add([Item("text/paragraph", "/n/tx.md", "tx", {}, file_id=901)], query[None, :])
        assert store.dense("text/paragraph", query, 1)[0][1] > 0.999
    assert store.dense("text/paragraph", query, 1)[0][1] > 0.999


def test_a_search_kept_to_some_files_still_finds_k_of_theirs(tmp_path: Path):
    store = VectorStore(Database(tmp_path / "index.db"))
    store.ensure_corpus("text/paragraph", "text", "paragraph", 16, "minilm")
    vectors = _unit(200, 16, 3)
    store.add([Item("text/paragraph", f"/n/{i}.md", f"boiler note {i}", {}, file_id=i + 1) for i in range(200)],
              vectors)
    query = vectors[0]
    mine = {150, 151, 152, 153}  # far from the query, most of them
    for search in (store.dense, lambda c, v, k, f: _sqlite_vec_dense_among(store, c, v, k, f)):
        found = search("text/paragraph", query, 3, mine)
        assert len(found) == 3 and {store.items([i])[i].file_id for i, _ in found} <= mine
    found = store.bm25("text/paragraph", "boiler note", 3, mine)
    assert len(found) == 3 and {store.items([i])[i].file_id for i, _ in found} <= mine
    assert store.corpora_of(mine) == {"text/paragraph"} and store.corpora_of({999}) == set()
    assert store.bm25("text/paragraph", "boiler", 3, set()) == []
    assert store.dense("text/paragraph", query, 3, set()) == []


def _sqlite_vec_dense_among(store: VectorStore, corpus: str, vector: np.ndarray, k: int, files: set[int]) -> list:
    import local_stores.vector_store as module

    limit, module.MATRIX_MB = module.MATRIX_MB, 0
    try:
        store._matrices.clear()
        return store.dense(corpus, vector, k, files)
    finally:
        module.MATRIX_MB = limit


def test_a_locator_field_is_read_per_file_without_loading_the_items(tmp_path: Path):
    store = VectorStore(Database(tmp_path / "index.db"))
    store.ensure_corpus("text/paragraph", "text", "paragraph", 3, "minilm")
    items = [Item("text/paragraph", "/m/box.mbox", "hi", {"page": 1, "date": "2025-03-04T09:12:00+01:00"}, file_id=1),
             Item("text/paragraph", "/m/box.mbox", "again", {"page": 1, "date": "2025-03-04T09:12:00+01:00"},
                  file_id=1, ord=1),
             Item("text/paragraph", "/m/box.mbox", "later", {"page": 2, "date": "2025-03-10T14:05:00+01:00"},
                  file_id=1, ord=2),
             Item("text/paragraph", "/n/note.md", "undated", {"start": 0, "end": 7}, file_id=2)]
    store.add(items, _unit(4, 3, 3))
    assert store.locator_values("text/paragraph", "date") == {
        1: {"2025-03-04T09:12:00+01:00", "2025-03-10T14:05:00+01:00"}}
    assert store.locator_values("text/paragraph", "subject") == {}
