"""Build an offline bundle of Trove for a machine with no network.

`python -m installers build OUT_DIR [--models ROLE,...] [--archive]` writes:

    OUT_DIR/wheels/      trove's own wheel, every runtime dependency at the version installed in this
                         venv (llama-cpp-python from the local wheelhouse, never rebuilt), the --no-deps
                         packages of the Makefile, and pip itself
    OUT_DIR/models/      MODEL/FILE: the installed model files of the chosen roles
    OUT_DIR/bundle.json  the manifest: versions, every file with its size and sha256
    OUT_DIR/install.sh   runs install.py (a copy of installers/install.py) with no network
    OUT_DIR/trove.svg    the icon for the desktop entry
    OUT_DIR/README.txt   how to install, what goes where, how to remove it

Building needs the package index (wheels are downloaded once, then come from pip's cache).
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.metadata
import json
import os
import re
import shutil
import sys
import sysconfig
import tarfile
import tempfile
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path

from installers.install import ICON, MANIFEST, Stages, run_streaming, sha256_of

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_WHEELHOUSE = Path(os.environ.get("WHEELHOUSE") or "~/.cache/trove/wheels").expanduser()
# PyPI has only the source of these; `make setup` builds their wheel once into the wheelhouse.
SOURCE_ONLY = ("llama-cpp-python",)
_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==\s*([^\s;,]+)")


class BuildError(Exception):
    """A problem the person building can act on; printed as one line."""


def norm(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


# -- what goes in -----------------------------------------------------------------------------------
def read_pyproject(root: Path = ROOT) -> dict:
    path = root / "pyproject.toml"
    if not path.is_file():
        raise BuildError(f"{path}: not found; build the bundle from a Trove source checkout")
    with path.open("rb") as fh:
        return tomllib.load(fh)


def requirements(pyproject: dict, extras: Sequence[str] = ()) -> list[str]:
    """Trove's runtime requirements as pyproject.toml states them, plus those of the chosen extras."""
    project = pyproject["project"]
    out = list(project.get("dependencies", []))
    optional = project.get("optional-dependencies", {})
    for extra in extras:
        if extra not in optional:
            raise BuildError(f"no extra '{extra}' in pyproject.toml (there are: {', '.join(sorted(optional))})")
        out += optional[extra]
    return out


def nodeps_packages(root: Path = ROOT) -> list[str]:
    """The packages the Makefile installs with --no-deps (NODEPS_PACKAGES)."""
    makefile = root / "Makefile"
    text = makefile.read_text() if makefile.is_file() else ""
    match = re.search(r"^NODEPS_PACKAGES\s*:?=\s*(.*)$", text, re.M)
    return match.group(1).split() if match else []


def installed_versions() -> dict[str, str]:
    """Every distribution installed in this Python, by normalised name."""
    out: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            out.setdefault(norm(name), dist.version)
    return out


def pins(specs: Sequence[str]) -> dict[str, str]:
    """`name==version` requirements, by normalised name."""
    return {norm(m.group(1)): m.group(2) for s in specs if (m := _PIN.match(s))}


def check_venv(specs: Sequence[str], installed: dict[str, str]) -> None:
    """The bundle carries what this venv runs: every pin must be installed at its version."""
    wrong = [f"{name} {installed.get(name, 'not installed')} (pyproject: {version})"
             for name, version in pins(specs).items() if installed.get(name) != version]
    if wrong:
        raise BuildError("this venv differs from pyproject.toml: " + "; ".join(wrong) + "; run `make setup` first")


def check_wheelhouse(specs: Sequence[str], wheelhouse: Path) -> None:
    """Packages PyPI has no wheel for must have theirs in the wheelhouse: the bundle never builds one."""
    for name, version in pins(specs).items():
        if name not in SOURCE_ONLY:
            continue
        stem = f"{name.replace('-', '_')}-{version}-"
        if not any(w.name.lower().startswith(stem) for w in wheelhouse.glob("*.whl")):
            raise BuildError(f"no {name} {version} wheel in {wheelhouse}: PyPI has only its source and the bundle "
                             "never builds it; run `make setup` (it builds the wheel once) or pass --wheelhouse DIR")


def constraints(installed: dict[str, str], skip: Sequence[str] = ("trove",)) -> str:
    """This venv's versions as pip constraints, so the bundle gets exactly what was tested."""
    return "".join(f"{name}=={version}\n" for name, version in sorted(installed.items()) if name not in skip)


