"""The text corpora in SQLite (the default `CorpusStore`, in the Trove home): items with locators,
an FTS5 index (BM25) and a sqlite-vec index (cosine) per corpus."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence

import numpy as np

from local_stores import dense_matrix
from local_stores.corpus_store import TABLES, CorpusTables, Item, ItemKey, by_file, content_words
from local_stores.dense_matrix import DenseMatrix, HeldMatrices, Version
from local_stores.quoting import Quoted
from local_stores.quoting import sqlite_sql as sq
from local_stores.sqlite_db import Database

_IN_JSON = "(SELECT value FROM json_each(?))"  # a set of ids bound as one JSON array, however many


def _fts(corpus: str) -> Quoted:
    """The FTS5 table of a corpus (`text/paragraph` -> `"fts_text_paragraph"`)."""
    return sq.ident("fts_" + re.sub(r"\W", "_", corpus))


def _vec(corpus: str) -> Quoted:
    """The sqlite-vec table of a corpus."""
    return sq.ident("vec_" + re.sub(r"\W", "_", corpus))


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the question's content words (quoted, so no syntax leaks through)."""
    return sq.fts_phrases(content_words(text))


MATRIX_MB = dense_matrix.MATRIX_MB  # a corpus whose vectors take more is searched by sqlite-vec


