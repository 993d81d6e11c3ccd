"""A clip or video citation: a player that starts at the clip's first second (QtMultimedia, in
PySide6-Addons), or, where QtMultimedia is not installed, a strip of the video's keyframes (the
thumbnails the engine made while indexing) with the cited clip selected and its start shown."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QIcon, QImage, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListView, QListWidget, QListWidgetItem, QPushButton, QWidget

from desktop.viewers.common import Viewer
from engine import clock

if TYPE_CHECKING:
    from PySide6.QtMultimedia import QMediaPlayer

    from desktop.workers import Engine
    from engine import AskResult, Citation, ClipThumb, MomentLocator, Trove


def span_text(start_s: float, end_s: float) -> str:
    """`Starts at 0:06 (6 s), ends at 0:12.`"""
    return f"Starts at {clock(start_s)} ({start_s:g} s), ends at {clock(end_s)}."


def multimedia_available() -> bool:
    try:
        from PySide6 import QtMultimedia, QtMultimediaWidgets  # noqa: F401
    except ImportError:
        return False
    return True


def load_strip(trove: Trove, source: str, locator: MomentLocator) -> list[tuple[ClipThumb, QImage]]:
    """The video's clips with their keyframe images (read here, in the worker)."""
    out = []
    for clip in trove.clips(source, locator):
        image = QImage(clip.thumbnail) if clip.thumbnail and Path(clip.thumbnail).is_file() else QImage()
        out.append((clip, image))
    return out


class VideoViewer(Viewer):
    prefer_player = True  # False: always the keyframe strip (tests, or where playback misbehaves)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(engine, parent)
        self.mode = "player" if self.prefer_player and multimedia_available() else "keyframes"
        self.start_s = 0.0
        self.end_s = 0.0
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setAccessibleName("clip start")
        self.layout_.addWidget(self.info)
        self.body = _Player(self) if self.mode == "player" else _KeyframeStrip(self)
        self.layout_.addWidget(self.body, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        self.open_button = QPushButton("Open video")
        self.open_button.clicked.connect(self.open_file)
        row.addWidget(self.open_button)
        self.layout_.addLayout(row)

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        self.citation = citation
        loc = cast("MomentLocator", citation.locator)  # shown for clips and videos only (viewers.VIEWERS)
        self.start_s, self.end_s = float(loc.get("start_s", 0.0)), float(loc.get("end_s", 0.0))
        kind = "clip" if citation.kind == "clip" else "video"
        self.header.set(citation.n, citation.kind, citation.source,
                        f"{kind} from {clock(self.start_s)} to {clock(self.end_s)}")
        self.info.setText(span_text(self.start_s, self.end_s))
        self.body.show_clip(citation.source, loc)

    def start_second(self) -> float:
        """Where playback starts (player) or the selected keyframe's clip starts (strip)."""
        return self.body.start_second()

    def open_file(self) -> None:
        if self.citation is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.citation.source))


