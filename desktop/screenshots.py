"""Screenshots of the app for the README: `python -m desktop.screenshots [--out docs/screenshots]`.

Offscreen, on a fresh temporary home: adds examples/ on the Sources screen (one picture while it
indexes, one after), asks one question of each kind and clicks its citation (one picture per viewer),
a scoped conversation with a follow-up (its thread and scope chips), then the Models screen. Uses
the default LLM unless `--llm` says otherwise; `--only conversation` takes the conversation alone."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from PySide6.QtGui import QPixmap
    from PySide6.QtWidgets import QWidget

    from desktop.app import MainWindow
    from engine import AskResult

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [  # (file name, question, the citation kind to click)
    ("viewer-document", "How much is the excess on a theft claim under my bike insurance?", "paragraph"),
    ("viewer-table", "How much did I spend on groceries in March 2024?", "table"),
    ("viewer-graph", "Who are the grandchildren of Astrid Lindqvist?", "graph"),
    ("viewer-rdf", "Which books in my library were written by Ursula K. Le Guin?", "rdf"),
    ("no-answer", "What is the Wi-Fi password at the Lisbon hotel?", ""),
    ("viewer-video", "When in the Lisbon video do we ride up to the castle?", "clip"),
    ("viewer-photo", "Is Chelsea in the window photo?", "region"),  # last: shown again in the dark theme
]
CONVERSATION = ("finance", ["How much did I spend on groceries in March 2024?", "and in April?"])  # scope, turns


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        QApplication.processEvents()
        time.sleep(0.01)


def ask(window: MainWindow, question: str, timeout_s: float = 900, follow_up: bool = False) -> AskResult:
    """The answer to `question`, typed in a new conversation unless it is a `follow_up`."""
    if not follow_up:
        window.ask.new_conversation()
    got: list[AskResult] = []
    window.ask.answered.connect(got.append)
    window.ask.question.setText(question)
    window.ask.question.returnPressed.emit()
    wait_until(lambda: bool(got), timeout_s, f"an answer to {question!r}")
    window.ask.answered.disconnect(got.append)
    return got[0]


def show_cited(window: MainWindow, n: int, what: str) -> None:
    """Open citation [n] of the answer shown and wait until its viewer has loaded."""
    viewer = window.ask.show_citation(n)
    assert viewer is not None  # n is one of the answer's citations
    wait_until(lambda: viewer.ready, 120, what)


def save(widget: QWidget | QPixmap, out: Path, name: str) -> None:  # a QPixmap: grabbed already
    from PySide6.QtGui import QPixmap

    path = out / f"{name}.png"
    (widget if isinstance(widget, QPixmap) else widget.grab()).save(str(path))
    print(f"wrote {path}")


def conversation(window: MainWindow, out: Path, examples: Path) -> None:
    """A conversation kept to one folder: its first question, a follow-up, the thread above them."""
    folder, questions = CONVERSATION
    window.tabs.setCurrentWidget(window.ask)
    window.ask.new_conversation()
    window.ask.scope_bar.add(paths=(str(examples / folder),))
    result = [ask(window, question, follow_up=n > 0) for n, question in enumerate(questions)][-1]
    if result.citations:
        show_cited(window, result.citations[0].n, "the cited rows")
    save(window, out, "conversation")
    window.ask.scope_bar.set_scope(None, announce=True)


def run(out: Path, llm: str, examples: Path, only: str = "") -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from desktop import theme
    from desktop.app import MainWindow
    from desktop.workers import Engine
    from engine import load_settings

    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))  # as in desktop.app.main
    theme.apply(app, dark=False)
    tmp = Path(tempfile.mkdtemp(prefix="trove-shots-"))
    engine = Engine(load_settings(tmp / "home", llm=llm))
    window = MainWindow(engine, QSettings(str(tmp / "app.ini"), QSettings.Format.IniFormat), watch=False,
                        index_on_start=False)
    window.resize(1280, 800)
    window.show()
    out.mkdir(parents=True, exist_ok=True)
    if only == "conversation":
        window.sources.index([examples])
        wait_until(lambda: window.sources.last_report is not None and not window.sources.is_indexing(), 600,
                   "indexing")
        conversation(window, out, examples)
        window.close()
        return
    window.tabs.setCurrentWidget(window.sources)
    shot: dict = {}
    window.sources.refreshed.connect(lambda summaries: shot.setdefault("indexing", window.grab())
                                     if summaries and window.sources.is_indexing() else None)
    window.sources.index([examples])
    wait_until(lambda: window.sources.last_report is not None and not window.sources.is_indexing(), 600, "indexing")
    wait_until(lambda: bool(window.sources.summaries), 60, "the sources list")
    if "indexing" in shot:
        save(shot["indexing"], out, "sources-indexing")
    window.sources.tree.expandAll()
    save(window, out, "sources")
    window.tabs.setCurrentWidget(window.ask)
    window.ask.timings_button.setChecked(True)
    for name, question, kind in QUESTIONS:
        result = ask(window, question)
        cited = [c for c in result.citations if c.kind == kind]
        if cited:
            show_cited(window, cited[0].n, f"the {kind} viewer")
        elif kind:
            print(f"warning: no {kind} citation for {question!r}: {result.answer!r}")
        save(window, out, name)
    conversation(window, out, examples)
    window.tabs.setCurrentWidget(window.models)
    wait_until(lambda: window.models.info is not None, 60, "the models")
    save(window, out, "models")
    theme.apply(app, dark=True)
    window.tabs.setCurrentWidget(window.ask)
    if window.ask.result is not None and window.ask.result.citations:
        window.ask.viewer = None  # draw the viewer again, in the dark palette
        show_cited(window, window.ask.result.citations[0].n, "the viewer, dark")
    save(window, out, "dark")
    window.close()


def main() -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--examples", type=Path, default=ROOT / "examples")
    parser.add_argument("--only", choices=["conversation"], default="")
    args = parser.parse_args()
    run(args.out, args.llm, args.examples, args.only)


if __name__ == "__main__":
    main()
