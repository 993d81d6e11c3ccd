"""The "Connect a server…" dialog of the Sources screen: a team's database, SPARQL endpoint or graph
server, named once and then asked like the local sources (`trove connect`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

# kind -> (its name for people, an example URL)
KINDS = {"postgres": ("PostgreSQL database", "postgresql://reader@db.office.lan:5432/records"),
         "sparql": ("SPARQL endpoint", "http://kg.office.lan:7878/query"),
         "cypher": ("Graph server (FalkorDB or Neo4j)", "falkordb://graphs.office.lan:6379/family or bolt://…")}


@dataclass
class Connection:
    """What the dialog asks for: the arguments of `Trove.connect`."""

    name: str
    url: str
    kind: str
    options: dict = field(default_factory=dict)
    allow_writable: bool = False


class ConnectDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect a server")
        form = QFormLayout(self)
        self.name = QLineEdit()
        self.name.setPlaceholderText("records")
        self.kind = QComboBox()
        for kind, (label, _) in KINDS.items():
            self.kind.addItem(label, kind)
        self.url = QLineEdit()
        self.schemas = QLineEdit()
        self.schemas.setPlaceholderText("public")
        self.writable = QCheckBox("Connect even if this login could change the data (not advised)")
        note = QLabel("No password in the URL: PostgreSQL reads it from PGPASSWORD or ~/.pgpass, FalkorDB from "
                      "FALKORDB_PASSWORD, Neo4j from NEO4J_PASSWORD. Queries run read-only on the server.")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        for label, widget in (("Name", self.name), ("Kind", self.kind), ("URL", self.url),
                              ("Schemas", self.schemas)):
            form.addRow(label, widget)
        form.addRow(self.writable)
        form.addRow(note)
        form.addRow(buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        for box in (self.name, self.url):
            box.textChanged.connect(self._complete)
        self._kind_changed()

    def connection(self) -> Connection:
        kind = self.kind.currentData()
        schemas = [s.strip() for s in self.schemas.text().split(",") if s.strip()] if kind == "postgres" else []
        return Connection(self.name.text().strip(), self.url.text().strip(), kind,
                          {"schemas": schemas} if schemas else {}, self.writable.isChecked())

    def _kind_changed(self) -> None:
        kind = self.kind.currentData()
        self.url.setPlaceholderText(KINDS[kind][1])
        self.schemas.setEnabled(kind == "postgres")
        self.writable.setEnabled(kind == "postgres")
        self._complete()

    def _complete(self) -> None:
        self.ok.setEnabled(bool(self.name.text().strip() and self.url.text().strip()))