# -- wheels -----------------------------------------------------------------------------------------
def pip(*args: str) -> None:
    """Run pip of this Python, its output shown as it goes; a missing wheel becomes one clear line."""
    code, tail = run_streaming([sys.executable, "-m", "pip", *args])
    if code == 0:
        return
    missing = [m.group(1) for line in tail if (m := re.search(r"No matching distribution found for (\S+)", line))]
    if missing:
        raise BuildError(f"no wheel for {missing[-1]} (pip {args[0]} exit {code}); the bundle takes wheels only: "
                         "put one in the wheelhouse (--wheelhouse) or check the package index is reachable")
    raise BuildError(f"pip {args[0]} failed (exit {code}): {tail[-1] if tail else 'no output'}")


def app_sources(root: Path, pyproject: dict, dest: Path) -> Path:
    """A clean copy of what the wheel is built from, so building leaves nothing in the checkout."""
    include = pyproject.get("tool", {}).get("setuptools", {}).get("packages", {}).get("find", {}).get("include", ["*"])
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for item in root.iterdir():
        if item.is_dir() and any(fnmatch.fnmatch(item.name, pat) for pat in include):
            shutil.copytree(item, dest / item.name, ignore=ignore)
        elif item.is_file() and (item.name in ("pyproject.toml", "README.md") or item.name.startswith("LICEN")):
            shutil.copy2(item, dest / item.name)
    return dest


def build_app_wheel(root: Path, pyproject: dict, wheels: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="trove-src-") as tmp:
        src = app_sources(root, pyproject, Path(tmp) / "trove")
        pip("wheel", "--no-deps", "--wheel-dir", str(wheels), str(src))


def download_dependencies(specs: Sequence[str], installed: dict[str, str], wheels: Path, wheelhouse: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="trove-reqs-") as tmp:
        reqs, cons = Path(tmp) / "requirements.txt", Path(tmp) / "constraints.txt"
        reqs.write_text("".join(f"{s}\n" for s in specs))
        cons.write_text(constraints(installed))
        pip("download", "--only-binary=:all:", "--find-links", str(wheelhouse), "--dest", str(wheels),
            "-r", str(reqs), "-c", str(cons))


def download_nodeps(specs: Sequence[str], wheels: Path, wheelhouse: Path) -> list[str]:
    """The --no-deps packages' own wheels; returns their file names."""
    if not specs:
        return []
    pip("download", "--no-deps", "--only-binary=:all:", "--find-links", str(wheelhouse), "--dest", str(wheels),
        *specs)
    wanted = pins(specs)
    return sorted(w.name for w in wheels.glob("*.whl")
                  if wanted.get(norm(w.name.split("-")[0])) == w.name.split("-")[1])


def download_pip(wheels: Path) -> str:
    version = importlib.metadata.version("pip")
    pip("download", "--no-deps", "--only-binary=:all:", "--dest", str(wheels), f"pip=={version}")
    return next(w.name for w in wheels.glob(f"pip-{version}-*.whl"))


def wheel_entries(wheels: Path) -> list[dict]:
    out = []
    for w in sorted(wheels.iterdir()):
        if w.suffix != ".whl":
            raise BuildError(f"{w}: not a wheel; the bundle takes wheels only")
        name, version = w.name.split("-")[:2]
        out.append({"file": w.name, "name": norm(name), "version": version, "size": w.stat().st_size,
                    "sha256": sha256_of(w)})
    return out


def check_complete(entries: list[dict], specs: Sequence[str]) -> None:
    have = {(e["name"], e["version"]) for e in entries}
    for name, version in pins(specs).items():
        if (name, version) not in have:
            raise BuildError(f"{name}=={version} is not among the bundle's wheels")


# -- models -----------------------------------------------------------------------------------------
def chosen_models(manager, targets: Sequence[str] | None) -> list:  # noqa: ANN001
    """The catalog models to bundle: `targets` (roles, role:tag or names), else every installed one."""
    if targets is not None:
        specs = [manager.spec(t) for t in targets]
        return [s for i, s in enumerate(specs) if s.name not in {o.name for o in specs[:i]}]
    out = []
    for spec in manager.catalog.models:
        if all(manager.status_of(spec, f).state in ("installed", "unverified") for f in spec.files):
            if spec.user_imported:
                print(f"    {spec.name}: imported by you, not in the catalog: left out (import it on the other "
                      "machine with trove models import)", flush=True)
                continue
            out.append(spec)
    return out


def check_installed(manager, spec) -> None:  # noqa: ANN001
    for f in spec.files:
        status = manager.status_of(spec, f)
        if status.state == "unverified":
            status = manager.status_of(spec, f, full=True)
        if status.state != "installed":
            raise BuildError(f"model {spec.name} ({spec.role}): {f.name} is {status.detail or status.state}; "
                             f"install it first: trove models install {spec.name}")


