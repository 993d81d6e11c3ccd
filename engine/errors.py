"""Errors a user can act on: each message names the thing and what to do."""

from local_stores.index_database import IndexUnreachable


class TroveError(Exception):
    """Base class for errors Trove reports to the user as one line."""


class ModelError(TroveError):
    """A model role cannot be served: missing, corrupt, or not installable."""

    def __init__(self, role: str, file: str, reason: str, hint: str = "") -> None:
        self.role, self.file, self.reason, self.hint = role, file, reason, hint
        message = f"model role '{role}': {file}: {reason}"
        if hint:
            message += f" — {hint}"
        super().__init__(message)


class NoSuch(TroveError, LookupError):
    """A thing asked for by name or id is not there: a conversation, an indexed file."""


class ParseError(TroveError):
    """A file could not be read into text; the reason is shown in `trove status`."""


class SkipFile(TroveError):
    """A file is deliberately not indexed (too big, no text, unsupported); not a failure."""


REPORTED: tuple[type[Exception], ...] = (TroveError, IndexUnreachable)
"""What a front end (the CLI, `trove serve`, the MCP server) says to the user in one line rather than
as a crash: Trove's own errors, and a shared index's server that cannot be reached."""
