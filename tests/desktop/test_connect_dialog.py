"""The Sources screen connects a team's server (a real PostgreSQL from pgserver) through its dialog,
lists it with what it holds, shows a refused login as an error, and forgets it on Remove."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.connect_dialog import ConnectDialog
from desktop.sources_view import SourcesView
from tests.desktop.conftest import make_engine, wait_until
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)


@pytest.fixture(scope="module")
def records(postgres: PostgresServer) -> PostgresServer:  # noqa: F811
    return postgres.database("records", "CREATE TABLE visits (person TEXT, city TEXT)",
                             "INSERT INTO visits VALUES ('Ada', 'Oslo'), ('Bo', 'Lund')")


def _filled(url: str, name: str = "records") -> ConnectDialog:
    dialog = ConnectDialog()
    dialog.name.setText(name)
    dialog.kind.setCurrentIndex(dialog.kind.findData("postgres"))
    dialog.url.setText(url)
    dialog.exec = lambda: 1  # type: ignore[method-assign]  # as if OK were clicked
    return dialog


def test_a_server_is_connected_listed_and_removed_from_the_sources_screen(qtbot, tmp_path: Path,  # noqa: ANN001
                                                                           records: PostgresServer):
    view = SourcesView(make_engine(tmp_path / "home"), watch=False)
    qtbot.addWidget(view)
    empty = ConnectDialog()
    assert not empty.ok.isEnabled()  # no name, no URL yet
    view.pick_server(_filled(records.url("postgres", "records")))
    wait_until(lambda: "refused: this login could change the data" in view.summary.text(), 30_000,
               "the superuser refused")
    assert view.connect_button.isEnabled()
    view.pick_server(_filled(records.url("reader", "records")))
    wait_until(lambda: bool(view.connections) and not view.is_refreshing(), 30_000, "the connection listed")
    item = view.tree.topLevelItem(0)
    assert item.text(0).startswith("records — postgresql://reader@") and item.text(2) == "visits (2)"
    assert "1 connected server" in view.summary.text()
    view.tree.setCurrentItem(item)
    assert view.remove_button.isEnabled()
    qtbot.mouseClick(view.remove_button, Qt.MouseButton.LeftButton)
    wait_until(lambda: view.connections == [] and view.tree.topLevelItemCount() == 0, 30_000, "the server forgotten")
