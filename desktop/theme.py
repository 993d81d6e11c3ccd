"""Light or dark, as the system is: Fusion with a palette that follows the system colour scheme
(and changes with it while the app runs)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory


def system_is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def dark_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#202124", QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#17181a", QPalette.ColorRole.AlternateBase: "#2a2b2e",
        QPalette.ColorRole.Text: "#e8eaed", QPalette.ColorRole.Button: "#2d2e31",
        QPalette.ColorRole.ButtonText: "#e8eaed", QPalette.ColorRole.Highlight: "#3d6fb4",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#2d2e31",
        QPalette.ColorRole.ToolTipText: "#e8eaed", QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6", QPalette.ColorRole.Mid: "#5f6368",
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7f8389"))
    return p


def apply(app: QApplication, dark: bool | None = None) -> bool:
    """Fusion, dark or light (the system's choice unless `dark` is given); returns whether dark."""
    app.setStyle(QStyleFactory.create("Fusion"))
    dark = system_is_dark() if dark is None else dark
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
    return dark


def follow_system(app: QApplication) -> None:
    """Apply now and again whenever the system switches between light and dark."""
    apply(app)
    QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _scheme: apply(app))
