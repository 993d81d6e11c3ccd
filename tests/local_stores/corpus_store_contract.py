"""The contract every `CorpusStore` keeps, as one suite each implementation runs (the model is
Haystack's `DocumentStoreBaseTests`): subclass `CorpusStoreContract` in a test module and give it a
`store` fixture, an empty store, and a `reopen` fixture, another connection to the same index (as
another process, or another machine, would open it)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from local_stores.corpus_store import CorpusStore, Item, item_key

PARAGRAPH = "text/paragraph"


def unit(rows: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _file_of(store: CorpusStore, found: list[tuple[int, float]]) -> set[int]:
    items = store.items([i for i, _ in found])
    return {items[i].file_id for i, _ in found}


NOTES = ["The boiler was serviced in March; the engineer replaced the pressure valve.",
         "Pay the council tax before the end of the month.",
         "The boiler pressure dropped again, so I topped it up.",
         "Bread, milk, apples and the boiler manual from the loft.",
         "The tortoise Horatio hibernates in a box in the garage.",
         "Remember the dentist on Tuesday at nine."]


class CorpusStoreContract:
    @pytest.fixture
    def notes(self, store: CorpusStore) -> list[Item]:
        store.ensure_corpus(PARAGRAPH, "text", "paragraph", 8, "minilm")
        items = [Item(PARAGRAPH, f"/n/{i}.md", text, {"start": 0, "end": len(text), "page": i % 2 + 1},
                      title=f"Note {i}", heading="House" if i % 2 else "", ord=0, file_id=i + 1)
                 for i, text in enumerate(NOTES)]
        store.add(items, unit(len(items), 8, 1))
        return items

    def test_a_corpus_is_made_once_and_knows_its_model(self, store: CorpusStore):
        store.ensure_corpus(PARAGRAPH, "text", "paragraph", 8, "minilm")
        store.ensure_corpus(PARAGRAPH, "text", "paragraph", 8, "minilm")
        assert store.embedder_of(PARAGRAPH) == "minilm" and store.embedder_of("image/looks") is None
        with pytest.raises(ValueError, match="minilm"):
            store.ensure_corpus(PARAGRAPH, "text", "paragraph", 16, "bge")
        assert store.corpora() == {}  # made, but holding nothing

    def test_items_come_back_as_they_were_added(self, store: CorpusStore, notes: list[Item]):
        assert all(item.id for item in notes) and len({item.id for item in notes}) == len(notes)
        back = store.items([notes[1].id, notes[4].id, 10**9])
        assert set(back) == {notes[1].id, notes[4].id}
        got = back[notes[1].id]
        assert (got.corpus, got.source, got.text, got.title, got.heading, got.file_id) == (
            PARAGRAPH, "/n/1.md", NOTES[1], "Note 1", "House", 2)
        assert got.locator == {"start": 0, "end": len(NOTES[1]), "page": 2}
        assert store.corpora() == {PARAGRAPH: 6} and store.sources(PARAGRAPH) == {f"/n/{i}.md" for i in range(6)}
        assert store.file_items(1, PARAGRAPH)[0].text == NOTES[0] and store.file_items(99, PARAGRAPH) == []
        assert store.items([]) == {}

    def test_keywords_find_the_items_that_hold_them_rare_words_first(self, store: CorpusStore, notes: list[Item]):
        found = store.bm25(PARAGRAPH, "Where is the boiler manual?", 10)
        files = [store.items([i])[i].file_id for i, _ in found]
        assert files[0] == 4  # "manual" is rare, "boiler" is in three notes
        assert set(files) == {1, 3, 4} and all(score > 0 for _, score in found)
        assert [f for f in files] == [f for f, _ in sorted(zip(files, [s for _, s in found], strict=True),
                                                           key=lambda p: -p[1])]
        assert store.bm25(PARAGRAPH, "tortoises hibernating", 3)[0][0] == notes[4].id  # stems match
        assert store.bm25(PARAGRAPH, "zeppelin", 3) == [] and store.bm25(PARAGRAPH, "", 3) == []
        assert store.bm25("image/looks", "boiler", 3) == []
        assert store.bm25(PARAGRAPH, 'boiler" OR * NEAR(', 3)  # no query syntax gets through

    def test_a_search_kept_to_some_files_finds_k_of_theirs(self, store: CorpusStore):
        store.ensure_corpus(PARAGRAPH, "text", "paragraph", 16, "minilm")
        vectors = unit(200, 16, 3)
        store.add([Item(PARAGRAPH, f"/n/{i}.md", f"boiler note {i}", {}, file_id=i + 1) for i in range(200)], vectors)
        mine = {150, 151, 152, 153}  # far from the query, most of them
        for found in (store.dense(PARAGRAPH, vectors[0], 3, mine), store.bm25(PARAGRAPH, "boiler note", 3, mine)):
            assert len(found) == 3 and _file_of(store, found) <= mine
        assert store.corpora_of(mine) == {PARAGRAPH} and store.corpora_of({999}) == set()
        assert sorted(store.ids_of(PARAGRAPH, {1, 2})) == sorted(store.items(store.ids_of(PARAGRAPH, {1, 2})))
        assert {item.file_id for item in store.items(store.ids_of(PARAGRAPH, {1, 2})).values()} == {1, 2}
        assert store.bm25(PARAGRAPH, "boiler", 3, set()) == [] and store.dense(PARAGRAPH, vectors[0], 3, set()) == []

    def test_the_nearest_vectors_are_the_exact_nearest(self, store: CorpusStore):
        store.ensure_corpus(PARAGRAPH, "text", "paragraph", 16, "minilm")
        vectors = unit(500, 16, 7)
        items = [Item(PARAGRAPH, f"/n/{i}.md", f"p {i}", {}, file_id=i + 1) for i in range(500)]
        store.add(items, vectors)
        query = unit(1, 16, 8)[0]
        found = store.dense(PARAGRAPH, query, 10)
        cosines = vectors @ query
        best = np.argsort(-cosines)[:10]
        assert [i for i, _ in found] == [items[j].id for j in best]
        assert np.allclose([c for _, c in found], cosines[best], atol=1e-5)
        ids, matrix = store.all_vectors(PARAGRAPH)
        assert list(ids) == sorted(item.id for item in items) and np.allclose(matrix, vectors, atol=1e-6)
        assert np.allclose(store.vectors(PARAGRAPH, [items[3].id])[items[3].id], vectors[3], atol=1e-6)
        assert store.all_vectors("image/none")[0].size == 0 and store.vectors("image/none", [1]) == {}

    def test_a_files_vectors_are_found_again_by_what_each_item_was_made_of(self, store: CorpusStore):
        store.ensure_corpus(PARAGRAPH, "text", "paragraph", 3, "minilm")
        store.ensure_corpus("text/document", "text", "document", 3, "minilm")
        mine = [Item(PARAGRAPH, "/n/a.md", f"paragraph {i}", {}, title="A", heading="H", file_id=1) for i in range(2)]
        mine.append(Item("text/document", "/n/a.md", "paragraph 0", {}, title="A", file_id=1))
        vectors = unit(3, 3, 4)
        store.add(mine, vectors)
        store.add([Item(PARAGRAPH, "/n/b.md", "paragraph 0", {}, title="A", heading="H", file_id=2)], unit(1, 3, 5))
        known = store.file_vectors(1)
        assert set(known) == {item_key(item) for item in mine}  # same text, other corpus: a key of its own
        for item, vector in zip(mine, vectors, strict=True):
            assert np.allclose(known[item_key(item)], vector, atol=1e-6)
        assert store.file_vectors(3) == {}

    def test_a_file_leaves_every_corpus_at_once(self, store: CorpusStore, notes: list[Item]):
        store.ensure_corpus("image/looks", "image", "looks", 4, "clip")
        store.add([Item("image/looks", "/n/0.md", "a picture in note 0", {}, file_id=1)], unit(1, 4, 2))
        store.set_file_text(1, "the whole of note 0")
        assert store.file_text(1) == "the whole of note 0"
        store.set_file_text(1, "note 0, changed")
        assert store.file_text(1) == "note 0, changed"
        assert store.delete_file(1) == 2
        assert store.file_text(1) is None and 1 not in {store.items([i])[i].file_id for i, _ in
                                                         store.bm25(PARAGRAPH, "boiler", 10)}
        assert store.corpora() == {PARAGRAPH: 5} and store.dense(PARAGRAPH, unit(1, 8, 1)[0], 6)[0][0] != notes[0].id
        assert store.delete_file(1) == 0

    def test_positions_spans_and_locator_fields(self, store: CorpusStore, notes: list[Item]):
        assert store.positions([notes[2].id]) == {notes[2].id: (3, 0, len(NOTES[2]))}
        assert store.spans(PARAGRAPH, [3, 5]) == {3: [(notes[2].id, 0, len(NOTES[2]))],
                                                  5: [(notes[4].id, 0, len(NOTES[4]))]}
        assert store.positions([]) == {} and store.spans(PARAGRAPH, []) == {}
        assert store.locator_values(PARAGRAPH, "page") == {i + 1: {str(i % 2 + 1)} for i in range(6)}
        assert store.locator_values(PARAGRAPH, "subject") == {}
        store.add([Item(PARAGRAPH, "/s/scan.pdf", "read from a scan", {"page": 1, "read_by": "OCR"}, file_id=50),
                   Item(PARAGRAPH, "/s/scan.pdf", "more of it", {"page": 1, "read_by": "OCR"}, file_id=50, ord=1),
                   Item(PARAGRAPH, "/s/scan.pdf", "page two", {"page": 2, "read_by": "OCR"}, file_id=50, ord=2)],
                  unit(3, 8, 9))
        assert store.pages_read_by(PARAGRAPH, "OCR") == (2, 1)

    def test_a_replaced_models_corpus_is_dropped_and_made_again(self, store: CorpusStore, notes: list[Item]):
        store.ensure_corpus("image/looks", "image", "looks", 4, "clip-a")
        store.add([Item("image/looks", f"/p/{i}.jpg", f"photo {i}", {}, file_id=100 + i) for i in range(3)],
                  unit(3, 4, 0))
        store.drop_corpus("image/looks")
        assert store.corpora() == {PARAGRAPH: 6} and store.embedder_of("image/looks") is None
        store.ensure_corpus("image/looks", "image", "looks", 8, "clip-b")
        store.add([Item("image/looks", "/p/0.jpg", "photo 0", {}, file_id=100)], unit(1, 8, 2))
        assert store.corpora()["image/looks"] == 1 and store.embedder_of("image/looks") == "clip-b"
        assert len(store.dense("image/looks", unit(1, 8, 2)[0], 5)) == 1

    def test_a_transaction_that_fails_leaves_nothing_and_others_see_only_commits(
            self, store: CorpusStore, notes: list[Item], reopen: Callable[[], CorpusStore]):
        other = reopen()
        db = store.db  # type: ignore[attr-defined]  # both stores keep their database as .db
        with pytest.raises(RuntimeError), db.transaction():
            store.delete_file(1)
            store.add([Item(PARAGRAPH, "/n/0.md", "half written", {}, file_id=1)], unit(1, 8, 3))
            raise RuntimeError("killed mid-file")
        assert store.corpora() == {PARAGRAPH: 6} and store.file_items(1, PARAGRAPH)[0].text == NOTES[0]
        new = unit(1, 8, 4)
        assert other.dense(PARAGRAPH, new[0], 1)[0][1] < 0.999  # the other holds the vectors it has seen
        with db.transaction():
            store.add([Item(PARAGRAPH, "/n/new.md", "a boiler invoice", {}, file_id=60)], new)
            assert other.corpora() == {PARAGRAPH: 6} and other.dense(PARAGRAPH, new[0], 1)[0][1] < 0.999
        assert other.corpora() == {PARAGRAPH: 7} and other.bm25(PARAGRAPH, "invoice", 3)
        assert other.dense(PARAGRAPH, new[0], 1)[0][1] > 0.999  # and reads them again after a commit
        store.delete_file(60)
        assert other.dense(PARAGRAPH, new[0], 1)[0][1] < 0.999
