"""Running `trove serve`: the token a non-loopback address needs, the socket, uvicorn, and the file
in the home that tells `trove ask` where the server of that home listens."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import os
import secrets
import signal
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.errors import TroveError

SERVER_FILE = "server.json"  # in the home: where its server listens (pid, url, whether a token is needed)
TOKEN_FILE = "api-token"  # in the home, 0600: the token a non-loopback server asks for, when none is given
TOKEN_ENV = "TROVE_API_TOKEN"


@dataclass(frozen=True)
class Listening:
    """Where a server of a home listens, as its server file says."""

    pid: int
    url: str
    token: bool  # whether each request needs the token


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_for(home: Path, host: str) -> tuple[str | None, str]:
    """The token requests need, and where it comes from: TROVE_API_TOKEN when set (any address);
    else none on a loopback address, and the home's token file (made 0600 when absent) on any other."""
    given = os.environ.get(TOKEN_ENV, "").strip()
    if given:
        return given, TOKEN_ENV
    if loopback(host):
        return None, ""
    path = home / TOKEN_FILE
    home.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_urlsafe(32) + "\n")
    if path.stat().st_mode & 0o077:
        raise TroveError(f"{path}: the token file can be read by others (chmod 600 it, or remove it)")
    return path.read_text(encoding="ascii").strip(), str(path)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port` (port 0: a free one), or a TroveError that says why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise TroveError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


@contextlib.contextmanager
def announced(home: Path, sock: socket.socket, token: bool) -> Iterator[Listening]:
    """The home's server file, written 0600 while the server runs and removed when it stops."""
    host, port = sock.getsockname()[:2]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"
    listening = Listening(os.getpid(), url, token)
    path = home / SERVER_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump({"pid": listening.pid, "url": url, "token": token}, fh)
    try:
        yield listening
    finally:
        with contextlib.suppress(FileNotFoundError):
            if json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()


def listening(home: Path) -> Listening | None:
    """The server of `home` when its file names a live process; None when there is none."""
    try:
        data = json.loads((home / SERVER_FILE).read_text())
        found = Listening(int(data["pid"]), str(data["url"]), bool(data["token"]))
        os.kill(found.pid, 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found


def run(app: object, sock: socket.socket) -> None:
    """Serve `app` on `sock` until interrupted (Ctrl+C or SIGTERM), logging to stderr. uvicorn stops
    gracefully, then raises the signal again: here that is a clean exit, so the caller's cleanup
    (the server file, the index) still runs."""
    import uvicorn

    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, _exit)

    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    config = uvicorn.Config(app, log_level="info", access_log=True, timeout_graceful_shutdown=5,  # type: ignore[arg-type]
                            lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(0)
