"""Shared fixtures: real models (installed by `make test`), a fresh Trove home per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.settings import Settings, default_home, default_models_dir, load_settings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
MODELS_DIR = default_models_dir(default_home())


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test saying why."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: this test reads the shared evaluation data in place")
    return path


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's own TROVE_* settings, except where models are."""
    for key in list(os.environ):
        if key.startswith("TROVE_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("TROVE_MODELS_DIR", str(MODELS_DIR))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(tmp_path / "home", models_dir=MODELS_DIR, llm="smoke", threads=2)


@pytest.fixture(scope="session")
def embedder():  # noqa: ANN201
    from engine.models import ModelManager
    from engine.runtimes.text_embedder import TextEmbedder

    return TextEmbedder.from_manager(ModelManager(MODELS_DIR), threads=2)


@pytest.fixture(scope="session")
def smoke_llm():  # noqa: ANN201
    from engine.models import ModelManager
    from engine.runtimes.llm import LLM

    return LLM.from_manager(ModelManager(MODELS_DIR), "smoke", n_ctx=2048, threads=2)


@pytest.fixture
def trove(settings: Settings, embedder, smoke_llm):  # noqa: ANN001, ANN201
    """A Trove on a fresh home, sharing the session's loaded models."""
    from engine.pipeline import Trove

    t = Trove(settings)
    t.models.embedder, t.models.llm = embedder, smoke_llm
    yield t
    t.close()
