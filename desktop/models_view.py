"""The Models screen: which role has which model, what is missing and what that costs, importing
models from a folder or USB stick (every file hash-checked), and the LLM and threads to use."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.viewers.common import ResultGrid

if TYPE_CHECKING:
    from desktop.workers import Engine
    from engine import Trove

ROLE_NAMES = {"llm": "language model", "text-embedder": "text embedder", "detector": "object detector",
              "face-detector": "face detector", "classifier": "photo classifier", "image-embedder": "photo embedder",
              "ocr": "text reader (OCR)", "vlm": "vision-language model", "image-text-embedder": "text-image model"}
CORE_COSTS = {"llm": "answers and native queries (SQL, Cypher, SPARQL) cannot be written; search still works",
              "text-embedder": "nothing can be indexed or searched"}
LLM_CHOICES = ("default", "fast", "smoke")
IMPORT_ROLES = ["", "vlm", "image-text-embedder", "llm", "detector"]


@dataclass
class ModelsInfo:
    rows: list[list] = field(default_factory=list)  # role, model, tags, size MB, state, licence
    missing: dict[str, str] = field(default_factory=dict)  # role -> what its absence costs
    llms: list[tuple[str, str, bool]] = field(default_factory=list)  # (choice, model name, installed)
    models_dir: str = ""


def read_models(trove: Trove) -> ModelsInfo:  # runs in a worker
    """Every catalog model and its state, the empty roles and their cost, the LLM choices."""
    manager = trove.models.manager
    info = ModelsInfo(models_dir=str(manager.models_dir))
    filled = set()
    for spec in manager.catalog.models:
        states = [manager.status_of(spec, f).state for f in spec.files]
        state = "installed" if all(s in ("installed", "unverified") for s in states) else (
            "corrupt" if "corrupt" in states else "missing")
        filled |= {spec.role} if state == "installed" else set()
        size = sum(f.size or 0 for f in spec.files) / 2**20
        info.rows.append([spec.role, spec.name, ", ".join(spec.tags), round(size, 1), state, spec.licence])
        if spec.role == "llm":
            tag = next((t for t in LLM_CHOICES if t in spec.tags), spec.name)
            info.llms.append((tag, spec.name, state == "installed"))
    for role, what in manager.catalog.roles.items():
        if role not in filled:
            info.missing[role] = CORE_COSTS.get(role, f"nothing does this: {what}")
    info.missing.update(trove.status()["vision_missing"])
    return info


def missing_text(missing: dict[str, str]) -> str:
    """`no text-image model: photos are searched by their labels and text` lines, as HTML."""
    if not missing:
        return "Every role has a model."
    return "<br>".join(f"<b>No {html.escape(ROLE_NAMES.get(role, role))}</b> ({html.escape(role)}): "
                       f"{html.escape(effect)}" for role, effect in sorted(missing.items()))


def current_choice(llm: str) -> str:
    return {"llm": "default", "llm:fast": "fast", "llm:smoke": "smoke"}.get(llm, llm)


class ModelsView(QWidget):
    settings_chosen = Signal(dict)  # {"llm": ..., "threads": ...}
    loaded = Signal(object)  # ModelsInfo

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.info: ModelsInfo | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self._use_box())
        self.grid = ResultGrid()
        self.grid.setAccessibleName("models")
        layout.addWidget(QLabel("<b>Models by role</b>"))
        layout.addWidget(self.grid, 2)
        self.missing = QLabel()
        self.missing.setWordWrap(True)
        self.missing.setAccessibleName("missing models")
        self.missing.setTextFormat(Qt.TextFormat.RichText)
        self.missing.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        missing_box = QGroupBox("What is missing, and what that costs")
        QVBoxLayout(missing_box).addWidget(self.missing)
        layout.addWidget(missing_box, 1)
        layout.addWidget(self._import_box())

    def _use_box(self) -> QGroupBox:
        box = QGroupBox("Use")
        form = QFormLayout(box)
        self.llm = QComboBox()
        self.llm.setAccessibleName("language model")
        self.threads = QSpinBox()
        self.threads.setRange(1, max(1, os.cpu_count() or 1))
        self.threads.setAccessibleName("threads")
        self.threads.setMaximumWidth(90)
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply)
        self.applied = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.apply_button)
        row.addWidget(self.applied, 1)
        form.addRow("Language model for answers", self.llm)
        form.addRow("Threads for models", self.threads)
        form.addRow(row)
        return box

    def _import_box(self) -> QGroupBox:
        box = QGroupBox("Import models from a folder or USB stick")
        layout = QVBoxLayout(box)
        row = QHBoxLayout()
        self.import_role = QComboBox()
        for role in IMPORT_ROLES:
            self.import_role.addItem(f"files not in the catalog become a {ROLE_NAMES.get(role, role)}" if role
                                     else "import only files the catalog knows (by sha256)", role)
        self.import_button = QPushButton("Import from a folder…")
        self.import_button.clicked.connect(self.pick_import)
        row.addWidget(self.import_role, 1)
        row.addWidget(self.import_button)
        self.import_busy = QProgressBar()
        self.import_busy.setRange(0, 0)
        self.import_busy.setMaximumHeight(10)
        self.import_busy.hide()
        self.import_result = QLabel("Every file is checked against its sha256 before it is used.")
        self.import_result.setWordWrap(True)
        layout.addLayout(row)
        layout.addWidget(self.import_busy)
        layout.addWidget(self.import_result)
        return box

    # -- data -------------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.engine.call(read_models, on_done=self._show, on_error=lambda m: self.missing.setText(html.escape(m)))

    def _show(self, info: ModelsInfo) -> None:
        self.info = info
        self.grid.set_rows(["role", "model", "tags", "MB", "state", "licence"], info.rows)
        self.missing.setText(missing_text(info.missing))
        self.llm.clear()
        model = self.llm.model()
        for choice, name, installed in info.llms:
            self.llm.addItem(f"{choice} — {name}" + ("" if installed else " (not installed)"), choice)
            if not installed and isinstance(model, QStandardItemModel):
                model.item(self.llm.count() - 1).setEnabled(False)
        settings = self.engine.settings
        at = self.llm.findData(current_choice(settings.llm))
        self.llm.setCurrentIndex(max(at, 0))
        self.threads.setValue(settings.threads)
        self.loaded.emit(info)

    def apply(self) -> None:
        chosen = {"llm": self.llm.currentData() or "default", "threads": self.threads.value()}
        self.engine.reconfigure(**chosen)
        self.applied.setText(f"Using the {chosen['llm']} language model with {chosen['threads']} thread(s).")
        self.settings_chosen.emit(chosen)

    # -- importing --------------------------------------------------------------------------------
    def pick_import(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder with model files (a USB stick, a share)",
                                                  str(Path.home()))
        if folder:
            self.import_from(Path(folder))

    def import_from(self, folder: Path) -> None:
        """Import the model files in `folder` (hash-checked, in a worker); the engine reloads after."""
        role = self.import_role.currentData() or None
        self.import_busy.show()
        self.import_button.setEnabled(False)
        self.import_result.setText(f"Checking the files in {folder}…")
        self.engine.call(lambda trove: trove.models.manager.import_path(folder, role=role), on_done=self._imported,
                         on_error=self._import_failed)

    def _imported(self, names: list[str]) -> None:
        self._import_end(f"Imported: {', '.join(names)}. Each file matched its sha256.")
        self.engine.reconfigure()
        self.refresh()

    def _import_failed(self, message: str) -> None:
        self._import_end(f"Nothing imported: {message}")

    def _import_end(self, text: str) -> None:
        self.import_busy.hide()
        self.import_button.setEnabled(True)
        self.import_result.setText(text)
