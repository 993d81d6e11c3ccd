"""The trained router's fitting: a small MLP kept at its best validation epoch, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from engine.routing.training.train import fit, main


def _data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(120, 8)).astype(np.float32)
    y = np.stack([x[:, 0] > 0, x[:, 1] > 0], axis=1).astype(np.float32)  # two labels, each read off one feature
    return x, y


def test_fitting_learns_labels_a_feature_separates():
    x, y = _data(1)
    x_val, y_val = _data(2)
    model, history = fit(x, y, x_val, y_val, hidden=16, epochs=150)
    assert len(history) == 150 and min(h["val_loss"] for h in history) < history[0]["val_loss"] / 2
    accuracy = ((model.probabilities(x_val) > 0.5) == (y_val > 0.5)).mean()
    assert accuracy > 0.85


def test_no_epoch_is_a_clear_error_not_a_type_error(capsys: pytest.CaptureFixture[str]):
    x, y = _data(1)
    with pytest.raises(ValueError, match="no epoch ran"):
        fit(x, y, x, y, hidden=4, epochs=0)
    with pytest.raises(SystemExit):
        main(["--epochs", "0"])
    assert "must be at least 1" in capsys.readouterr().err
