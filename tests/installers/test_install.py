"""The offline installer's pieces, fast: models from a bundle (and a tampered one refused with the file
named), the desktop entry, the bundle checks, and the builder's refusals of bad input."""

from __future__ import annotations

import configparser
import hashlib
import json
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine.errors import ModelError
from engine.models.catalog import Catalog, ModelFile, ModelSpec
from engine.models.manager import ModelManager
from installers import build, install

ICON = Path(install.__file__).with_name("trove.svg")
A, B = b"alpha weights " * 1000, b"beta tokenizer " * 300


def _catalog() -> Catalog:
    files = tuple(ModelFile(name=n, sha256=hashlib.sha256(d).hexdigest(), size=len(d))
                  for n, d in (("a.bin", A), ("b.json", B)))
    return Catalog((ModelSpec(name="tiny", role="text-embedder", files=files, tags=("default",)),),
                   {"text-embedder": "x"})


def _bundle(tmp_path: Path) -> Path:
    """A bundle folder holding the model `tiny`, made by the builder from an installed copy."""
    installed = tmp_path / "installed-models"
    (installed / "tiny").mkdir(parents=True)
    (installed / "tiny" / "a.bin").write_bytes(A)
    (installed / "tiny" / "b.json").write_bytes(B)
    bundle = tmp_path / "bundle"
    models = build.collect_models(ModelManager(installed, _catalog()), ["text-embedder"], bundle)
    (bundle / install.MANIFEST).write_text(json.dumps({"trove": "0", "wheels": [], "models": models}))
    return bundle


def test_models_install_from_the_bundle_with_their_hashes_checked(tmp_path: Path):
    bundle = _bundle(tmp_path)
    manifest = json.loads((bundle / install.MANIFEST).read_text())
    assert manifest["models"][0]["files"][1] == {"name": "b.json", "path": "models/tiny/b.json", "size": len(B),
                                                "sha256": hashlib.sha256(B).hexdigest()}
    target = tmp_path / "models"
    assert install.install_models(bundle, target, _catalog()) == ["tiny"]
    manager = ModelManager(target, _catalog())
    assert manager.paths("text-embedder")["b.json"].read_bytes() == B
    assert all(s.state == "installed" for s in manager.status())  # stamped: the hash was checked on the way in


def test_tampered_model_in_the_bundle_is_refused_with_the_file_named(tmp_path: Path):
    bundle = _bundle(tmp_path)
    tampered = bundle / "models" / "tiny" / "b.json"
    tampered.write_bytes(b"X" + B[1:])  # same size, other bytes
    with pytest.raises(ModelError) as err:
        install.install_models(bundle, tmp_path / "models", _catalog())
    message = str(err.value)
    assert "tiny/b.json" in message and "sha256 mismatch" in message and "copy it again" in message
    assert not (tmp_path / "models" / "tiny" / "b.json").exists()
    assert not list((tmp_path / "models").rglob("*.part"))


def test_truncated_model_in_the_bundle_is_refused_before_copying(tmp_path: Path):
    bundle = _bundle(tmp_path)
    (bundle / "models" / "tiny" / "a.bin").write_bytes(A[:-10])
    with pytest.raises(install.InstallError, match=r"models/tiny/a\.bin: .* bytes, the bundle manifest says"):
        install.install_models(bundle, tmp_path / "models", _catalog())
    assert not (tmp_path / "models").exists()


