"""The offline bundle for real: build it (wheels from this venv and the local wheelhouse, the embedder and
the smoke LLM), install it into a fresh venv with no index and no network, then index a folder and get a
cited answer from that venv's `trove`."""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from installers.build import DEFAULT_WHEELHOUSE
from tests.conftest import ROOT

pytestmark = pytest.mark.slow
NOTES = {
    "boiler.md": "# Home maintenance\n\nThe boiler was last serviced on 14 March 2024 by Kelvin Heating. The engineer "
                 "replaced the pressure valve.\n\nThe next boiler service is due in March 2025.\n",
    "garden.md": "# Garden\n\nThe tomatoes go in the greenhouse in May. The apple tree is pruned in February.\n",
}


def _no_network() -> list[str]:
    """`unshare -rn` (a network namespace with no interfaces) where this machine allows it."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn"]
    return []


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """No pip settings, an empty HOME (no pip.conf, no cache), and proxies that go nowhere."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TROVE_", "XDG_"))}
    dead = "http://127.0.0.1:9"
    env.update(HOME=str(tmp_path / "user"), PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", http_proxy=dead,
               https_proxy=dead, HTTP_PROXY=dead, HTTPS_PROXY=dead, no_proxy="", NO_PROXY="",
               TROVE_HOME=str(tmp_path / "trove-home"), TROVE_MODELS_DIR=str(tmp_path / "models"), TROVE_THREADS="2")
    return env


def _run(cmd: list[str], timings: dict[str, float], stage: str, **kw) -> subprocess.CompletedProcess:  # noqa: ANN003
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    timings[stage] = time.perf_counter() - start
    assert proc.returncode == 0, f"{stage} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def test_bundle_builds_installs_offline_and_answers_with_a_citation(tmp_path: Path):
    if not sys.platform.startswith("linux"):
        pytest.skip("the bundle and its install script are for Linux")
    timings: dict[str, float] = {}
    bundle = tmp_path / "bundle"
    _run([sys.executable, "-m", "installers", "build", str(bundle), "--models", "text-embedder,llm:smoke"],
         timings, "build", cwd=ROOT)
    manifest = json.loads((bundle / "bundle.json").read_text())
    assert {m["name"] for m in manifest["models"]} == {"all-minilm-l6-v2-int8", "smollm2-135m-instruct-q4_1"}
    llama = next(w for w in manifest["wheels"] if w["name"] == "llama-cpp-python")
    built_here = DEFAULT_WHEELHOUSE / llama["file"]
    assert hashlib.sha256(built_here.read_bytes()).hexdigest() == llama["sha256"]  # reused, never rebuilt

    offline, env = _no_network(), _offline_env(tmp_path)
    venv, share = tmp_path / "venv", tmp_path / "share"
    _run([*offline, "sh", str(bundle / "install.sh"), "--venv", str(venv), "--prefix", str(share),
          "--python", sys.executable], timings, "install", env=env, cwd=tmp_path)

    entry = configparser.ConfigParser(interpolation=None)
    entry.read(share / "applications" / "trove.desktop")
    assert entry["Desktop Entry"]["Exec"] == f"{venv}/bin/trove app"
    assert Path(entry["Desktop Entry"]["Icon"]).is_file()

    folder = tmp_path / "files"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text)
    trove = [*offline, str(venv / "bin" / "trove")]
    _run([*trove, "index", str(folder)], timings, "index", env=env, cwd=tmp_path)
    out = _run([*trove, "ask", "When was the boiler last serviced?", "--llm", "smoke", "--json"], timings, "ask",
               env=env, cwd=tmp_path)
    answer = json.loads(out.stdout)
    assert answer["citations"], answer
    assert answer["citations"][0]["source"] == str(folder / "boiler.md")
    assert f"[{answer['citations'][0]['n']}]" in answer["answer"]

    # the bundle's copy of a model, tampered with: the models stage refuses it and names the file
    gguf = bundle / "models" / "smollm2-135m-instruct-q4_1" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    with gguf.open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\0\1\2\3")
    proc = subprocess.run([*offline, str(venv / "bin" / "python"), str(bundle / "install.py"), "models", str(bundle),
                           "--models-dir", str(tmp_path / "other-models")], capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "SmolLM2-135M-Instruct.Q4_1.gguf" in proc.stderr and "sha256" in proc.stderr

    size_mb = manifest["sizes"]["total"] / 1e6
    print(f"\nbundle {size_mb:.0f} MB ({len(manifest['wheels'])} wheels), network namespace: {bool(offline)}; "
          + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
    for big in (bundle, venv):  # about 1 GB together; pytest keeps its last three temporary folders
        shutil.rmtree(big)
