"""The "Index…" dialog of the Sources screen: this computer's own index (in the Trove home), or one
a team shares on PostgreSQL (the `index_backend` setting) and the password file its login reads."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QWidget,
)

from engine import backend_problem

EXAMPLE_URL = "postgresql://reader@db.office.lan:5432/trove_index"


class IndexDialog(QDialog):
    def __init__(self, backend: str = "", passfile: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Which index")
        form = QFormLayout(self)
        self.own = QRadioButton("This computer's index (in the Trove home)")
        self.shared = QRadioButton("A shared index on PostgreSQL, which one machine indexes and every Trove asks")
        self.url = QLineEdit(backend)
        self.url.setPlaceholderText(EXAMPLE_URL)
        self.passfile = QLineEdit(passfile)
        self.passfile.setPlaceholderText("none: PGPASSWORD or ~/.pgpass")
        choose = QPushButton("Choose…")
        choose.clicked.connect(self.pick_passfile)
        passfile_row = QHBoxLayout()
        passfile_row.addWidget(self.passfile, 1)
        passfile_row.addWidget(choose)
        note = QLabel("No password in the URL: libpq reads it from PGPASSWORD, ~/.pgpass or the password file "
                      "(0600). A login that may only read asks the index and cannot index. The share must be "
                      "mounted at the same path here as on the machine that indexes it.")
        note.setWordWrap(True)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        form.addRow(self.own)
        form.addRow(self.shared)
        form.addRow("URL", self.url)
        form.addRow("Password file", passfile_row)
        form.addRow(note)
        form.addRow(self.problem)
        form.addRow(buttons)
        (self.shared if backend else self.own).setChecked(True)
        for radio in (self.own, self.shared):
            radio.toggled.connect(self._complete)
        self.url.textChanged.connect(self._complete)
        self._complete()

    def chosen(self) -> dict[str, str]:
        """The engine settings the choice comes to (empty: this computer's index)."""
        if self.own.isChecked():
            return {"index_backend": "", "index_passfile": ""}
        return {"index_backend": self.url.text().strip(), "index_passfile": self.passfile.text().strip()}

    def pick_passfile(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "A libpq password file (0600)", str(Path.home()))
        if path:
            self.passfile.setText(path)

    def _complete(self) -> None:
        """OK only for a choice that can work: this computer's, or a PostgreSQL URL without a password."""
        shared = self.shared.isChecked()
        self.url.setEnabled(shared)
        self.passfile.setEnabled(shared)
        self.problem.setText(_problem(self.url.text().strip()) if shared else "")
        self.ok.setEnabled(not self.problem.text())


def _problem(url: str) -> str:
    """Why the URL cannot be the index's, as the index itself would refuse it; "" when it may be."""
    return "Give the index's URL." if not url else backend_problem(url) or ""
