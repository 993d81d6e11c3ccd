"""What every `trove` command shares: the command group, the --home option, opening a Trove, and
printing an answer with its citations."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.errors import REPORTED, TroveError
from engine.result import LANGUAGES, AskResult, citation_place

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine import Settings, Trove
    from engine.conversations import Conversation
    from engine.scope import Scope
    from engine.service.client import Client

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


def scope_options(files_only: bool = False) -> Callable[[Callable], Callable]:
    """--in, --source, --kind, --since, --until: the part of the disk a question stays inside
    (`files_only`: --in, --since and --until, for a search of one kind of item)."""
    from engine.scope import KINDS

    options = [click.option("--in", "in_paths", multiple=True, type=click.Path(path_type=Path),
                            help="Only files in this folder (or this file); repeat for several.")]
    if not files_only:
        options += [click.option("--source", "sources", multiple=True,
                                 help="Only this table, database, graph or RDF source (trove status); repeatable."),
                    click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS),
                                 help="Only this kind of item; repeatable.")]
    options += [click.option("--since", default=None, help="Only files modified (photos taken) on or after this date."),
                click.option("--until", default=None, help="Only files modified (photos taken) on or before it.")]

    def decorate(command: Callable) -> Callable:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def scope_of(in_paths: tuple[Path, ...], sources: tuple[str, ...] = (), kinds: tuple[str, ...] = (),
             since: str | None = None, until: str | None = None) -> Scope | None:
    """The scope the options give (None when they give none)."""
    from engine.scope import Scope

    scope = Scope(tuple(str(p) for p in in_paths), sources, kinds, since, until)
    return None if scope.empty else scope


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
             conversation: Conversation | None = None, scope: Scope | None = None) -> AskResult:
    """Ask, showing the routes and the answer's words as they come (on a terminal)."""
    from engine.terminal import LiveAnswer

    live = LiveAnswer(sys.stdout)
    result = trove.ask(question, image=image, on_token=live.token, on_routes=live.routes, conversation=conversation,
                       scope=scope)
    print_answer(result, answer_shown=not live.settle(result.answer))
    return result


def served(home: Path | None) -> Client | None:
    """A client of the `trove serve` running for `home`, when there is one (the CLI then asks it
    instead of loading the models)."""
    from engine.service.client import connect

    return connect(settings_for(home).home)


def ask_served(client: Client, body: dict, as_json: bool) -> bool:
    """Ask through the server, as `ask_live` does here (as_json: print the `ask` object); False when
    the server did not answer (the caller then asks here)."""
    from engine.routing.base import Route
    from engine.service.client import Unreachable, ask
    from engine.terminal import LiveAnswer

    live = LiveAnswer(sys.stdout, live=False if as_json else None)
    try:
        data = ask(client, body, lambda routes: live.routes([Route(r["label"], r["confidence"], r.get("router", ""))
                                                             for r in routes]), live.token)
    except Unreachable:
        return False
    if as_json:
        echo_json(data)
        return True
    result = AskResult.from_dict(data)
    print_answer(result, answer_shown=not live.settle(result.answer))
    return True


def main() -> None:
    try:
        cli(standalone_mode=True)
    except REPORTED as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)

