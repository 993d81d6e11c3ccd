"""A photo citation: the photo, upright, with every cited region of it boxed and labelled with its
citation number; zoom (wheel, Ctrl +/-, 0 to fit) and pan (drag)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QImageReader,
    QKeySequence,
    QPainter,
    QPen,
    QPixmap,
    QResizeEvent,
    QShortcut,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene, QGraphicsView, QHBoxLayout, QLabel, QToolButton

from desktop.viewers.common import Viewer
from engine import image_file

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop.workers import Engine
    from engine import AskResult, Citation, PhotoLocator, RegionLocator

COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"]


def read_image(path: str) -> QImage:
    """The photo as Qt shows it, EXIF orientation applied (as the engine's boxes assume); formats Qt
    cannot read go through the engine's own reader."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    image = reader.read()
    if not image.isNull():
        return image
    from engine import photo_pixels

    return qimage(photo_pixels(Path(path)))


def qimage(rgb: np.ndarray) -> QImage:
    """RGB pixels (the engine's photo_pixels, page_picture) as a Qt image of its own."""
    h, w = rgb.shape[:2]
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


@dataclass
class DrawnBox:
    n: int
    label: str
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in the original photo's pixels


def region_label(locator: RegionLocator) -> str:
    """`Chelsea (tabby fur)`, `cat`, `text: “TRAM 28”`: what the region is, as grounding named it."""
    name = locator.get("name") or locator.get("label") or locator.get("kind", "")
    entity = locator.get("entity")
    if entity and entity != name:
        name = f"{entity} ({name})"
    text = locator.get("text")
    return f"{name}: “{text}”" if text and text != name else str(name)


def boxes_for(citation: Citation, result: AskResult | None) -> list[DrawnBox]:
    """The regions of this photo cited anywhere in the answer, each with its citation number."""
    out = []
    for c in result.citations if result is not None else [citation]:
        if image_file(c.source, c.locator) == image_file(citation.source, citation.locator) and "box" in c.locator:
            x1, y1, x2, y2 = (float(v) for v in c.locator["box"])
            out.append(DrawnBox(c.n, region_label(c.locator), (x1, y1, x2, y2)))
    return out


class PhotoView(QGraphicsView):
    """A zoomable, pannable photo with boxes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setAccessibleName("photo")
        self.rect_items: list[QGraphicsRectItem] = []
        self.fitted = True

    def show_photo(self, image: QImage, boxes: list[DrawnBox], scale: tuple[float, float], focus: int,
                   tags: bool = True) -> None:
        """`image` with `boxes` (in the image's pixels times `scale`) drawn, each tagged with its
        number and label unless not `tags`; the box of citation `focus` drawn thicker."""
        scene = self.scene()
        scene.clear()
        self.rect_items = []
        scene.addPixmap(QPixmap.fromImage(image))
        sx, sy = scale
        width = max(2.0, image.width() / 300)
        for i, b in enumerate(boxes):
            colour = QColor(COLOURS[i % len(COLOURS)])
            x1, y1, x2, y2 = b.box
            rect = QRectF(x1 * sx, y1 * sy, (x2 - x1) * sx, (y2 - y1) * sy)
            item = scene.addRect(rect, QPen(colour, width * (1.8 if b.n == focus else 1.0)))
            item.setData(0, b.n)
            self.rect_items.append(item)
            if not tags:
                continue
            tag = scene.addSimpleText(f"[{b.n}] {b.label}")
            font = tag.font()
            font.setPixelSize(max(12, int(image.width() / 45)))
            font.setBold(True)
            tag.setFont(font)
            tag.setBrush(QBrush(QColor("white")))
            bg = scene.addRect(tag.boundingRect().adjusted(-3, -1, 3, 1), QPen(Qt.PenStyle.NoPen), QBrush(colour))
            y = rect.top() - tag.boundingRect().height() - 2
            bg.setPos(rect.left(), y if y > 0 else rect.top())
            tag.setPos(bg.pos())
            tag.setZValue(2)
            bg.setZValue(1)
        scene.setSceneRect(QRectF(image.rect()))
        self.fit()

    def fit(self) -> None:
        self.fitted = True
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def zoom(self, factor: float) -> None:
        self.fitted = False
        self.scale(factor, factor)

    def zoom_level(self) -> float:
        return self.transform().m11()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt's name)
        self.zoom(1.25 if event.angleDelta().y() > 0 else 0.8)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.fitted and self.scene().items():
            self.fit()


class PhotoViewer(Viewer):
    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(engine, parent)
        tools = QHBoxLayout()
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        tools.addWidget(self.legend, 1)
        self.view = PhotoView()
        tools_spec = (("−", "Zoom out (Ctrl+-)", lambda: self.view.zoom(0.8), QKeySequence.StandardKey.ZoomOut),
                      ("+", "Zoom in (Ctrl++)", lambda: self.view.zoom(1.25), QKeySequence.StandardKey.ZoomIn),
                      ("Fit", "Fit the photo (Ctrl+0)", self.view.fit, QKeySequence("Ctrl+0")))
        for text, tip, slot, keys in tools_spec:
            button = QToolButton()
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            tools.addWidget(button)
            QShortcut(keys, self).activated.connect(slot)
        self.layout_.addLayout(tools)
        self.layout_.addWidget(self.view, 1)
        self.drawn: list[DrawnBox] = []
        self.image_size: tuple[int, int] | None = None

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        self.citation = citation
        loc = citation.locator
        self.drawn = boxes_for(citation, result)
        place = (f"box ({', '.join(str(round(v)) for v in loc['box'])}) of {loc.get('width')}×{loc.get('height')}"
                 if "box" in loc else "whole photo")
        self.header.set(citation.n, citation.kind, citation.source, place)
        self.legend.setText("; ".join(f"[{b.n}] {b.label}" for b in self.drawn) or "No region of this photo is cited: "
                            "the answer is about the whole photo.")
        self.load(lambda: read_image(image_file(citation.source, citation.locator)), self._fill, gated=False)

    def _fill(self, image: QImage) -> None:
        citation = self.citation
        assert citation is not None  # set by show_citation, which started this load
        loc = cast("PhotoLocator | RegionLocator", citation.locator)  # shown for photos and regions only
        self.image_size = (image.width(), image.height())
        w, h = loc.get("width") or image.width(), loc.get("height") or image.height()
        self.view.show_photo(image, self.drawn, (image.width() / w, image.height() / h), citation.n)
        self.mark_ready()