class VectorStore(CorpusTables):
    db: Database

    def __init__(self, db: Database) -> None:
        self.db = db
        self.db.script(TABLES)
        self._matrices = HeldMatrices()

    def ensure_corpus(self, name: str, modality: str, granularity: str, dim: int, embedder: str) -> None:
        if self._known(name, dim, embedder):
            return
        with self.db.transaction():
            self.db.execute("INSERT INTO corpora VALUES (?, ?, ?, ?, ?)", (name, modality, granularity, dim, embedder))
            self.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_fts(name)} USING fts5(heading, text, "
                            "tokenize = 'porter unicode61 remove_diacritics 2')")
            self.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_vec(name)} USING vec0(embedding "
                            f"{sq.vec_dim(dim)} distance_metric=cosine)")

    def drop_corpus(self, corpus: str) -> None:
        """Forget a corpus and its items (its vectors came from a model that is gone), in one transaction."""
        with self.db.transaction():
            self.db.execute("DELETE FROM items WHERE corpus = ?", (corpus,))
            self.db.execute("DELETE FROM corpora WHERE name = ?", (corpus,))
            self.db.execute(f"DROP TABLE IF EXISTS {_fts(corpus)}")
            self.db.execute(f"DROP TABLE IF EXISTS {_vec(corpus)}")

    def locator_values(self, corpus: str, key: str) -> dict[int, set[str]]:
        """The values of locator field `key` in each file's items of `corpus`, by file id (files whose
        items have none are left out): a mailbox's messages' dates, read without loading the items."""
        rows = self.db.query("SELECT DISTINCT file_id, json_extract(locator, '$.' || ?) FROM items WHERE corpus = ? "
                             "AND json_extract(locator, '$.' || ?) IS NOT NULL", (key, corpus, key))
        return by_file(rows)

    def pages_read_by(self, corpus: str, reader: str) -> tuple[int, int]:
        """(pages, files) whose items of `corpus` were read by `reader` (their locator's read_by: OCR)."""
        row = self.db.query("SELECT count(DISTINCT file_id || ':' || json_extract(locator, '$.page')), "
                            "count(DISTINCT file_id) FROM items WHERE corpus = ? "
                            "AND json_extract(locator, '$.read_by') = ?", (corpus, reader))
        return int(row[0][0]), int(row[0][1])

    # writing
    def add(self, items: Sequence[Item], vectors: np.ndarray) -> list[int]:
        ids = []
        for item, vec in zip(items, vectors, strict=True):
            cur = self.db.execute(
                "INSERT INTO items(corpus, file_id, source, title, heading, text, locator, ord) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (item.corpus, item.file_id, item.source, item.title, item.heading, item.text,
                 json.dumps(item.locator), item.ord))
            item_id = cur.lastrowid
            self.db.execute(f"INSERT INTO {_fts(item.corpus)}(rowid, heading, text) VALUES (?,?,?)",
                            (item_id, f"{item.title} {item.heading}".strip(), item.text))
            self.db.execute(f"INSERT INTO {_vec(item.corpus)}(rowid, embedding) VALUES (?, ?)",
                            (item_id, np.asarray(vec, dtype=np.float32).tobytes()))
            item.id = item_id
            ids.append(item_id)
        return ids

    def delete_file(self, file_id: int) -> int:
        """Remove a file's items from every corpus; returns how many."""
        rows = self.db.query("SELECT id, corpus FROM items WHERE file_id = ?", (file_id,))
        for item_id, corpus in rows:
            self.db.execute(f"DELETE FROM {_fts(corpus)} WHERE rowid = ?", (item_id,))
            self.db.execute(f"DELETE FROM {_vec(corpus)} WHERE rowid = ?", (item_id,))
        self.db.execute("DELETE FROM items WHERE file_id = ?", (file_id,))
        self.db.execute("DELETE FROM file_texts WHERE file_id = ?", (file_id,))
        return len(rows)

    def set_file_text(self, file_id: int, text: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO file_texts(file_id, text) VALUES (?, ?)", (file_id, text))

    # reading
    def items(self, ids: Sequence[int]) -> dict[int, Item]:
        if not ids:
            return {}
        marks = sq.marks(len(ids))
        rows = self.db.query(f"SELECT id, corpus, file_id, source, title, heading, text, locator, ord "
                             f"FROM items WHERE id IN ({marks})", tuple(ids))
        return {r[0]: Item(corpus=r[1], file_id=r[2], source=r[3], title=r[4] or "", heading=r[5] or "",
                           text=r[6], locator=json.loads(r[7]), ord=r[8], id=r[0]) for r in rows}

    def file_vectors(self, file_id: int) -> dict[ItemKey, np.ndarray]:
        """The vectors of a file's items, by what the embedder read them from (`item_key`): a changed
        file's unchanged paragraphs keep theirs instead of being embedded again."""
        vectors: dict[ItemKey, np.ndarray] = {}
        for corpus in self.corpora():
            rows = self.db.query(f"SELECT i.title, i.heading, i.text, v.embedding FROM items i "
                                 f"JOIN {_vec(corpus)} v ON v.rowid = i.id WHERE i.file_id = ? AND i.corpus = ?",
                                 (file_id, corpus))
            for title, heading, text, blob in rows:
                vectors[(corpus, title or "", heading or "", text)] = np.frombuffer(blob, dtype=np.float32)
        return vectors

    def positions(self, ids: Sequence[int]) -> dict[int, tuple[int, int, int]]:
        """item id -> (file id, start, end), without loading texts."""
        if not ids:
            return {}
        marks = sq.marks(len(ids))
        rows = self.db.query(f"SELECT id, file_id, json_extract(locator, '$.start'), json_extract(locator, '$.end') "
                             f"FROM items WHERE id IN ({marks})", tuple(ids))
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def spans(self, corpus: str, file_ids: Sequence[int]) -> dict[int, list[tuple[int, int, int]]]:
        """file id -> [(item id, start, end)] of its items in `corpus`, in reading order."""
        if not file_ids:
            return {}
        marks = sq.marks(len(file_ids))
        rows = self.db.query(f"SELECT file_id, id, json_extract(locator, '$.start'), json_extract(locator, '$.end') "
                             f"FROM items WHERE corpus = ? AND file_id IN ({marks}) ORDER BY file_id, ord",
                             (corpus, *file_ids))
        out: dict[int, list[tuple[int, int, int]]] = {}
        for file_id, item_id, start, end in rows:
            out.setdefault(file_id, []).append((item_id, start, end))
        return out

    def bm25(self, corpus: str, query: str, k: int, files: Collection[int] | None = None) -> list[tuple[int, float]]:
        """(item id, score) best first; score = -bm25 (higher is better). `files`: only the items of
        those files (filtered inside the FTS5 query, so `k` of them still come back)."""
        match = fts_query(query)
        if not match or not self._has(corpus):
            return []
        t = _fts(corpus)
        if files is None:
            rows = self.db.query(f"SELECT rowid, bm25({t}, 0.5, 1.0) AS s FROM {t} WHERE {t} MATCH ? "
                                 "ORDER BY s LIMIT ?", (match, k))
        else:
            rows = self.db.query(f"SELECT rowid, bm25({t}, 0.5, 1.0) AS s FROM {t} WHERE {t} MATCH ? AND rowid IN "
                                 f"(SELECT id FROM items WHERE file_id IN {_IN_JSON}) ORDER BY s LIMIT ?",
                                 (match, json.dumps(sorted(files)), k))
        return [(r[0], -r[1]) for r in rows]

    def dense(self, corpus: str, vector: np.ndarray, k: int, files: Collection[int] | None = None
              ) -> list[tuple[int, float]]:
        """(item id, cosine similarity) best first; `files`: only the items of those files (the
        nearest `k` of them, not the nearest `k` filtered)."""
        if not self._has(corpus):
            return []
        if files is not None:
            return self._dense_among(corpus, vector, k, self.ids_of(corpus, files))
        held = self._matrix(corpus)
        if held is not None:
            return held.nearest(vector, k)
        rows = self.db.query(f"SELECT rowid, distance FROM {_vec(corpus)} WHERE embedding MATCH ? AND k = ? "
                             "ORDER BY distance", (np.asarray(vector, dtype=np.float32).tobytes(), k))
        return [(r[0], 1.0 - r[1]) for r in rows]

    def _dense_among(self, corpus: str, vector: np.ndarray, k: int, ids: list[int]) -> list[tuple[int, float]]:
        held = self._matrix(corpus)
        if held is not None:
            return held.nearest(vector, k, among=np.asarray(ids, dtype=np.int64))
        found = self.vectors(corpus, ids)
        scores = sorted(((float(v @ vector), i) for i, v in found.items()), reverse=True)[:k]
        return [(i, score) for score, i in scores]

    def ids_of(self, corpus: str, files: Collection[int]) -> list[int]:
        """The ids of the items of `corpus` that belong to `files`."""
        return [r[0] for r in self.db.query(f"SELECT id FROM items WHERE corpus = ? AND file_id IN {_IN_JSON}",
                                            (corpus, json.dumps(sorted(files))))]

    def corpora_of(self, files: Collection[int]) -> set[str]:
        """The corpora that hold items of `files`."""
        return {r[0] for r in self.db.query(f"SELECT DISTINCT corpus FROM items WHERE file_id IN {_IN_JSON}",
                                            (json.dumps(sorted(files)),))}

    def _stored_vectors(self, corpus: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
        marks = sq.marks(len(ids))
        rows = self.db.query(f"SELECT rowid, embedding FROM {_vec(corpus)} WHERE rowid IN ({marks})", tuple(ids))
        return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in rows}

    def all_vectors(self, corpus: str) -> tuple[np.ndarray, np.ndarray]:
        """(item ids, an (n, dim) float32 matrix) of every vector of `corpus`, in id order (benchmarks
        compare the store's search with brute force over these)."""
        rows = self.db.query(f"SELECT rowid, embedding FROM {_vec(corpus)} ORDER BY rowid") if self._has(corpus) else []
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids, np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)

    def _version(self) -> Version:
        return (self.db.query("PRAGMA data_version")[0][0], self.db.conn.total_changes)

    def _matrix(self, corpus: str) -> DenseMatrix | None:
        """The corpus's vectors in memory, read again when the database has changed since; None inside
        a transaction (its writes may yet be rolled back) or when they would take over MATRIX_MB."""
        if self.db.conn.in_transaction:
            return None
        return self._matrices.get(corpus, self._version(), lambda: self._nbytes(corpus), MATRIX_MB,
                                  lambda: self.all_vectors(corpus))

    def _nbytes(self, corpus: str) -> int:
        dim = self.db.query("SELECT dim FROM corpora WHERE name = ?", (corpus,))[0][0]
        return int(self.db.query("SELECT count(*) FROM items WHERE corpus = ?", (corpus,))[0][0]) * dim * 4
