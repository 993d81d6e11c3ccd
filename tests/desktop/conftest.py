"""The desktop app, offscreen, on a real index of examples/ with real small models.

One window per module indexes examples/ through the Sources screen (as a person would: the "Add
folder…" button, the folder dialog answered with examples/), and the tests ask through the Ask
screen and click citations. Qt runs offscreen; QSettings go to a temporary file."""

from __future__ import annotations

import faulthandler
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QElapsedTimer, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog  # noqa: E402

from engine.settings import load_settings  # noqa: E402
from tests.conftest import EXAMPLES, MODELS_DIR  # noqa: E402

INDEX_TIMEOUT_MS = 240_000
ASK_TIMEOUT_MS = 300_000


def native_llm() -> str:
    """The LLM for questions answered by SQL, Cypher or SPARQL: the fast one when installed (it writes
    these queries well enough and in a third of the time), else the default."""
    from engine.models import ModelManager

    return "fast" if ModelManager(MODELS_DIR).is_installed("llm:fast") else "default"


class StallMeter:
    """The longest gap between ticks of a 10 ms timer: how long the event loop was ever blocked.

    When a tick is `dump_after_s` late, faulthandler's own thread (which needs no GIL) writes every
    thread's stack to `dumps`: what the workers were doing while the window was stuck."""

    def __init__(self, dumps: Path, interval_ms: int = 10, dump_after_s: float = 0.2) -> None:
        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.longest_ms = 0
        self.ticks = 0
        self.dumps = dumps
        self._file = None
        self.dump_after_s = dump_after_s

    def start(self) -> None:
        self._file = self.dumps.open("w")
        self.clock.start()
        self.timer.start()

    def _tick(self) -> None:
        self.longest_ms = max(self.longest_ms, self.clock.restart())
        self.ticks += 1
        faulthandler.dump_traceback_later(self.dump_after_s, file=self._file)  # replaces the previous one

    def stop(self) -> None:
        self.timer.stop()
        faulthandler.cancel_dump_traceback_later()
        self._file.close()

    def where(self) -> str:
        """The stacks written during stalls (the last ones)."""
        return self.dumps.read_text()[-6000:] if self.dumps.exists() else ""


def wait_until(condition: Callable[[], bool], timeout_ms: int, what: str) -> None:
    """Run the event loop until `condition()`; fail saying `what` did not happen."""
    deadline = time.monotonic() + timeout_ms / 1000
    app = QApplication.instance()
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_ms / 1000:.0f} s waiting for {what}")
        app.processEvents()
        time.sleep(0.005)


def make_engine(home: Path, llm: str = "smoke", models_dir: Path = MODELS_DIR, shared: dict | None = None):  # noqa: ANN201
    """An Engine on `home`; models loaded once per session are shared through `shared`."""
    from desktop.workers import Engine
    from engine.pipeline import Trove

    def factory(settings):  # noqa: ANN001, ANN202
        trove = Trove(settings)
        if shared and "embedder" in shared:
            trove.models.embedder = shared["embedder"]
        return trove

    return Engine(load_settings(home, models_dir=models_dir, llm=llm, threads=2), trove_factory=factory)


@pytest.fixture(scope="session")
def qsettings_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("qsettings") / "trove.ini"


def make_window(engine, qsettings_file: Path, **kwargs: object):  # noqa: ANN001, ANN201
    from desktop.app import MainWindow

    window = MainWindow(engine, QSettings(str(qsettings_file), QSettings.Format.IniFormat), watch=False,
                        index_on_start=False, **kwargs)
    window.resize(1280, 800)
    return window


@pytest.fixture(scope="session")
def indexed(qapp, tmp_path_factory: pytest.TempPathFactory, qsettings_file: Path,  # noqa: ANN001
            embedder) -> Iterator[dict]:  # noqa: ANN001
    """A window that indexed examples/ through its Sources screen, with what was measured meanwhile."""
    with pytest.MonkeyPatch.context() as mp:
        for key in [k for k in os.environ if k.startswith("TROVE_")]:
            mp.delenv(key)
        mp.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(EXAMPLES)))
        engine = make_engine(tmp_path_factory.mktemp("home"), shared={"embedder": embedder})
        window = make_window(engine, qsettings_file)
        window.show()
        meter = StallMeter(tmp_path_factory.mktemp("stalls") / "stacks.txt")
        progress: list = []
        window.sources.progressed.connect(progress.append)
        window.tabs.setCurrentWidget(window.sources)
        wait_until(lambda: window.sources.summaries == [] and window.models.info is not None, 60_000, "first load")
        meter.start()
        started = time.monotonic()
        window.sources.add_folder_button.click()
        wait_until(lambda: not window.sources.is_indexing() and window.sources.last_report is not None,
                   INDEX_TIMEOUT_MS, "indexing examples/")
        meter.stop()
        wait_until(lambda: bool(window.sources.summaries) and not window.sources.is_refreshing(), 30_000,
                   "the sources list")
        yield {"window": window, "engine": engine, "meter": meter, "progress": progress,
               "seconds": time.monotonic() - started}
        window.close()


@pytest.fixture
def window(indexed: dict):  # noqa: ANN201
    win = indexed["window"]
    win.tabs.setCurrentWidget(win.ask)
    return win


def in_engine(window, fn):  # noqa: ANN001, ANN201
    """`fn(trove)` run by the app's own engine worker (as the app runs everything); its result."""
    box = {}
    window.engine.call(fn, on_done=lambda r: box.setdefault("r", r), on_error=lambda m: box.setdefault("e", m))
    wait_until(lambda: box, 120_000, "an engine call")
    assert "e" not in box, box.get("e")
    return box["r"]


def ask(qtbot, window, question: str, llm: str | None = None, follow_up: bool = False):  # noqa: ANN001, ANN201
    """Type `question` into the question box and press Enter, as a person does; the AskResult. It
    starts a new conversation unless it is a `follow_up` of the question before."""
    from PySide6.QtCore import Qt

    if llm is not None and window.engine.settings.llm != llm:
        task = window.engine.reconfigure(llm=llm)
        wait_until(lambda: window.engine.settings.llm == llm, 60_000, "the LLM switch")
        del task
    if not follow_up:
        window.ask.new_conversation()
    box = window.ask.question
    box.clear()
    qtbot.keyClicks(box, question)
    with qtbot.waitSignal(window.ask.answered, timeout=ASK_TIMEOUT_MS) as blocker:
        qtbot.keyClick(box, Qt.Key.Key_Return)
    return blocker.args[0]


def click_citation(qtbot, window, n: int):  # noqa: ANN001, ANN201
    """Click citation [n] in the list under the answer; the viewer once it has loaded."""
    from PySide6.QtCore import Qt

    citations = window.ask.citations
    row = next(i for i in range(citations.count()) if citations.item(i).data(Qt.ItemDataRole.UserRole) == n)
    rect = citations.visualItemRect(citations.item(row))
    qtbot.mouseClick(citations.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    viewer = window.ask.viewer
    assert viewer is not None and viewer.citation.n == n
    qtbot.waitUntil(lambda: viewer.ready, timeout=60_000)
    return viewer