def test_models_stage_prints_one_error_line_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture):
    bundle = _bundle(tmp_path)
    (bundle / "models" / "tiny" / "b.json").unlink()
    assert install.main(["models", str(bundle), "--models-dir", str(tmp_path / "models")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "models/tiny/b.json: missing from the bundle" in err[0]


def _desktop(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path)
    return parser["Desktop Entry"]


def test_desktop_entry_runs_the_venvs_trove_app_with_the_icon(tmp_path: Path):
    venv = tmp_path / "venv"
    entry = install.write_desktop_entry(tmp_path / "share", venv, ICON)
    assert entry == tmp_path / "share" / "applications" / "trove.desktop"
    section = _desktop(entry)
    assert section["Exec"] == f"{venv}/bin/trove app"
    assert section["Type"] == "Application" and section["Name"] == "Trove" and section["Terminal"] == "false"
    icon = Path(section["Icon"])
    assert icon == tmp_path / "share" / "icons" / "hicolor" / "scalable" / "apps" / "trove.svg"
    assert ET.parse(icon).getroot().tag == "{http://www.w3.org/2000/svg}svg"


def test_desktop_entry_quotes_odd_paths_and_carries_a_models_folder(tmp_path: Path):
    venv = tmp_path / "my apps" / "trove$venv"
    entry = install.write_desktop_entry(tmp_path / "share", venv, ICON, models_dir=tmp_path / "models")
    exec_ = _desktop(entry)["Exec"]
    assert exec_.startswith(f"env TROVE_MODELS_DIR={tmp_path / 'models'} ")
    # the spec's quoting ("...", \$), then the string escape of the backslash
    assert exec_.endswith(f'"{tmp_path}/my apps/trove\\\\$venv/bin/trove" app')


def test_link_command_leaves_a_real_file_alone(tmp_path: Path):
    venv = tmp_path / "venv"
    link = install.link_command(tmp_path / "bin", venv)
    assert link is not None and link.readlink() == venv / "bin" / "trove"
    assert install.link_command(tmp_path / "bin", venv) == link  # again: replaced, no error
    link.unlink()
    link.write_text("#!/bin/sh\n")
    assert install.link_command(tmp_path / "bin", venv) is None and link.read_text() == "#!/bin/sh\n"


def test_bundle_check_names_a_missing_or_damaged_wheel(tmp_path: Path):
    (tmp_path / "wheels").mkdir()
    wheel = tmp_path / "wheels" / "x-1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK wheel")
    entry = {"file": wheel.name, "size": wheel.stat().st_size, "sha256": hashlib.sha256(b"PK wheel").hexdigest()}
    install.check_wheels(tmp_path, {"wheels": [entry]})
    wheel.write_bytes(b"PK whee!")
    with pytest.raises(install.InstallError, match=r"wheels/x-1\.0-py3-none-any\.whl: sha256 does not match"):
        install.check_wheels(tmp_path, {"wheels": [entry]})
    wheel.unlink()
    with pytest.raises(install.InstallError, match=r"wheels/x-1\.0-py3-none-any\.whl: missing from the bundle"):
        install.check_wheels(tmp_path, {"wheels": [entry]})


def test_no_bundle_and_wrong_python_are_clear_errors(tmp_path: Path):
    with pytest.raises(install.InstallError, match="bundle.json: not found"):
        install.load_manifest(tmp_path)
    with pytest.raises(install.InstallError, match=r"wheels are for Python 2\.7 .* pass --python"):
        install.pick_python(None, {"python": "2.7", "platform": "linux-x86_64"})


def test_offline_env_drops_pip_settings_and_forbids_the_index(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PIP_FIND_LINKS", "/opt/wheels")
    monkeypatch.setenv("PIP_INDEX_URL", "https://example.org/simple")
    env = install.offline_env()
    assert "PIP_FIND_LINKS" not in env and "PIP_INDEX_URL" not in env
    assert env["PIP_NO_INDEX"] == "1" and env["PIP_CONFIG_FILE"]


def test_builder_refuses_a_missing_wheelhouse_wheel_and_a_stale_venv(tmp_path: Path):
    with pytest.raises(build.BuildError, match=r"no llama-cpp-python 0\.3\.36 wheel in .*make setup"):
        build.check_wheelhouse(["numpy==2.4.6", "llama-cpp-python==0.3.36"], tmp_path)
    (tmp_path / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl").write_bytes(b"")
    build.check_wheelhouse(["llama-cpp-python==0.3.36"], tmp_path)
    with pytest.raises(build.BuildError, match=r"numpy 2\.0\.0 \(pyproject: 2\.4\.6\); no-such not installed"):
        build.check_venv(["numpy==2.4.6", "no_such==1.0 ; python_version>'3'"], {"numpy": "2.0.0"})


def test_builder_refuses_a_model_that_is_not_installed(tmp_path: Path):
    manager = ModelManager(tmp_path, _catalog())
    spec = build.chosen_models(manager, ["text-embedder"])[0]
    with pytest.raises(build.BuildError, match=r"model tiny \(text-embedder\): a\.bin is not installed.*"
                                               r"trove models install tiny"):
        build.check_installed(manager, spec)
    assert build.chosen_models(manager, None) == []  # by default: what is installed, here nothing


def test_requirements_come_from_pyproject_and_the_makefile():
    pyproject = build.read_pyproject()
    specs = build.requirements(pyproject)
    assert specs == pyproject["project"]["dependencies"] and "llama-cpp-python" in build.pins(specs)
    assert "pytest" not in build.pins(specs)  # dev extras stay out
    assert {"scenedetect", "rapidocr-onnxruntime"} <= set(build.pins(build.nodeps_packages()))
    with pytest.raises(build.BuildError, match="no extra 'gui'"):
        build.requirements(pyproject, ["gui"])


def test_scripts_manifest_and_archive_of_a_bundle(tmp_path: Path):
    bundle = _bundle(tmp_path)
    models = json.loads((bundle / install.MANIFEST).read_text())["models"]
    manifest = build.make_manifest({"project": {"version": "9.9"}}, [], "pip-24.0-py3-none-any.whl", [], models, ())
    assert manifest["sizes"] == {"wheels": 0, "models": len(A) + len(B), "total": len(A) + len(B)}
    build.write_scripts(bundle, manifest)
    assert "Trove 9.9" in (bundle / "README.txt").read_text()
    assert (bundle / "install.py").read_text() == Path(install.__file__).read_text()
    help_text = subprocess.run(["sh", str(bundle / "install.sh"), "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "--models-dir" in help_text.stdout
    archive = build.make_archive(bundle)
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        assert tar.getmember("bundle/install.sh").mode & 0o111
    assert {"bundle/install.sh", "bundle/models/tiny/a.bin", "bundle/trove.svg"} <= set(names)
