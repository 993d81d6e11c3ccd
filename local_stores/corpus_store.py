"""What every store of the text corpora keeps to, and the data it holds.

A corpus is one modality x granularity (`text/paragraph`, `image/region`, ...) of one vector space:
items with what is needed to cite them, a keyword index (BM25-like) and a vector index (cosine).
Two stores implement `CorpusStore`: `vector_store.VectorStore` (SQLite with FTS5 and sqlite-vec, in
the Trove home; the default) and `postgres_corpora.PostgresCorpora` (PostgreSQL with tsvector and
pgvector: one index a team shares). `tests/local_stores/corpus_store_contract.py` holds both to it."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from local_stores.dense_matrix import DenseMatrix
    from local_stores.index_database import IndexDatabase

# the tables both stores keep, as SQLite's statements (PostgreSQL's: `index_database.postgres_schema`)
TABLES = """
CREATE TABLE IF NOT EXISTS corpora(
    name TEXT PRIMARY KEY, modality TEXT NOT NULL, granularity TEXT NOT NULL, dim INTEGER NOT NULL,
    embedder TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items(
    id INTEGER PRIMARY KEY, corpus TEXT NOT NULL REFERENCES corpora(name), file_id INTEGER NOT NULL,
    source TEXT NOT NULL, title TEXT, heading TEXT, text TEXT NOT NULL, locator TEXT NOT NULL,
    ord INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS items_file ON items(file_id);
CREATE TABLE IF NOT EXISTS file_texts(file_id INTEGER PRIMARY KEY, text TEXT NOT NULL);
"""

STOPWORDS = frozenset("""
a an and are as at be been but by can could did do does for from had has have how i if in into is
it its me my of on or our so than that the their them then there these they this to was we were
what when where which who whom why will with would you your about after all also any before being
between both each few more most other over same should some such through under until very
""".split())
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class Item:
    """A retrievable unit of a corpus, with what is needed to cite it."""

    corpus: str
    source: str  # the file path
    text: str
    locator: Mapping[str, Any]  # where it is in the file: JSON, its shape the engine's (engine.locators)
    title: str = ""
    heading: str = ""
    ord: int = 0
    file_id: int = 0
    id: int = 0
    extra: dict = field(default_factory=dict)


ItemKey = tuple[str, str, str, str]  # (corpus, title, heading, text): what an item's text vector is made of


def item_key(item: Item) -> ItemKey:
    return (item.corpus, item.title, item.heading, item.text)


def by_file(rows: list[tuple]) -> dict[int, set[str]]:
    """(file id, value) rows as each file's set of values (`CorpusStore.locator_values`)."""
    out: dict[int, set[str]] = {}
    for file_id, value in rows:
        out.setdefault(int(file_id), set()).add(str(value))
    return out


def content_words(text: str) -> list[str]:
    """The words a keyword search looks for: the question's words, lower-cased, once each, without
    the common ones (all of them when nothing else is left)."""
    words = [w.lower() for w in _WORD.findall(text)]
    return [w for w in dict.fromkeys(words) if w not in STOPWORDS] or list(dict.fromkeys(words))


class CorpusStore(Protocol):
    """The text corpora of one index. Writes outside `transaction()` of the index's database commit
    at once; a file's items change in one transaction with its catalog row."""

    def ensure_corpus(self, name: str, modality: str, granularity: str, dim: int, embedder: str) -> None:
        """Make corpus `name` (a no-op when it exists); ValueError when it exists with another model."""

    def embedder_of(self, corpus: str) -> str | None:
        """The model a corpus's vectors were made by (None: no such corpus)."""

    def drop_corpus(self, corpus: str) -> None:
        """Forget a corpus and its items (its vectors came from a model that is gone)."""

    def sources(self, corpus: str) -> set[str]:
        """The files that have items in `corpus`."""

    def corpora(self) -> dict[str, int]:
        """{corpus: number of items} for the corpora that hold anything."""

    def locator_values(self, corpus: str, key: str) -> dict[int, set[str]]:
        """The values of locator field `key` in each file's items of `corpus`, by file id."""

    def pages_read_by(self, corpus: str, reader: str) -> tuple[int, int]:
        """(pages, files) whose items of `corpus` were read by `reader` (their locator's read_by)."""

    def add(self, items: Sequence[Item], vectors: np.ndarray) -> list[int]:
        """Store `items` with their vectors (one row each); sets and returns their ids."""

    def delete_file(self, file_id: int) -> int:
        """Remove a file's items from every corpus, and its text; returns how many items."""

    def set_file_text(self, file_id: int, text: str) -> None: ...

    def file_text(self, file_id: int) -> str | None: ...

    def items(self, ids: Sequence[int]) -> dict[int, Item]: ...

    def file_items(self, file_id: int, corpus: str) -> list[Item]:
        """A file's items of `corpus`, in reading order."""

    def file_vectors(self, file_id: int) -> dict[ItemKey, np.ndarray]:
        """The vectors of a file's items, by what the embedder read them from (`item_key`)."""

    def positions(self, ids: Sequence[int]) -> dict[int, tuple[int, int, int]]:
        """item id -> (file id, start, end), without loading texts."""

    def spans(self, corpus: str, file_ids: Sequence[int]) -> dict[int, list[tuple[int, int, int]]]:
        """file id -> [(item id, start, end)] of its items in `corpus`, in reading order."""

    def bm25(self, corpus: str, query: str, k: int, files: Collection[int] | None = None) -> list[tuple[int, float]]:
        """(item id, score > 0) best first by keywords; `files`: only those files' items (k of them)."""

    def dense(self, corpus: str, vector: np.ndarray, k: int, files: Collection[int] | None = None
              ) -> list[tuple[int, float]]:
        """(item id, cosine similarity) best first; `files`: the nearest `k` of those files' items."""

    def ids_of(self, corpus: str, files: Collection[int]) -> list[int]:
        """The ids of the items of `corpus` that belong to `files`."""

    def corpora_of(self, files: Collection[int]) -> set[str]:
        """The corpora that hold items of `files`."""

    def vectors(self, corpus: str, ids: Sequence[int]) -> dict[int, np.ndarray]: ...

    def all_vectors(self, corpus: str) -> tuple[np.ndarray, np.ndarray]:
        """(item ids, an (n, dim) float32 matrix) of every vector of `corpus`, in id order."""


class CorpusTables:
    """What both stores read alike from their `corpora`, `items` and `file_texts` tables (statements
    with `?` placeholders run on SQLite and PostgreSQL as they are)."""

    db: IndexDatabase

    def items(self, ids: Sequence[int]) -> dict[int, Item]:
        raise NotImplementedError

    def vectors(self, corpus: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The vectors of `ids`: from the corpus's matrix when it is held, else from the database."""
        if not ids or not self._has(corpus):
            return {}
        held = self._matrix(corpus)
        return held.rows(ids) if held is not None else self._stored_vectors(corpus, ids)

    def _matrix(self, corpus: str) -> DenseMatrix | None:
        raise NotImplementedError

    def _stored_vectors(self, corpus: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
        raise NotImplementedError

    def embedder_of(self, corpus: str) -> str | None:
        row = self.db.query("SELECT embedder FROM corpora WHERE name = ?", (corpus,))
        return row[0][0] if row else None

    def sources(self, corpus: str) -> set[str]:
        return {r[0] for r in self.db.query("SELECT DISTINCT source FROM items WHERE corpus = ?", (corpus,))}

    def corpora(self) -> dict[str, int]:
        return dict(self.db.query("SELECT corpus, count(*) FROM items GROUP BY corpus"))

    def file_text(self, file_id: int) -> str | None:
        rows = self.db.query("SELECT text FROM file_texts WHERE file_id = ?", (file_id,))
        return rows[0][0] if rows else None

    def file_items(self, file_id: int, corpus: str) -> list[Item]:
        ids = [r[0] for r in self.db.query("SELECT id FROM items WHERE file_id = ? AND corpus = ? ORDER BY ord, id",
                                           (file_id, corpus))]
        found = self.items(ids)
        return [found[i] for i in ids if i in found]

    def _known(self, name: str, dim: int, embedder: str) -> bool:
        """Whether corpus `name` exists; ValueError when it exists with another model or size."""
        row = self.db.query("SELECT dim, embedder FROM corpora WHERE name = ?", (name,))
        if row and tuple(row[0]) != (dim, embedder):
            raise ValueError(f"corpus {name} was built with {row[0][1]} ({row[0][0]}-d), not {embedder}; "
                             "re-index into a new home")
        return bool(row)

    def _has(self, corpus: str) -> bool:
        return bool(self.db.query("SELECT 1 FROM corpora WHERE name = ?", (corpus,)))
