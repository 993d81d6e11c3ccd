"""The Sources screen's Index dialog: this computer's index, or a shared one on a real PostgreSQL
(pgserver) that another home indexed; the choice is checked before OK, the engine reopens on it,
and the app remembers it over settings.toml."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from desktop.app import engine_overrides
from desktop.index_dialog import IndexDialog
from desktop.sources_view import SourcesView
from engine.pipeline import Trove
from engine.settings import load_settings
from tests.conftest import MODELS_DIR
from tests.desktop.conftest import make_engine, wait_until
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)


def _filled(backend: str) -> IndexDialog:
    dialog = IndexDialog(backend)
    dialog.exec = lambda: 1  # type: ignore[method-assign]  # as if OK were clicked
    return dialog


def test_only_a_choice_that_can_work_is_accepted(qtbot):  # noqa: ANN001
    dialog = IndexDialog()
    qtbot.addWidget(dialog)
    assert dialog.own.isChecked() and dialog.ok.isEnabled() and not dialog.url.isEnabled()
    dialog.shared.setChecked(True)
    assert not dialog.ok.isEnabled() and "Give the index's URL" in dialog.problem.text()
    dialog.url.setText("postgresql://reader:secret@db.office.lan/trove_index")
    assert not dialog.ok.isEnabled() and "the URL holds a password" in dialog.problem.text()
    dialog.url.setText("mysql://reader@db.office.lan/trove_index")
    assert not dialog.ok.isEnabled() and "not a PostgreSQL URL" in dialog.problem.text()
    dialog.url.setText("postgresql://reader@db.office.lan/trove_index")
    assert dialog.ok.isEnabled() and dialog.chosen() == {
        "index_backend": "postgresql://reader@db.office.lan/trove_index", "index_passfile": ""}


def test_the_sources_screen_moves_to_a_shared_index_and_back(qtbot, tmp_path: Path, postgres: PostgresServer,  # noqa: ANN001, F811
                                                             embedder):  # noqa: ANN001
    share = tmp_path / "share"
    share.mkdir()
    (share / "boiler.md").write_text("# Boiler\n\nServiced on 12 March 2025 by Henk Verhoeven.\n", encoding="utf-8")
    url = postgres.empty_database("app_index")
    office = Trove(load_settings(tmp_path / "office", models_dir=MODELS_DIR, llm="smoke", index_backend=url))
    office.models.embedder = embedder
    office.index([share])
    office.close()
    view = SourcesView(make_engine(tmp_path / "laptop", shared={"embedder": embedder}), watch=False)
    qtbot.addWidget(view)
    chosen: list[dict] = []
    view.index_chosen.connect(chosen.append)
    view.pick_index(_filled(url))
    wait_until(lambda: [s.path for s in view.summaries] == [str(share)], 30_000, "the shared index's folder listed")
    assert f"Shared index: {url}" in view.summary.text() and chosen[-1]["index_backend"] == url
    view.pick_index(_filled(""))  # this computer's own again: nothing indexed here
    wait_until(lambda: view.summaries == [] and "No sources yet" in view.summary.text(), 30_000, "back home")
    assert chosen[-1] == {"index_backend": "", "index_passfile": ""}


def test_the_index_chosen_in_the_app_wins_over_settings_toml(tmp_path: Path):
    qsettings = QSettings(str(tmp_path / "app.ini"), QSettings.Format.IniFormat)
    assert "index_backend" not in engine_overrides(qsettings)  # never chosen: settings.toml and TROVE_* decide
    qsettings.setValue("engine/index_backend", "")
    qsettings.setValue("engine/index_passfile", "")
    assert engine_overrides(qsettings)["index_backend"] == ""  # this computer's, chosen in the app
    qsettings.setValue("engine/index_backend", "postgresql://reader@db/trove_index")
    assert engine_overrides(qsettings)["index_backend"] == "postgresql://reader@db/trove_index"
