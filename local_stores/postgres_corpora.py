"""The text corpora in PostgreSQL (a `CorpusStore` a team shares): items with locators in one
table, and per corpus a table of its vectors (pgvector, an HNSW index for cosine) and its words
(`tsvector`, a GIN index).

Vectors are searched as the SQLite store searches them: held in memory per corpus (read in binary
form once, and again after any Trove has written to the index), exact; a corpus too large to hold
(MATRIX_MB) is searched by its HNSW index on the server.

Keyword scores are BM25-like: each query word's `ts_rank` (length-normalised term frequency,
headings weighted as in the SQLite store) times its inverse document frequency in the corpus, so
that a rare word counts for more than a common one, as BM25's does. The hybrid search normalises
keyword scores by the best one before fusing, so their scale does not matter, only their order."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence

import numpy as np

from local_stores.corpus_store import TABLES, CorpusTables, Item, ItemKey, by_file, content_words
from local_stores.dense_matrix import MATRIX_MB, DenseMatrix, HeldMatrices
from local_stores.index_database import postgres_schema
from local_stores.postgres_db import PostgresDb
from local_stores.quoting import Quoted
from local_stores.quoting import postgres_sql as pg

SCHEMA = (postgres_schema(TABLES).replace("locator TEXT", "locator JSONB")
          + "CREATE INDEX IF NOT EXISTS items_corpus ON items(corpus, file_id);\n")
# ts_rank's weights for {D, C, B, A}: a heading (A) counts half a body word (B), as in the FTS5 store
RANK_WEIGHTS = "'{0.1, 0.2, 1.0, 0.5}'"
EF_SEARCH_MIN = 400  # HNSW candidates per search (pgvector's default is 40): recall@10 0.99 at 100k, RESULTS §32


def _table(corpus: str) -> Quoted:
    """The table of a corpus's vectors and words (`text/paragraph` -> `"corpus_text_paragraph"`)."""
    return pg.ident("corpus_" + re.sub(r"\W", "_", corpus))


def _index(corpus: str, kind: str) -> Quoted:
    return pg.ident(f"{kind}_" + re.sub(r"\W", "_", corpus))


def _vector(values: np.ndarray) -> str:
    """A vector as pgvector reads it from text: `[0.1,0.2,...]`."""
    return "[" + ",".join(f"{v:.9g}" for v in np.asarray(values, dtype=np.float32)) + "]"  # float32 exactly


def _floats(sent: bytes) -> np.ndarray:
    """A vector from pgvector's binary form: dimension and flags (2 bytes each), big-endian float32s."""
    return np.frombuffer(sent, dtype=">f4", offset=4).astype(np.float32)


