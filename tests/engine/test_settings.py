"""Where settings put things: one models folder per user, whatever the home."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.settings import load_settings


@pytest.fixture
def user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with no TROVE_MODELS_DIR, whose XDG data folder is under tmp_path."""
    monkeypatch.delenv("TROVE_MODELS_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def test_every_home_of_a_user_shares_one_models_folder(tmp_path: Path, user_data: Path):
    first, second = load_settings(tmp_path / "work"), load_settings(tmp_path / "field")
    assert first.models_folder == second.models_folder == user_data / "trove" / "models"


def test_a_home_with_models_installed_in_it_keeps_them(tmp_path: Path, user_data: Path):
    (tmp_path / "old" / "models" / "all-minilm-l6-v2-int8").mkdir(parents=True)
    assert load_settings(tmp_path / "old").models_folder == tmp_path / "old" / "models"
    (tmp_path / "empty" / "models").mkdir(parents=True)  # a folder with no model in it is not an install
    assert load_settings(tmp_path / "empty").models_folder == user_data / "trove" / "models"


def test_the_models_folder_named_in_the_environment_or_the_settings_wins(tmp_path: Path, user_data: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "old" / "models" / "all-minilm-l6-v2-int8").mkdir(parents=True)
    monkeypatch.setenv("TROVE_MODELS_DIR", str(tmp_path / "mine"))
    assert load_settings(tmp_path / "old").models_folder == tmp_path / "mine"
    (tmp_path / "old" / "settings.toml").write_text(f'models_dir = "{tmp_path / "chosen"}"\n')
    assert load_settings(tmp_path / "old").models_folder == tmp_path / "chosen"