def collect_models(manager, targets: Sequence[str] | None, out: Path) -> list[dict]:  # noqa: ANN001
    """Copy the chosen installed models to `out/models/MODEL/FILE`; returns their manifest entries."""
    from tqdm import tqdm

    specs = chosen_models(manager, targets)
    for spec in specs:
        check_installed(manager, spec)
    entries = []
    total = sum(manager.file_path(s, f).stat().st_size for s in specs for f in s.files)
    with tqdm(total=total, unit="B", unit_scale=True, desc="models", file=sys.stdout, mininterval=0.5) as bar:
        for spec in specs:
            files = []
            for f in spec.files:
                src, rel = manager.file_path(spec, f), f"models/{spec.name}/{f.name}"
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                copy_with_progress(src, out / rel, bar.update)
                files.append({"name": f.name, "path": rel, "size": src.stat().st_size, "sha256": f.sha256})
            entries.append({"name": spec.name, "role": spec.role, "tags": list(spec.tags), "files": files})
    return entries


def copy_with_progress(src: Path, dest: Path, tick) -> None:  # noqa: ANN001
    with src.open("rb") as fin, dest.open("wb") as fout:
        while block := fin.read(1 << 20):
            fout.write(block)
            tick(len(block))
    shutil.copystat(src, dest)


# -- scripts, manifest, archive ---------------------------------------------------------------------
INSTALL_SH = """#!/bin/sh
# Install Trove from this folder with no network: ./install.sh [--help for the options]
set -eu
HERE=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
    for candidate in python%(python)s python3; do
        if command -v "$candidate" >/dev/null 2>&1; then PYTHON=$candidate; break; fi
    done
fi
if [ -z "$PYTHON" ]; then
    echo "error: no python3 found; install Python %(python)s or set PYTHON=/path/to/python" >&2
    exit 2
fi
exec "$PYTHON" "$HERE/install.py" "$@"
"""

README_TXT = """Trove {trove}: offline bundle
============================

Trove answers questions over the files on this computer with local models only, and cites where
each answer comes from. This folder installs it on a machine with no network.

Needs: {platform}, Python {python} with its venv module (Debian/Ubuntu: python3-venv).

Install:
    ./install.sh

That checks every file against bundle.json, creates a venv in ~/.local/share/trove/venv, installs
Trove from wheels/ with `pip install --no-index` (nothing is downloaded), copies the models from
models/ into Trove's models folder (~/.local/share/trove/models, or $TROVE_MODELS_DIR) checking the
sha256 of each file, writes ~/.local/share/applications/trove.desktop with its icon, and links
~/.local/bin/trove. Options (./install.sh --help):
    --venv DIR         the venv to create
    --prefix DIR       instead of ~/.local/share (applications/, icons/, trove/venv)
    --models-dir DIR   where the models go
    --python PATH      the Python {python} to create the venv with
    --no-models        the app only;  --no-desktop  no menu entry, icon or link

Then:
    trove index ~/Documents        (~/.local/bin/trove; or ~/.local/share/trove/venv/bin/trove)
    trove ask "When was the boiler last serviced?"
    trove app                      (the desktop app; also in the applications menu)

Contents: {n_wheels} wheels ({wheels_mb:.0f} MB), models ({models_mb:.0f} MB): {models}.

Remove: rm -r ~/.local/share/trove/venv ~/.local/share/applications/trove.desktop \\
        ~/.local/share/icons/hicolor/scalable/apps/trove.svg ~/.local/bin/trove
(your index and models stay in ~/.local/share/trove until you remove that folder too)
"""


def write_scripts(out: Path, manifest: dict) -> None:
    (out / "install.sh").write_text(INSTALL_SH % {"python": manifest["python"]})
    (out / "install.sh").chmod(0o755)
    shutil.copyfile(HERE / "install.py", out / "install.py")
    shutil.copyfile(HERE / ICON, out / ICON)
    sizes = manifest["sizes"]
    (out / "README.txt").write_text(README_TXT.format(
        trove=manifest["trove"], platform=manifest["platform"], python=manifest["python"],
        n_wheels=len(manifest["wheels"]), wheels_mb=sizes["wheels"] / 1e6, models_mb=sizes["models"] / 1e6,
        models=", ".join(f"{m['role']} {m['name']}" for m in manifest["models"]) or "none"))


