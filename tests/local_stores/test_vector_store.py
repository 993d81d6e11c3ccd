"""The SQLite corpora (the home's index) keep the store contract; what is theirs alone: the
vectors held in memory follow every write, and sqlite-vec finds what the matrix finds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from local_stores.corpus_store import Item
from local_stores.sqlite_db import Database
from local_stores.vector_store import VectorStore
from tests.local_stores.corpus_store_contract import CorpusStoreContract
from tests.local_stores.corpus_store_contract import unit as _unit


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


class TestSqliteCorpora(CorpusStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> VectorStore:
        return VectorStore(Database(tmp_path / "index.db"))

    @pytest.fixture
    def reopen(self, tmp_path: Path) -> Callable[[], VectorStore]:
        return lambda: VectorStore(Database(tmp_path / "index.db"))