class PostgresCorpora(CorpusTables):
    db: PostgresDb

    def __init__(self, db: PostgresDb) -> None:
        self.db = db
        self._matrices = HeldMatrices()
        if not db.read_only:
            db.script(SCHEMA)

    def ensure_corpus(self, name: str, modality: str, granularity: str, dim: int, embedder: str) -> None:
        if self._known(name, dim, embedder):
            return
        table = _table(name)
        with self.db.transaction():
            self.db.lock_schema()
            self.db.execute("INSERT INTO corpora VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO NOTHING",
                            (name, modality, granularity, dim, embedder))
            self.db.execute(f"CREATE TABLE IF NOT EXISTS {table}(id BIGINT PRIMARY KEY REFERENCES items(id) "
                            f"ON DELETE CASCADE, embedding vector({pg.number(int(dim))}) NOT NULL, "
                            "words tsvector NOT NULL)")
            self.db.execute(f"CREATE INDEX IF NOT EXISTS {_index(name, 'hnsw')} ON {table} "
                            "USING hnsw (embedding vector_cosine_ops)")
            self.db.execute(f"CREATE INDEX IF NOT EXISTS {_index(name, 'words')} ON {table} USING gin (words)")

    def drop_corpus(self, corpus: str) -> None:
        with self.db.transaction():
            self.db.execute(f"DROP TABLE IF EXISTS {_table(corpus)}")
            self.db.execute("DELETE FROM items WHERE corpus = ?", (corpus,))
            self.db.execute("DELETE FROM corpora WHERE name = ?", (corpus,))

    def locator_values(self, corpus: str, key: str) -> dict[int, set[str]]:
        rows = self.db.query("SELECT DISTINCT file_id, locator ->> ? FROM items WHERE corpus = ? "
                             "AND locator ->> ? IS NOT NULL", (key, corpus, key))
        return by_file(rows)

    def pages_read_by(self, corpus: str, reader: str) -> tuple[int, int]:
        row = self.db.query("SELECT count(DISTINCT file_id || ':' || coalesce(locator ->> 'page', '')), "
                            "count(DISTINCT file_id) FROM items WHERE corpus = ? AND locator ->> 'read_by' = ?",
                            (corpus, reader))
        return int(row[0][0]), int(row[0][1])

    # writing
    def add(self, items: Sequence[Item], vectors: np.ndarray) -> list[int]:
        ids = []
        with self.db.transaction():
            for item, vec in zip(items, vectors, strict=True):
                item_id = self.db.query(
                    "INSERT INTO items(corpus, file_id, source, title, heading, text, locator, ord) "
                    "VALUES (?,?,?,?,?,?,?,?) RETURNING id",
                    (item.corpus, item.file_id, item.source, item.title, item.heading, item.text,
                     json.dumps(item.locator), item.ord))[0][0]
                self.db.execute(f"INSERT INTO {_table(item.corpus)}(id, embedding, words) VALUES (?, ?::vector, "
                                "setweight(to_tsvector('english', ?), 'A') || setweight(to_tsvector('english', ?), "
                                "'B'))", (item_id, _vector(vec), f"{item.title} {item.heading}".strip(), item.text))
                item.id = item_id
                ids.append(item_id)
        return ids

    def delete_file(self, file_id: int) -> int:
        """The corpus tables' rows go with their items (ON DELETE CASCADE)."""
        with self.db.transaction():
            removed = self.db.execute("DELETE FROM items WHERE file_id = ?", (file_id,)).rowcount
            self.db.execute("DELETE FROM file_texts WHERE file_id = ?", (file_id,))
        return int(removed)

    def set_file_text(self, file_id: int, text: str) -> None:
        self.db.execute("INSERT INTO file_texts(file_id, text) VALUES (?, ?) ON CONFLICT(file_id) DO UPDATE "
                        "SET text = excluded.text", (file_id, text))

    # reading
    def items(self, ids: Sequence[int]) -> dict[int, Item]:
        if not ids:
            return {}
        rows = self.db.query("SELECT id, corpus, file_id, source, title, heading, text, locator, ord "
                             "FROM items WHERE id = ANY(?)", (list(ids),))
        return {r[0]: Item(corpus=r[1], file_id=r[2], source=r[3], title=r[4] or "", heading=r[5] or "",
                           text=r[6], locator=r[7], ord=r[8], id=r[0]) for r in rows}

    def file_vectors(self, file_id: int) -> dict[ItemKey, np.ndarray]:
        vectors: dict[ItemKey, np.ndarray] = {}
        for corpus in self._corpora_of_file(file_id):
            rows = self.db.query_binary(f"SELECT i.title, i.heading, i.text, v.embedding FROM items i "
                                 f"JOIN {_table(corpus)} v ON v.id = i.id WHERE i.file_id = ? AND i.corpus = ?",
                                 (file_id, corpus))
            for title, heading, text, vector in rows:
                vectors[(corpus, title or "", heading or "", text)] = _floats(vector)
        return vectors

    def positions(self, ids: Sequence[int]) -> dict[int, tuple[int, int, int]]:
        if not ids:
            return {}
        rows = self.db.query("SELECT id, file_id, (locator ->> 'start')::bigint, (locator ->> 'end')::bigint "
                             "FROM items WHERE id = ANY(?)", (list(ids),))
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def spans(self, corpus: str, file_ids: Sequence[int]) -> dict[int, list[tuple[int, int, int]]]:
        if not file_ids:
            return {}
        rows = self.db.query("SELECT file_id, id, (locator ->> 'start')::bigint, (locator ->> 'end')::bigint "
                             "FROM items WHERE corpus = ? AND file_id = ANY(?) ORDER BY file_id, ord, id",
                             (corpus, list(file_ids)))
        out: dict[int, list[tuple[int, int, int]]] = {}
        for file_id, item_id, start, end in rows:
            out.setdefault(file_id, []).append((item_id, start, end))
        return out

    def bm25(self, corpus: str, query: str, k: int, files: Collection[int] | None = None) -> list[tuple[int, float]]:
        words = content_words(query)
        if not words or not self._has(corpus) or (files is not None and not files):
            return []
        table = _table(corpus)
        among = " WHERE matches.id IN (SELECT id FROM items WHERE corpus = ? AND file_id = ANY(?))" if files else ""
        params: list[object] = [words, str(table)] + ([corpus, sorted(files)] if files else []) + [int(k)]
        # each word's matches are read once (a GIN bitmap scan), ranked there (OFFSET 0 keeps the wide
        # tsvectors out of the sort), and counted for the word's document frequency
        rows = self.db.query(
            "WITH terms AS (SELECT q, row_number() OVER () AS term FROM (SELECT DISTINCT plainto_tsquery('english', "
            "w) AS q FROM unnest(?::text[]) AS w) AS d WHERE numnode(q) > 0), "
            f"n AS (SELECT CASE WHEN c.reltuples > 0 THEN c.reltuples ELSE (SELECT count(*) FROM {table}) END AS n "
            "FROM pg_class AS c WHERE c.oid = to_regclass(?)), "
            "matches AS MATERIALIZED (SELECT terms.term, m.id, m.tf FROM terms, LATERAL (SELECT t.id, "
            f"ts_rank({RANK_WEIGHTS}, t.words, terms.q, 1) AS tf FROM {table} AS t WHERE t.words @@ terms.q "
            "OFFSET 0) AS m), "
            "df AS (SELECT term, count(*) AS c FROM matches GROUP BY term) "
            "SELECT matches.id, sum(ln(1 + (n.n - df.c + 0.5) / (df.c + 0.5)) * matches.tf) AS s "
            f"FROM matches JOIN df ON df.term = matches.term CROSS JOIN n{Quoted(among)} "
            "GROUP BY matches.id ORDER BY s DESC, matches.id LIMIT ?", params)
        return [(r[0], float(r[1])) for r in rows if r[1] > 0]

    def dense(self, corpus: str, vector: np.ndarray, k: int, files: Collection[int] | None = None
              ) -> list[tuple[int, float]]:
        """Exact, from the corpus's vectors held in memory; from the HNSW index when they would take
        over MATRIX_MB (or inside a transaction)."""
        if not self._has(corpus) or k <= 0:
            return []
        held = self._matrix(corpus)
        if held is not None:
            among = np.asarray(self.ids_of(corpus, files), dtype=np.int64) if files is not None else None
            return held.nearest(vector, k, among=among)
        table = _table(corpus)
        q = _vector(vector)
        if files is not None:  # exact among the files' items: materialised first, so no index scan filters them
            rows = self.db.query(f"WITH mine AS MATERIALIZED (SELECT id, embedding FROM {table} WHERE id IN "
                                 "(SELECT id FROM items WHERE corpus = ? AND file_id = ANY(?))) "
                                 "SELECT id, embedding <=> ?::vector AS d FROM mine ORDER BY d, id LIMIT ?",
                                 (corpus, sorted(files), q, int(k)))
        else:
            self.db.execute(f"SET hnsw.ef_search = {pg.number(max(EF_SEARCH_MIN, 2 * int(k)))}")
            rows = self.db.query(f"SELECT id, embedding <=> ?::vector AS d FROM {table} ORDER BY d LIMIT ?",
                                 (q, int(k)))
        return [(r[0], 1.0 - float(r[1])) for r in rows]

    def ids_of(self, corpus: str, files: Collection[int]) -> list[int]:
        return [r[0] for r in self.db.query("SELECT id FROM items WHERE corpus = ? AND file_id = ANY(?)",
                                            (corpus, sorted(files)))]

    def corpora_of(self, files: Collection[int]) -> set[str]:
        return {r[0] for r in self.db.query("SELECT DISTINCT corpus FROM items WHERE file_id = ANY(?)",
                                            (sorted(files),))}

    def _stored_vectors(self, corpus: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
        rows = self.db.query_binary(f"SELECT id, embedding FROM {_table(corpus)} WHERE id = ANY(?)", (list(ids),))
        return {r[0]: _floats(r[1]) for r in rows}

    def all_vectors(self, corpus: str) -> tuple[np.ndarray, np.ndarray]:
        if not self._has(corpus):
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        rows = self.db.query_binary(f"SELECT id, embedding FROM {_table(corpus)} ORDER BY id")
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1][4:] for r in rows), dtype=">f4").reshape(len(rows), -1)
        return ids, matrix.astype(np.float32)

    def _matrix(self, corpus: str) -> DenseMatrix | None:
        """The corpus's vectors in memory, read again after any Trove has written to the index; None
        inside a transaction (its writes may yet be rolled back) or when they would take over MATRIX_MB."""
        if self.db.in_transaction:
            return None
        return self._matrices.get(corpus, (self.db.changes(), 0), lambda: self._nbytes(corpus), MATRIX_MB,
                                  lambda: self.all_vectors(corpus))

    def _nbytes(self, corpus: str) -> int:
        dim = self.db.query("SELECT dim FROM corpora WHERE name = ?", (corpus,))[0][0]
        return int(self.db.query(f"SELECT count(*) FROM {_table(corpus)}")[0][0]) * dim * 4

    def _corpora_of_file(self, file_id: int) -> list[str]:
        return [r[0] for r in self.db.query("SELECT DISTINCT corpus FROM items WHERE file_id = ?", (file_id,))]

