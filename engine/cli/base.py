"""What every `trove` command shares: the command group, the --home option, opening a Trove, and
printing an answer with its citations."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.errors import TroveError
from engine.result import LANGUAGES, citation_place

if TYPE_CHECKING:
    from engine import AskResult, Settings, Trove
    from engine.conversations import Conversation

HOME_OPTION = click.option("--home", type=click.Path(path_type=Path), default=None,
                           help="Trove home folder (default: $TROVE_HOME or the XDG data folder).")


def settings_for(home: Path | None, **settings: object) -> Settings:
    """The settings of `home`; a --home that is not a folder is a one-line error, not a traceback."""
    from engine.settings import load_settings

    if home is not None and home.exists() and not home.is_dir():
        raise TroveError(f"{home}: not a folder (--home must be a Trove home folder)")
    return load_settings(home, **settings)


def open_trove(home: Path | None, **settings: object) -> Trove:
    from engine.pipeline import Trove

    return Trove(settings_for(home, **settings))


def said(text: str, what: str = "question") -> str:
    """`text` when it has words; an empty or blank question (or query) is a one-line error."""
    if not text.strip():
        raise TroveError(f"the {what} is empty")
    return text


def echo_json(obj: object) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


@click.group()
@click.version_option(package_name="trove")
def cli() -> None:
    """Trove: ask questions over everything on your own disk, with cited answers. Offline."""


_STAGES = {"first_token": "first words"}


def print_answer(result: AskResult, answer_shown: bool = False) -> None:
    """The answer (unless `answer_shown` as it was written), its citations, routes and timings."""
    for notice in result.notices:
        click.echo(click.style(f"({notice})", dim=True))
    if result.asked_as:
        click.echo(click.style(f"(asked as: {result.asked_as})", dim=True))
    if not answer_shown:
        click.echo(result.answer)
    for c in result.citations:
        snippet = " ".join(c.text.split())
        if "query" in c.locator:
            where = citation_place(c.source, c.locator)
            shown = c.locator.get("result") or snippet.split(":", 1)[-1].strip()
            language = LANGUAGES[c.locator["language"]]
            click.echo(f"  [{c.n}] {where}\n      {language}: {' '.join(c.locator['query'].split())}\n"
                       f"      result: {shown[:200]}")
            continue
        shown = snippet[:140] + ("…" if len(snippet) > 140 else "")
        click.echo(f"  [{c.n}] {citation_place(c.source, c.locator)}: {shown}")
    if result.unsupported:
        click.echo(f"  (not backed by a citation: {len(result.unsupported)} sentence(s))")
    if result.dropped:
        click.echo(f"  (left out, the files do not back it: {len(result.dropped)} sentence(s); --json shows them)")
    routes = ", ".join(f"{r['label']} {r['confidence']:.2f}" for r in result.routes)
    stages = ", ".join(f"{_STAGES.get(k, k)} {v / 1000:.1f}s" for k, v in result.timings_ms.items())
    click.echo(click.style(f"  route: {routes} | {stages}", dim=True))


def ask_live(trove: Trove, question: str, image: Path | None = None,
             conversation: Conversation | None = None) -> AskResult:
    """Ask, showing the routes and the answer's words as they come (on a terminal)."""
    from engine.terminal import LiveAnswer

    live = LiveAnswer(sys.stdout)
    result = trove.ask(question, image=image, on_token=live.token, on_routes=live.routes, conversation=conversation)
    print_answer(result, answer_shown=not live.settle(result.answer))
    return result


def continued(trove: Trove, conversation_id: int | None, follow_up: bool, title: str) -> Conversation:
    """The conversation a question goes into: `conversation_id`'s, the last one (`follow_up`), or a
    new one titled `title`."""
    if conversation_id is not None:
        return trove.conversation(conversation_id)
    if follow_up:
        latest = trove.conversations.latest()
        if latest is None:
            raise TroveError("there is no conversation to follow up yet: ask a question first")
        return latest
    return trove.conversation(title=title)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except TroveError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)

