"""One index run per Trove home: a second `trove index` stops at once, saying who runs (real
processes, a real flock on the home's lock file)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.errors import TroveError
from engine.ingest.indexer import LOCK_FILE, index_lock
from engine.pipeline import Trove
from engine.settings import Settings
from tests.conftest import MODELS_DIR, ROOT

HOLD = "import sys, time; from pathlib import Path; from engine.ingest.indexer import index_lock\n" \
       "with index_lock(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(600)\n"


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROVE_")}
    env.update(TROVE_HOME=str(home), TROVE_MODELS_DIR=str(MODELS_DIR), TROVE_THREADS="2")
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe spare key is with Femke next door.\n")
    return folder


def test_a_second_trove_index_on_a_held_home_fails_at_once(tmp_path: Path, notes: Path):
    home = tmp_path / "home"
    with index_lock(home):
        t0 = time.monotonic()
        proc = _cli("index", str(notes), home=home)
        assert time.monotonic() - t0 < 60  # it did not wait for the lock
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"error: another trove index is running on {home} (pid {os.getpid()})"]
    assert "1 indexed" in _cli("index", str(notes), home=home).stdout  # once it is free, a run goes ahead


def test_a_held_lock_refuses_a_run_in_this_process_too(settings: Settings, notes: Path, embedder):  # noqa: ANN001
    trove = Trove(settings)
    trove.models.embedder = embedder
    try:
        with index_lock(settings.home), pytest.raises(TroveError, match="another trove index is running"):
            trove.index([notes])
        assert trove.catalog.roots() == []  # refused before anything was written
        assert trove.index([notes]).indexed == 1
    finally:
        trove.close()


def test_the_lock_goes_with_a_killed_holder(tmp_path: Path, notes: Path):
    home = tmp_path / "home"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(home)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = _cli("index", str(notes), home=home)
        assert refused.returncode == 2 and f"(pid {holder.pid})" in refused.stderr
        assert (home / LOCK_FILE).read_text() == str(holder.pid)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    done = _cli("index", str(notes), home=home)
    assert done.returncode == 0 and "1 indexed" in done.stdout
