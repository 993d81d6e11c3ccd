"""`trove` command line: each module adds its commands to the one group (`base.cli`)."""

from engine.cli import commands, conversations, mcp, service
from engine.cli.base import cli, main, print_answer

__all__ = ["cli", "commands", "conversations", "main", "mcp", "print_answer", "service"]
