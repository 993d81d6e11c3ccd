"""Running `trove serve`: the token (none on loopback, a 0600 file or TROVE_API_TOKEN elsewhere, asked
of every request), the home's server file, and a port already taken."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from engine.errors import TroveError
from engine.service.client import Client, connect
from engine.service.server import TOKEN_FILE, announced, bind, listening, loopback, token_for
from tests.engine.service.conftest import start_server, stop_server, trove_cli


def test_loopback_addresses():
    assert all(map(loopback, ("127.0.0.1", "127.0.0.2", "::1", "localhost")))
    assert not any(map(loopback, ("0.0.0.0", "192.168.1.4", "::", "example.org")))


def test_no_token_on_loopback_and_a_private_token_file_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert token_for(tmp_path, "127.0.0.1") == (None, "")
    token, origin = token_for(tmp_path, "0.0.0.0")
    path = tmp_path / TOKEN_FILE
    assert origin == str(path) and len(token or "") >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token_for(tmp_path, "0.0.0.0")[0] == token  # kept between runs
    path.chmod(0o644)
    with pytest.raises(TroveError, match="can be read by others"):
        token_for(tmp_path, "0.0.0.0")
    monkeypatch.setenv("TROVE_API_TOKEN", "from-the-environment")
    assert token_for(tmp_path, "127.0.0.1") == ("from-the-environment", "TROVE_API_TOKEN")


def test_the_server_file_names_a_live_server_and_goes_with_it(tmp_path: Path):
    sock = bind("127.0.0.1", 0)
    with announced(tmp_path, sock, token=False) as where:
        assert listening(tmp_path) == where and where.url == f"http://127.0.0.1:{sock.getsockname()[1]}"
        assert stat.S_IMODE((tmp_path / "server.json").stat().st_mode) == 0o600
    sock.close()
    assert listening(tmp_path) is None and not (tmp_path / "server.json").exists()
    (tmp_path / "server.json").write_text(json.dumps({"pid": 2**22 + 1, "url": "http://127.0.0.1:1", "token": False}))
    assert listening(tmp_path) is None  # a server that died without cleaning up


def test_a_port_in_use_is_a_one_line_error():
    taken = bind("127.0.0.1", 0)
    with pytest.raises(TroveError, match=f"cannot listen on 127.0.0.1:{taken.getsockname()[1]}"):
        bind("127.0.0.1", taken.getsockname()[1])
    taken.close()


@pytest.mark.slow
def test_every_request_needs_the_token_when_there_is_one(indexed_home: tuple[Path, Path],
                                                        monkeypatch: pytest.MonkeyPatch):
    home, folder = indexed_home
    served = start_server(home, folder, home.parent / "token.log", env={"TROVE_API_TOKEN": "s3cret-token"})
    try:
        for method, path, body in (("GET", "/status", None), ("POST", "/search", {"query": "boiler"}),
                                   ("GET", "/openapi.json", None)):
            refused = served.request(method, path, body)
            assert refused.status == 401 and "a token is needed" in refused.json()["error"]
            wrong = served.request(method, path, body, {"Authorization": "Bearer s3cret-tokeN"})
            assert wrong.status == 401
            assert served.request(method, path, body, {"Authorization": "Bearer s3cret-token"}).status == 200
        assert connect(home) is None  # this user has no token: the CLI works alone
        alone = trove_cli("search", "boiler", "--json", "--home", str(home))
        assert alone.returncode == 0 and json.loads(alone.stdout)[0]["source"].endswith("boiler.md")
        monkeypatch.setenv("TROVE_API_TOKEN", "s3cret-token")
        client = connect(home)
        assert isinstance(client, Client) and client.get("/status")["files"]["indexed"] >= 2  # type: ignore[index]
    finally:
        stop_server(served)
    assert served.process.returncode == 0 and not (home / "server.json").exists()  # stopped cleanly
