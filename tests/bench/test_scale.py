"""bench.scale's folder of real files (made from ../shared/eval, read in place) and its brute-force KNN."""

from __future__ import annotations

import random
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

import bench.scale as scale
from bench.scale import Disk, Sources, build_disk, knn, load_sources, touch_files, vary_docs
from engine.corpora import PARAGRAPH
from local_stores.corpus_store import Item
from local_stores.sqlite_db import Database
from local_stores.vector_store import VectorStore
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def sources() -> Sources:
    shared_path("eval", "text", "cranfield", "corpus.jsonl")
    shared_path("eval", "text", "cisi", "corpus.jsonl")
    return load_sources()


def _snapshot(disk: Disk) -> list[tuple[str, bytes, int]]:
    return [(str(m.path.relative_to(disk.folder)), m.path.read_bytes(), m.path.stat().st_mtime_ns)
            for m in disk.files]


def test_the_folder_has_n_files_of_every_kind_in_year_month_topic_folders(sources: Sources, tmp_path: Path):
    disk = build_disk(sources, tmp_path / "disk", 40, seed=3)
    assert len(disk.files) == 40 and all(m.path.is_file() for m in disk.files)
    assert sorted(p for p in disk.folder.rglob("*") if p.is_file()) == sorted(m.path for m in disk.files)
    assert set(disk.kinds()) == {"text", "pdf", "table", "photo"} and disk.kinds()["text"] >= 30
    assert {m.path.suffix for m in disk.files} >= {".txt", ".md", ".pdf", ".csv", ".jpg"}
    for m in disk.files:
        year, month, _topic, _name = m.path.relative_to(disk.folder).parts
        when = datetime.fromtimestamp(m.path.stat().st_mtime)
        assert (int(year), int(month[:2])) == (when.year, when.month)
    assert len({m.path.parent for m in disk.files}) > 20  # nested, not one folder
    assert len({m.path.stem for m in disk.files}) == 40  # varied names
    assert len({m.path.stat().st_mtime_ns for m in disk.files}) == 40  # varied mtimes


def test_the_same_seed_makes_the_same_folder_and_another_seed_another(sources: Sources, tmp_path: Path):
    first = build_disk(sources, tmp_path / "a", 25, seed=7)
    again = build_disk(sources, tmp_path / "b", 25, seed=7)
    other = build_disk(sources, tmp_path / "c", 25, seed=8)
    assert _snapshot(first) == _snapshot(again)
    assert _snapshot(first) != _snapshot(other)


def test_copies_are_renamed_and_texts_differ_from_their_sources(sources: Sources, tmp_path: Path):
    disk = build_disk(sources, tmp_path / "disk", 60, seed=5)
    for m in disk.files:
        if m.kind != "text":
            src = Path(m.source)
            assert m.path.read_bytes() == src.read_bytes() and m.path.name != src.name
            assert not m.path.is_relative_to(scale.EVAL)
    texts = [m for m in disk.files if m.kind == "text"]
    assert len({m.path.read_bytes() for m in texts}) == len(texts)  # not one file N times
    assert any(m.edits for m in texts)
    by_id = {d[0]: d for docs in sources.docs.values() for d in docs}
    for m in texts:
        if "sentence changed" not in m.edits:
            text = m.path.read_text(encoding="utf-8")
            assert all(by_id[i][2].strip() in text for i in m.source.split(","))
    rng = random.Random(1)
    pool = sources.docs["cranfield"][:6]
    varied = [vary_docs(pool, rng) for _ in range(20)]
    assert any(edits and docs != pool for docs, edits in varied)
    assert all(docs == pool for docs, edits in varied if not edits)
    assert any("paragraph dropped" in e for _, e in varied) and any("sentence changed" in e for _, e in varied)


