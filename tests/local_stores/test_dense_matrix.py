"""The in-memory matrix of a corpus's vectors: nearest items and rows by id."""

from __future__ import annotations

import numpy as np

from local_stores.dense_matrix import DenseMatrix


def test_nearest_items_come_best_first_and_rows_are_found_by_id():
    matrix = np.eye(4, dtype=np.float32)
    held = DenseMatrix(np.array([3, 8, 10, 42]), matrix, (0, 0))
    query = np.array([0.1, 0.9, 0.0, 0.4], dtype=np.float32)
    assert [i for i, _ in held.nearest(query, 3)] == [8, 42, 3]
    assert len(held.nearest(query, 10)) == 4 and held.nearest(query, 0) == []
    rows = held.rows([42, 5, 3, 99])
    assert set(rows) == {42, 3} and (rows[42] == matrix[3]).all()
    empty = DenseMatrix(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), (0, 0))
    assert empty.nearest(query, 5) == [] and empty.rows([1]) == {}


def test_nearest_among_some_ids_finds_k_of_them():
    matrix = np.eye(4, dtype=np.float32)
    held = DenseMatrix(np.array([3, 8, 10, 42]), matrix, (0, 0))
    query = np.array([0.1, 0.9, 0.0, 0.4], dtype=np.float32)
    assert [i for i, _ in held.nearest(query, 2, among=np.array([3, 10, 99]))] == [3, 10]
    assert held.nearest(query, 2, among=np.array([99])) == []
