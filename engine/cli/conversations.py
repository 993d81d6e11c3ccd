"""`trove chat` (questions and follow-ups in one loop, streamed) and `trove conversations`
(list, show, rename, export, delete the conversations kept in the home)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import click

from engine import shapes
from engine.cli.base import HOME_OPTION, ask_live, cli, echo_json, open_trove, scope_of, scope_options
from engine.errors import TroveError

CHAT_HELP = "Type a question; follow-ups refer to the answers before. /new starts over, /quit (or Ctrl+D) ends."
HISTORY_LINES = 1000


@cli.command()
@click.option("--conversation", "conversation_id", type=int, default=None, help="Continue conversation ID.")
@click.option("--llm", default=None, help="default | fast | smoke | a model name from `trove models list`.")
@scope_options()
@HOME_OPTION
def chat(conversation_id: int | None, llm: str | None, in_paths: tuple[Path, ...], sources: tuple[str, ...],
         kinds: tuple[str, ...], since: str | None, until: str | None, home: Path | None) -> None:
    """Ask questions and follow-ups in one conversation, answers streamed with their citations; a
    scope (--in, --source, --kind, --since, --until) keeps every conversation of it inside part of
    the disk."""
    trove = open_trove(home, llm=llm)
    scope = scope_of(in_paths, sources, kinds, since, until)
    trove.within(scope)  # a scope that holds nothing is said before anything is asked
    history = _line_history(trove.settings.home / "chat_history")
    conversation = trove.conversation(conversation_id) if conversation_id is not None else None
    click.echo(click.style(CHAT_HELP, dim=True))
    while (question := _read()) is not None:
        if question in ("/quit", "/exit"):
            break
        if question == "/new":
            conversation = None
            click.echo(click.style("(a new conversation)", dim=True))
            continue
        if not question:
            continue
        try:
            conversation = conversation or trove.conversation(title=question, scope=scope)
            ask_live(trove, question, conversation=conversation)
        except (TroveError, ValueError) as exc:
            click.echo(f"error: {exc}", err=True)
        click.echo()
    _save_history(history)


def _read() -> str | None:
    try:
        return " ".join(input("? ").split())
    except EOFError:
        click.echo()
        return None


def _line_history(path: Path) -> Path | None:
    """Up-arrow history of earlier questions (readline, where the terminal has it), from `path`."""
    try:
        import readline
    except ImportError:  # pragma: no cover - not on every platform
        return None
    if path.is_file():
        with contextlib.suppress(OSError):
            readline.read_history_file(path)
    return path


def _save_history(path: Path | None) -> None:
    if path is None:
        return
    import readline

    readline.set_history_length(HISTORY_LINES)
    with contextlib.suppress(OSError):  # a read-only home: the history is not kept (nor is the conversation)
        readline.write_history_file(path)


@cli.group()
def conversations() -> None:
    """List, show, rename, export and delete the conversations kept in the home."""


@conversations.command("list")
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def list_(home: Path | None, as_json: bool) -> None:
    """Every conversation, the latest first."""
    found = open_trove(home).conversations.summaries()
    if as_json:
        echo_json(shapes.summaries(found))
        return
    if not found:
        click.echo("no conversations yet (trove ask or trove chat start one)")
    for c in found:
        click.echo(f"{c.id:5}  {_when(c.updated)}  {c.turns:3} turn(s)  {c.title}")


@conversations.command()
@click.argument("conversation_id", type=int)
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def show(conversation_id: int, home: Path | None, as_json: bool) -> None:
    """Every turn of conversation CONVERSATION_ID, with its citations."""
    from engine.cli.base import print_answer

    trove = open_trove(home)
    conversation = trove.conversation(conversation_id)
    if as_json:
        echo_json(shapes.conversation(trove, conversation))
        return
    click.echo(click.style(f"{conversation.id}: {conversation.title}", bold=True))
    for turn in conversation.turns:
        click.echo(click.style(f"\n? {turn.question}", bold=True))
        print_answer(turn.result)
        for path, state in sorted(trove.changed_since(turn).items()):
            click.echo(click.style(f"  ({Path(path).name} {state} since this answer)", fg="yellow"))


@conversations.command()
@click.argument("conversation_id", type=int)
@click.argument("title")
@HOME_OPTION
def rename(conversation_id: int, title: str, home: Path | None) -> None:
    """Give conversation CONVERSATION_ID the title TITLE."""
    open_trove(home).conversations.rename(conversation_id, title)
    click.echo(f"renamed conversation {conversation_id}")


@conversations.command()
@click.argument("conversation_id", type=int)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="A Markdown file (or a folder) to write; the terminal when not given.")
@HOME_OPTION
def export(conversation_id: int, out: Path | None, home: Path | None) -> None:
    """Conversation CONVERSATION_ID as Markdown, with its citations (file, page, query, box, seconds)."""
    from engine.conversations.export import markdown, write_markdown

    trove = open_trove(home)
    conversation = trove.conversation(conversation_id)
    if out is None:
        click.echo(markdown(conversation, trove.changed_since), nl=False)
        return
    click.echo(f"wrote {write_markdown(conversation, out, trove.changed_since)}")


@conversations.command()
@click.argument("conversation_id", type=int)
@HOME_OPTION
def delete(conversation_id: int, home: Path | None) -> None:
    """Delete conversation CONVERSATION_ID and its turns."""
    open_trove(home).conversations.delete(conversation_id)
    click.echo(f"deleted conversation {conversation_id}")


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))