class _KeyframeStrip(QWidget):
    """Keyframes of every clip, left to right; the cited one selected, its keyframe large."""

    def __init__(self, viewer: VideoViewer) -> None:
        super().__init__(viewer)
        from PySide6.QtWidgets import QVBoxLayout

        self.viewer = viewer
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.note = QLabel("QtMultimedia is not installed (it comes with PySide6-Addons), so the video cannot "
                           "play here: these are its keyframes, the cited clip selected.")
        self.note.setWordWrap(True)
        self.preview = QLabel()
        self.preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview.setMinimumHeight(200)
        self.strip = QListWidget()
        self.strip.setAccessibleName("keyframes")
        self.strip.setViewMode(QListView.ViewMode.IconMode)
        self.strip.setFlow(QListView.Flow.LeftToRight)
        self.strip.setWrapping(False)
        self.strip.setIconSize(QSize(160, 90))
        self.strip.setFixedHeight(140)
        self.strip.setMovement(QListView.Movement.Static)
        self.strip.currentItemChanged.connect(self._selected)
        layout.addWidget(self.note)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.strip)

    def show_clip(self, source: str, locator: MomentLocator) -> None:
        self.viewer.load(lambda trove: load_strip(trove, source, locator), self._fill)

    def _fill(self, clips: list) -> None:
        self.strip.clear()
        cited = self.viewer.start_s
        current = None
        for clip, image in clips:
            item = QListWidgetItem(f"{clock(clip.start_s)}–{clock(clip.end_s)}")
            item.setData(Qt.ItemDataRole.UserRole, (clip.start_s, clip.end_s))
            item.setData(Qt.ItemDataRole.UserRole + 1, image)
            if not image.isNull():
                item.setIcon(QIcon(QPixmap.fromImage(image)))
            item.setToolTip(f"clip {clip.index + 1}: {clip.start_s:g}–{clip.end_s:g} s")
            self.strip.addItem(item)
            if current is None or abs(clip.start_s - cited) < abs(self._start(current) - cited):
                current = item
        if current is not None:
            self.strip.setCurrentItem(current)
            self.strip.scrollToItem(current)
        self.viewer.mark_ready()

    @staticmethod
    def _start(item: QListWidgetItem) -> float:
        return item.data(Qt.ItemDataRole.UserRole)[0]

    def _selected(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        image = item.data(Qt.ItemDataRole.UserRole + 1)
        if isinstance(image, QImage) and not image.isNull():
            self.preview.setPixmap(QPixmap.fromImage(image).scaled(
                self.preview.size().expandedTo(QSize(320, 180)), Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation))
        start, end = item.data(Qt.ItemDataRole.UserRole)
        self.viewer.info.setText(span_text(start, end)
                                 + ("" if abs(start - self.viewer.start_s) < 1e-6 else " (not the cited clip)"))

    def start_second(self) -> float:
        item = self.strip.currentItem()
        return self._start(item) if item is not None else self.viewer.start_s

    def selected_index(self) -> int:
        return self.strip.currentRow()


class _Player(QWidget):
    """QtMultimedia playback from the clip's start."""

    def __init__(self, viewer: VideoViewer) -> None:
        super().__init__(viewer)
        from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer
        from PySide6.QtMultimediaWidgets import QVideoWidget
        from PySide6.QtWidgets import QVBoxLayout

        self.viewer = viewer
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.video = QVideoWidget()
        self.player = QMediaPlayer(self)
        self.audio = QAudioOutput(self)
        self.player.setAudioOutput(self.audio)
        self.player.setVideoOutput(self.video)
        self.player.mediaStatusChanged.connect(self._status)
        controls = QHBoxLayout()
        self.play = QPushButton("Play / pause")
        self.play.clicked.connect(self._toggle)
        self.again = QPushButton("Back to the clip's start")
        self.again.clicked.connect(self._seek)
        controls.addWidget(self.play)
        controls.addWidget(self.again)
        controls.addStretch(1)
        layout.addWidget(self.video, 1)
        layout.addLayout(controls)
        self._pending = True

    def show_clip(self, source: str, locator: MomentLocator) -> None:
        self._pending = True
        self.player.setSource(QUrl.fromLocalFile(source))

    def _status(self, status: QMediaPlayer.MediaStatus) -> None:
        from PySide6.QtMultimedia import QMediaPlayer

        if self._pending and status in (QMediaPlayer.MediaStatus.LoadedMedia, QMediaPlayer.MediaStatus.BufferedMedia):
            self._pending = False
            self._seek()
            self.player.play()
            self.viewer.mark_ready()
        elif status == QMediaPlayer.MediaStatus.InvalidMedia:
            self.viewer.failed(self.player.errorString() or "the video cannot be played here")

    def _seek(self) -> None:
        self.player.setPosition(int(self.viewer.start_s * 1000))

    def _toggle(self) -> None:
        from PySide6.QtMultimedia import QMediaPlayer

        if self.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
            self.player.pause()
        else:
            self.player.play()

    def start_second(self) -> float:
        return self.viewer.start_s
