"""The PySide6 build in use keeps Python's objects intact (PySide6-Essentials 6.12.0 on Python 3.11
took a reference from None on every void call until the interpreter aborted)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_void_methods_leave_nones_reference_count_alone(qtbot):  # noqa: ANN001
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for i in range(2000):
        label.setText(str(i))
        label.adjustSize()
    assert sys.getrefcount(None) >= before - 50  # the bug took 4,000 here