def test_touching_changes_one_paragraph_in_one_percent_of_the_text_files(sources: Sources, tmp_path: Path):
    disk = build_disk(sources, tmp_path / "disk", 30, seed=2)
    before = {m.path: m.path.read_bytes() for m in disk.files}
    touched = touch_files(disk, 0.1, seed=2)
    n_text = disk.kinds()["text"]
    kinds = {m.path: m.kind for m in disk.files}
    assert len(touched) == round(0.1 * n_text) and {kinds[p] for p in touched} == {"text"}
    for path, text in before.items():
        now = path.read_bytes()
        if path not in touched:
            assert now == text
            continue
        old_blocks, new_blocks = text.split(b"\n\n"), now.split(b"\n\n")
        assert len(old_blocks) == len(new_blocks)
        assert sum(a != b for a, b in zip(old_blocks, new_blocks, strict=True)) == 1


def test_brute_force_knn_is_the_exact_top_k_best_first():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(500, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[42]
    top = knn(matrix, query, 10)
    assert top[0] == 42 and list(top) == list(np.argsort(-(matrix @ query))[:10])
    assert len(knn(matrix[:3], query, 10)) == 3
    assert len(knn(np.zeros((0, 16), dtype=np.float32), query, 10)) == 0


def test_the_vectors_read_from_the_store_are_the_ones_written_and_knn_agrees_with_the_store(tmp_path: Path):
    store = VectorStore(Database(tmp_path / "index.db"))
    store.ensure_corpus(PARAGRAPH, "text", "paragraph", 8, "test")
    assert store.all_vectors(PARAGRAPH)[1].shape[0] == 0
    vectors = np.random.default_rng(1).normal(size=(30, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.add([Item(PARAGRAPH, f"/d/{i}.txt", f"paragraph {i}", {}, file_id=i + 1) for i in range(30)], vectors)
    ids, matrix = store.all_vectors(PARAGRAPH)
    assert matrix.shape == (30, 8) and np.allclose(matrix, vectors)
    top = ids[knn(matrix, vectors[7], 5)]
    assert list(top) == [i for i, _ in store.dense(PARAGRAPH, vectors[7], 5)]


def test_the_bench_says_what_is_missing_when_the_shared_data_is_absent(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]):
    monkeypatch.setattr(scale, "EVAL", tmp_path / "eval")
    assert scale.main(["--files", "5", "--out", str(tmp_path / "out")]) == 0
    assert str(tmp_path / "eval") in capsys.readouterr().out and not (tmp_path / "out").exists()


def test_the_index_size_leaves_out_the_models(tmp_path: Path):
    for rel, size in (("index/trove.db", 3 * 2**20), ("index/trove.db-wal", 2**20), ("thumbs/a/b.jpg", 2**19),
                      ("models/minilm/model.onnx", 5 * 2**20)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"x" * size)
    assert scale.size_by_part(tmp_path) == {"index": 4.0, "thumbs": 0.5}
    assert scale.size_mb(tmp_path) == 4.5


def test_a_full_index_stopped_by_its_budget_goes_on_in_the_next_run(sources: Sources, trove, tmp_path: Path):  # noqa: ANN001
    """`--work` keeps the folder (made once) and the state; `--budget-s` stops the full index as a cancel
    does, and the next run indexes the rest, its seconds added to the first run's."""
    disk = scale.kept_disk(sources, tmp_path, 5, seed=4)
    assert scale.kept_disk(sources, tmp_path, 5, seed=4).files == disk.files  # kept, not made again
    state = scale.Resumed.load(tmp_path / "state.json")
    first = scale.resumed_index(trove, disk, state, budget_s=0)
    assert not state.done and first.indexed < 5
    again = scale.Resumed.load(tmp_path / "state.json")
    assert again.runs == 1 and again.seconds == pytest.approx(first.seconds)
    whole = scale.resumed_index(trove, disk, again, budget_s=None)
    assert again.done and again.runs == 2 and whole.indexed == 5 and whole.problems == 0
    assert whole.seconds > first.seconds and whole.items > 0 and again.timings_s
