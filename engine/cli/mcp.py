"""`trove mcp`: an MCP server over stdio for the local assistants that speak MCP."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from engine.cli.base import HOME_OPTION, cli, open_trove


@cli.command()
@HOME_OPTION
@click.option("--llm", default=None, help="default | fast | smoke | a model name from `trove models list`.")
def mcp(home: Path | None, llm: str | None) -> None:
    """Serve Trove to an MCP client over stdin/stdout: the tools search, ask and status, and the
    indexed files as resources (trove://file/PATH). Logs go to stderr: stdout is the protocol's."""
    from engine import Gate
    from engine.service.mcp_server import build

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)  # before the SDK's own (then a no-op)
    trove = open_trove(home, llm=llm)
    try:
        click.echo(f"trove mcp: {trove.settings.home}, over stdio", err=True)
        build(trove, Gate()).run("stdio")
    finally:
        trove.close()
