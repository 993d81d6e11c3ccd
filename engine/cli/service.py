"""`trove serve`: one process that keeps the models warm and serves the engine's API over HTTP, for
the other programs on this machine (and the CLI, which uses it when it runs for the same home)."""

from __future__ import annotations

from pathlib import Path

import click

from engine.cli.base import HOME_OPTION, cli, settings_for


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; any but a loopback one needs a token on every request.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0: any free port.")
@HOME_OPTION
@click.option("--llm", default=None, help="default | fast | smoke | a model name from `trove models list`.")
@click.option("--allow-origin", "origins", multiple=True,
              help="Let web pages from this origin call the API (CORS; off unless given). Repeatable.")
@click.option("--wait-limit", type=click.FloatRange(min=1), default=120.0, show_default=True,
              help="Seconds a request waits for its turn at the engine before a 503.")
@click.option("--answer-limit", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Seconds an answer may take once its turn came, before a 504.")
@click.option("--log-text", is_flag=True, help="Also log the questions asked (never logged otherwise).")
@click.option("--cold", is_flag=True, help="Load the models at the first question, not at start.")
def serve(host: str, port: int, home: Path | None, llm: str | None, origins: tuple[str, ...], wait_limit: float,
          answer_limit: float, log_text: bool, cold: bool) -> None:
    """Serve Trove over HTTP on HOST:PORT (see /openapi.json): ask, search, route, status, index jobs,
    conversations, and an OpenAI-compatible /v1/chat/completions. Stops on Ctrl+C."""
    from engine import Gate, Trove
    from engine.service.app import Service, build
    from engine.service.calls import Engine, Limits
    from engine.service.server import announced, bind, run, token_for

    settings = settings_for(home, llm=llm)
    token, token_from = token_for(settings.home, host)
    sock = bind(host, port)
    trove = Trove(settings)
    try:
        if not cold:
            click.echo("loading the models…", err=True)
            trove.models.embedder.embed_one("warm")
            _ = trove.models.llm
        engine = Engine(trove, Gate(), Limits(wait_s=wait_limit, answer_s=answer_limit))
        app = build(Service(engine, log_text), token, origins)
        with announced(settings.home, sock, token is not None) as where:
            needs = f"; every request needs the token ({token_from})" if token else ""
            click.echo(f"trove serve: {where.url} for {settings.home}{needs}", err=True)
            run(app, sock)
    finally:
        trove.close()
