"""bench.shared_index's parts on a real server: a copy holds the same items and vectors, the
synthetic paragraphs are each their own, and the load test counts every search and error."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.shared_index import copy_corpora, fill, load, synthetic
from engine.corpora import PARAGRAPH
from local_stores.corpus_store import Item
from local_stores.postgres_corpora import PostgresCorpora
from local_stores.postgres_db import PostgresDb
from local_stores.sqlite_db import Database
from local_stores.vector_store import VectorStore
from tests.local_stores.corpus_store_contract import unit
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)

TEXTS = ["wing flutter at supersonic speed", "boundary layer transition on a flat plate",
         "heat transfer in hypersonic flow", "buckling of thin cylindrical shells"]


def _home_store(tmp_path: Path) -> VectorStore:
    store = VectorStore(Database(tmp_path / "home.db"))
    store.ensure_corpus(PARAGRAPH, "text", "paragraph", 8, "minilm")
    store.add([Item(PARAGRAPH, f"/d/{i}.txt", text, {"start": 0, "end": len(text)}, file_id=i + 1)
               for i, text in enumerate(TEXTS)], unit(4, 8, 0))
    return store


def test_a_copy_holds_the_same_items_and_vectors(tmp_path: Path, postgres: PostgresServer):  # noqa: F811
    home = _home_store(tmp_path)
    shared = PostgresCorpora(PostgresDb(postgres.empty_database("bench")))
    copy_corpora(home, shared, (PARAGRAPH, "text/document"))
    assert shared.corpora() == {PARAGRAPH: 4} and shared.embedder_of(PARAGRAPH) == "minilm"
    _, theirs = shared.all_vectors(PARAGRAPH)
    assert np.allclose(theirs, home.all_vectors(PARAGRAPH)[1], atol=1e-6)
    query = home.all_vectors(PARAGRAPH)[1][2]
    assert shared.items([shared.dense(PARAGRAPH, query, 1)[0][0]]).popitem()[1].text == TEXTS[2]


def test_synthetic_paragraphs_reuse_texts_and_stay_near_their_vectors(tmp_path: Path):
    home = _home_store(tmp_path)
    items, vectors = synthetic(home, 50, seed=1)
    assert len(items) == 50 == len(vectors) and {i.text for i in items} <= set(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert len({v.tobytes() for v in vectors}) == 50  # each its own vector
    _, originals = home.all_vectors(PARAGRAPH)
    assert (vectors @ originals.T).max(axis=1).min() > 0.9


def test_the_load_test_counts_every_search(tmp_path: Path, embedder):  # noqa: ANN001
    home = _home_store(tmp_path)
    items, vectors = synthetic(home, 100, seed=2)
    lite = VectorStore(Database(tmp_path / "scale.db"))
    assert fill(lite, items, vectors, "minilm") >= 0 and lite.corpora() == {PARAGRAPH: 100}
    run = load(lambda: VectorStore(Database(tmp_path / "scale.db")), embedder, TEXTS, list(unit(4, 8, 3)), 2, 0.5)
    assert run["clients"] == 2 and run["searches"] > 0 and run["errors"] == 0 and run["p95_ms"] >= run["p50_ms"]


def test_a_bulk_load_by_copy_is_searched_like_rows_added_one_by_one(tmp_path: Path,
                                                                     postgres: PostgresServer):  # noqa: F811
    from bench.shared_index import fill_by_copy

    home = _home_store(tmp_path)
    items, vectors = synthetic(home, 60, seed=4)
    url = postgres.empty_database("bulk")
    copied = PostgresCorpora(PostgresDb(url))
    fill_by_copy(copied, items, vectors, "minilm")
    added = PostgresCorpora(PostgresDb(postgres.empty_database("added")))
    fill(added, [Item(i.corpus, i.source, i.text, i.locator, file_id=i.file_id, ord=i.ord) for i in items], vectors,
         "minilm")
    assert copied.corpora() == added.corpora() == {PARAGRAPH: 60}
    query = vectors[7]
    one, other = copied.dense(PARAGRAPH, query, 5), added.dense(PARAGRAPH, query, 5)
    assert [i for i, _ in one] == [i for i, _ in other]
    assert np.allclose([c for _, c in one], [c for _, c in other], atol=1e-6)
    assert copied.bm25(PARAGRAPH, "boundary layer", 5) == added.bm25(PARAGRAPH, "boundary layer", 5)
    assert copied.add([Item(PARAGRAPH, "/d/new.txt", "new", {}, file_id=999)], vectors[:1])[0] == 61  # ids go on
