"""An answer shown on a terminal while it is made: the routes as soon as they are chosen, then the
answer's words as the model writes them. The answer Trove returns is the draft checked against the
files (sentences they do not back are dropped, citations renumbered); when it differs from the words
already shown, the draft is erased and the checked answer printed in its place."""

from __future__ import annotations

import shutil
import time
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    from engine.routing.base import Route


class LiveAnswer:
    """`routes` and `token` are the `on_routes` and `on_token` of `Trove.ask`; `settle` says whether
    the answer text still needs printing."""

    def __init__(self, out: TextIO, live: bool | None = None) -> None:
        self.out = out
        self.live = out.isatty() if live is None else live
        self.shown = ""
        self.started = time.perf_counter()
        self.first_token_s: float | None = None

    def routes(self, routes: list[Route]) -> None:
        if self.live:
            chosen = ", ".join(f"{r.label} {r.confidence:.2f}" for r in routes)
            click.echo(click.style(f"  route: {chosen} …", dim=True), file=self.out)

    def token(self, piece: str) -> None:
        if not self.live:
            return
        if self.first_token_s is None:
            self.first_token_s = time.perf_counter() - self.started
        self.shown += piece
        click.echo(piece, nl=False, file=self.out)
        self.out.flush()

    def settle(self, answer: str) -> bool:
        """End the streamed text; True when `answer` must still be printed (nothing was shown, or
        the checked answer differs from the draft, which is then erased)."""
        if not self.shown:
            return True
        if " ".join(self.shown.split()) == " ".join(answer.split()):
            click.echo(file=self.out)
            return False
        self.out.write(f"\r\x1b[{self._rows() - 1}A\x1b[J" if self._rows() > 1 else "\r\x1b[J")
        return True

    def _rows(self) -> int:
        """Terminal rows the streamed text takes."""
        width = max(1, shutil.get_terminal_size().columns)
        return sum(max(1, -(-len(line) // width)) for line in self.shown.split("\n"))