def make_manifest(pyproject: dict, wheels: list[dict], pip_wheel: str, nodeps: list[str], models: list[dict],
                  extras: Sequence[str]) -> dict:
    sizes = {"wheels": sum(w["size"] for w in wheels), "models": sum(f["size"] for m in models for f in m["files"])}
    sizes["total"] = sizes["wheels"] + sizes["models"]
    return {
        "format": 1,
        "trove": pyproject["project"]["version"],
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "platform": sysconfig.get_platform(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "extras": list(extras),
        "pip": pip_wheel,
        "nodeps": nodeps,
        "wheels": wheels,
        "models": models,
        "sizes": sizes,
    }


def make_archive(out: Path) -> Path:
    """`OUT_DIR.tar.gz` beside OUT_DIR (gzip level 1: wheels and models hardly compress)."""
    from tqdm import tqdm

    archive = out.with_name(out.name + ".tar.gz")
    files = sorted(p for p in out.rglob("*") if p.is_file())
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar, \
            tqdm(total=sum(p.stat().st_size for p in files), unit="B", unit_scale=True, desc="archive",
                 file=sys.stdout, mininterval=0.5) as bar:
        for path in files:
            info = tar.gettarinfo(str(path), arcname=f"{out.name}/{path.relative_to(out)}")
            with path.open("rb") as fh:
                tar.addfile(info, _Ticking(fh, bar.update))
    return archive


class _Ticking:
    """A file object that reports how much was read."""

    def __init__(self, fh, tick) -> None:  # noqa: ANN001
        self.fh, self.tick = fh, tick

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        self.tick(len(data))
        return data


# -- the whole build --------------------------------------------------------------------------------
def prepare_out(out: Path, force: bool) -> None:
    if out.exists() and any(out.iterdir()):
        if not (force and (out / MANIFEST).is_file()):
            raise BuildError(f"{out} exists and is not empty; choose a new folder (or --force to replace a bundle)")
        shutil.rmtree(out)
    (out / "wheels").mkdir(parents=True)
    (out / "models").mkdir()


def build(out: Path, models: Sequence[str] | None = None, archive: bool = False, wheelhouse: Path = DEFAULT_WHEELHOUSE,
          extras: Sequence[str] = (), models_dir: Path | None = None, force: bool = False) -> dict:
    """Build the bundle in `out`; returns its manifest."""
    from engine.models import ModelManager
    from engine.settings import default_home, default_models_dir

    out = out.expanduser().absolute()
    stages = Stages(6 + archive)
    with stages.stage("check this venv against pyproject.toml"):
        pyproject = read_pyproject()
        specs, nodeps_specs = requirements(pyproject, extras), nodeps_packages()
        installed = installed_versions()
        check_venv([*specs, *nodeps_specs], installed)
        check_wheelhouse(specs, wheelhouse)
        manager = ModelManager(models_dir or default_models_dir(default_home()))
        chosen = chosen_models(manager, models)
        for spec in chosen:
            check_installed(manager, spec)
        prepare_out(out, force)
    wheels = out / "wheels"
    with stages.stage("trove's wheel"):
        build_app_wheel(ROOT, pyproject, wheels)
    with stages.stage("dependency wheels"):
        download_dependencies(specs, installed, wheels, wheelhouse)
        nodeps = download_nodeps(nodeps_specs, wheels, wheelhouse)
        pip_wheel = download_pip(wheels)
    with stages.stage("models"):
        model_entries = collect_models(manager, [s.name for s in chosen], out)
    with stages.stage("manifest"):
        entries = wheel_entries(wheels)
        check_complete(entries, [*specs, *nodeps_specs])
        manifest = make_manifest(pyproject, entries, pip_wheel, nodeps, model_entries, extras)
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    with stages.stage("install script and README"):
        write_scripts(out, manifest)
    if archive:
        with stages.stage("archive"):
            path = make_archive(out)
            print(f"    {path} ({path.stat().st_size / 1e6:.0f} MB)", flush=True)
    sizes = manifest["sizes"]
    print(f"bundle {out}: {len(entries)} wheels {sizes['wheels'] / 1e6:.0f} MB, {len(model_entries)} models "
          f"{sizes['models'] / 1e6:.0f} MB ({stages.summary()})")
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m installers build", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="the bundle folder to create")
    p.add_argument("--models", default=None,
                   help="comma-separated roles, role:tag or model names (default: every installed model)")
    p.add_argument("--no-models", action="store_true", help="no models in the bundle")
    p.add_argument("--archive", action="store_true", help="also write OUT.tar.gz")
    p.add_argument("--wheelhouse", type=Path, default=DEFAULT_WHEELHOUSE,
                   help=f"locally built wheels (default: $WHEELHOUSE or {DEFAULT_WHEELHOUSE})")
    p.add_argument("--extras", default="", help="comma-separated extras of pyproject.toml to include")
    p.add_argument("--models-dir", type=Path, default=None, help="where the installed models are (default: Trove's)")
    p.add_argument("--force", action="store_true", help="replace an existing bundle in OUT")
    args = p.parse_args(argv)
    models = [] if args.no_models else ([m.strip() for m in args.models.split(",") if m.strip()]
                                        if args.models is not None else None)
    from engine.errors import TroveError

    try:
        build(args.out, models, args.archive, args.wheelhouse.expanduser(),
              [e for e in args.extras.split(",") if e], args.models_dir, args.force)
    except (BuildError, TroveError) as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0
