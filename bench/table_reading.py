"""What reading table files in the reader worker costs: every WTQ CSV of ../shared/eval loaded as
ingest loads it (`engine.ingest.tables.load`: decoded, checked and read by DuckDB in a reused
worker process) against the same text loaded in this process (`TableStore.load_csv`), alternately,
in the same run.

    python -m bench.table_reading [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.answers.disk import EVAL


def _in_process(files: list[Path], folder: Path) -> float:
    from engine.ingest.textio import decode_noting
    from local_stores.table_store import TableStore

    store = TableStore(folder / "in-process.duckdb")
    t0 = time.perf_counter()
    for i, path in enumerate(files):
        text, _ = decode_noting(path.read_bytes(), path)
        store.load_csv(f"t{i}", path, text)
    return time.perf_counter() - t0


def _named(name: str) -> Callable[[str | None], str]:
    return lambda _sheet: name


def _in_worker(files: list[Path], folder: Path) -> float:
    from engine.ingest import isolation, tables
    from local_stores.table_store import TableStore

    store = TableStore(folder / "worker.duckdb")
    t0 = time.perf_counter()
    for i, path in enumerate(files):
        tables.load(store, _named(f"t{i}"), path)
    isolation.close_workers()  # as an index run ends
    return time.perf_counter() - t0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table_reading", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    files = sorted((EVAL / "tables" / "wtq" / "csv").glob("*.csv"))
    if not files:
        raise SystemExit(f"{EVAL}: no WTQ tables here; bench.table_reading needs ../shared/eval")
    print(f"{len(files)} CSV files\n\n| round | in this process | in the reader worker | ratio |\n|---|---:|---:|---:|")
    for round_ in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            alone, isolated = _in_process(files, Path(tmp)), _in_worker(files, Path(tmp))
        print(f"| {round_} | {alone:.1f} s, {alone / len(files) * 1000:.0f} ms/file | {isolated:.1f} s, "
              f"{isolated / len(files) * 1000:.0f} ms/file | {isolated / alone:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
