"""Install Trove from an offline bundle, with no network.

Stages: check the bundle (every wheel against the manifest's size and sha256), create a venv, install
Trove and its dependencies from the bundle's wheels only (`pip install --no-index --find-links`), the
`--no-deps` packages beside them, the models (copied and sha256-checked by Trove's own model manager,
from the bundle folder and nowhere else), then a desktop entry and icon on Linux.

This file runs with the standard library alone: the bundle carries a copy as `install.py`, started by
`install.sh` before any of Trove exists. The models stage runs again in the new venv
(`python install.py models BUNDLE`), where the engine can be imported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

MANIFEST = "bundle.json"
ICON = "trove.svg"
APP_ID = "trove"
DEFAULT_PREFIX = Path("~/.local/share")


class InstallError(Exception):
    """A problem the person installing can act on; printed as one line."""


# -- shared with the builder ------------------------------------------------------------------------
class Stages:
    """Numbered stages, each printed when it starts and timed when it ends."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.times: list[tuple[str, float]] = []

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        print(f"[{len(self.times) + 1}/{self.total}] {name}", flush=True)
        start = time.perf_counter()
        yield
        took = time.perf_counter() - start
        self.times.append((name, took))
        print(f"    {name}: {took:.1f}s", flush=True)

    def summary(self) -> str:
        total = sum(t for _, t in self.times)
        return ", ".join(f"{name} {t:.1f}s" for name, t in self.times) + f"; total {total:.1f}s"


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def run_streaming(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None,
                  prefix: str = "    ") -> tuple[int, list[str]]:
    """Run `cmd`, echoing its output line by line (the progress display); returns (exit code, last lines)."""
    tail: list[str] = []
    proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            cwd=cwd, bufsize=1)
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.rstrip()
        if line:
            print(prefix + line, flush=True)
            tail = (tail + [line])[-40:]
    return proc.wait(), tail


def load_manifest(bundle: Path) -> dict:
    path = bundle / MANIFEST
    if not path.is_file():
        raise InstallError(f"{path}: not found; is {bundle} a Trove bundle (made by `python -m installers build`)?")
    return json.loads(path.read_text())


# -- checking the bundle --------------------------------------------------------------------------
def check_file(bundle: Path, rel: str, size: int, sha256: str | None) -> None:
    """One bundle file against the manifest: present, same size, and (when given) same sha256."""
    path = bundle / rel
    if not path.is_file():
        raise InstallError(f"{rel}: missing from the bundle {bundle}; copy the whole bundle folder again")
    actual = path.stat().st_size
    if actual != size:
        raise InstallError(f"{rel}: {actual} bytes, the bundle manifest says {size}: the copy is damaged or was "
                           "changed; copy the bundle again")
    if sha256 and sha256_of(path) != sha256:
        raise InstallError(f"{rel}: sha256 does not match the bundle manifest: the copy is damaged or was changed; "
                           "copy the bundle again")


def check_wheels(bundle: Path, manifest: dict) -> None:
    for wheel in manifest["wheels"]:
        check_file(bundle, f"wheels/{wheel['file']}", wheel["size"], wheel["sha256"])
    print(f"    {len(manifest['wheels'])} wheels match the manifest", flush=True)


def check_model_files(bundle: Path, manifest: dict) -> None:
    """Sizes only: the sha256 of each model file is checked by the model manager as it installs it."""
    for model in manifest["models"]:
        for f in model["files"]:
            check_file(bundle, f["path"], f["size"], None)


# -- the venv and its packages --------------------------------------------------------------------
def python_version(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def pick_python(requested: str | None, manifest: dict) -> str:
    """A Python of the version the bundle's wheels were built for."""
    want = manifest["python"]
    candidates = [requested] if requested else [sys.executable, f"python{want}", "python3"]
    for candidate in candidates:
        exe = shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
        if exe and python_version(exe) == want:
            return exe
    tried = ", ".join(c for c in candidates if c)
    raise InstallError(f"this bundle's wheels are for Python {want} on {manifest['platform']} and none was found "
                       f"(tried {tried}); pass --python /path/to/python{want}")


def offline_env() -> dict[str, str]:
    """The environment for pip: no index, no configuration files, no find-links but ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    return env


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def make_venv(python: str, venv: Path) -> Path:
    py = venv_python(venv)
    if py.exists():
        print(f"    reusing {venv}: its packages are brought to the bundle's versions", flush=True)
        return py
    code = subprocess.run([python, "-m", "venv", str(venv)]).returncode
    if code != 0 or not py.exists():
        raise InstallError(f"{python} -m venv {venv} failed (exit {code}); on Debian/Ubuntu install python3-venv")
    return py


def pip_install(py: Path, bundle: Path, args: Sequence[str], what: str) -> None:
    cmd = [str(py), "-m", "pip", "install", "--no-index", "--find-links", str(bundle / "wheels"), *args]
    code, tail = run_streaming(cmd, env=offline_env())
    if code != 0:
        missing = [line for line in tail if "No matching distribution" in line or "Could not find a version" in line]
        reason = missing[-1].strip() if missing else (tail[-1] if tail else "no output")
        raise InstallError(f"installing {what} from the bundle failed (pip exit {code}): {reason}")


def install_packages(py: Path, bundle: Path, manifest: dict, upgrade: bool = False) -> None:
    """pip first, then Trove with its dependencies, then the --no-deps packages; all from the bundle."""
    if manifest.get("pip"):
        pip_install(py, bundle, ["-q", str(bundle / "wheels" / manifest["pip"])], "pip")
    pip_install(py, bundle, [f"trove=={manifest['trove']}"], "Trove and its dependencies")
    if upgrade:  # an existing venv: a rebuilt Trove of the same version number must still replace the old one
        app = next(w["file"] for w in manifest["wheels"] if w["name"] == "trove")
        pip_install(py, bundle, ["-q", "--no-deps", "--force-reinstall", str(bundle / "wheels" / app)], "Trove")
    nodeps = [str(bundle / "wheels" / name) for name in manifest.get("nodeps", [])]
    if nodeps:
        pip_install(py, bundle, ["--no-deps", *nodeps], "the --no-deps packages")


# -- models ---------------------------------------------------------------------------------------
def _bundle_manager(models_dir: Path, folder: Path, catalog: object | None):  # noqa: ANN202
    """Trove's model manager, fetching only from the bundle's models folder: no other mirror, no network."""
    from engine.errors import ModelError
    from engine.models import ModelManager, fetching

    class BundleModelManager(ModelManager):
        def _fetch(self, spec, f, dest, tick, use):  # noqa: ANN001, ANN202, ARG002
            mine = folder / spec.name
            try:
                return fetching.from_mirror(f, dest, [str(mine)], tick)  # copies, then checks sha256
            except fetching.FetchError as exc:
                raise ModelError(spec.role, f"{spec.name}/{f.name}",
                                 f"refused the bundle's copy models/{spec.name}/{f.name}: {exc}",
                                 "the bundle is damaged or was changed; copy it again") from exc

    return BundleModelManager(models_dir, catalog)  # type: ignore[arg-type]


def install_models(bundle: Path, models_dir: Path | None = None, catalog: object | None = None) -> list[str]:
    """Install every model the bundle carries into `models_dir` (default: Trove's models folder)."""
    from tqdm import tqdm

    from engine.settings import default_home, default_models_dir

    manifest = load_manifest(bundle)
    check_model_files(bundle, manifest)
    models_dir = Path(models_dir) if models_dir else default_models_dir(default_home())
    manager = _bundle_manager(models_dir, bundle / "models", catalog)
    for model in manifest["models"]:
        spec = manager.catalog.by_name(model["name"])
        if spec is None:
            raise InstallError(f"model {model['name']} is not in this Trove's catalog")
        known = {f.name: f.sha256 for f in spec.files}
        for f in model["files"]:
            if known.get(f["name"]) != f["sha256"]:
                raise InstallError(f"{f['path']}: the bundle manifest and Trove's catalog disagree on its sha256")
    total = sum(f["size"] for m in manifest["models"] for f in m["files"])
    done = 0
    with tqdm(total=total, unit="B", unit_scale=True, desc="models", file=sys.stdout, mininterval=0.5) as bar:
        for model in manifest["models"]:
            manager.install(model["name"], lambda _label, _size: bar.update, use=("mirror",))
            done += sum(f["size"] for f in model["files"])
            bar.n = done  # files already installed are skipped without ticking
            bar.refresh()
    names = [m["name"] for m in manifest["models"]]
    print(f"    {len(names)} models in {models_dir}: {', '.join(names) or 'none'}", flush=True)
    return names


def run_models_stage(py: Path, bundle: Path, models_dir: Path | None) -> None:
    """The models stage, run by the new venv's Python (it imports the engine)."""
    cmd = [str(py), str(Path(__file__).resolve()), "models", str(bundle)]
    if models_dir:
        cmd += ["--models-dir", str(models_dir)]
    code, tail = run_streaming(cmd, env=offline_env(), cwd=bundle, prefix="")
    if code != 0:
        errors = [line[len("error: "):] for line in tail if line.startswith("error: ")]
        raise InstallError(errors[-1] if errors else f"installing the models failed (exit {code})")


# -- desktop entry --------------------------------------------------------------------------------
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def _exec_arg(arg: str) -> str:
    """One argument of a desktop entry's Exec key, quoted as the Desktop Entry spec asks."""
    if arg and not any(c in _RESERVED for c in arg):
        return arg
    return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'


def exec_line(args: Sequence[str]) -> str:
    line = " ".join(_exec_arg(a).replace("%", "%%") for a in args)
    return line.replace("\\", "\\\\")  # the value is a desktop-entry string: its backslashes are escaped again


def desktop_entry(exec_args: Sequence[str], icon: Path) -> str:
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.0",
        "Name=Trove",
        "GenericName=Search your own files",
        "Comment=Ask questions over your own files, offline, with cited answers",
        f"Exec={exec_line(exec_args)}",
        f"Icon={icon}",
        "Terminal=false",
        "Categories=Utility;Office;",
        "Keywords=search;ask;files;notes;offline;",
        "StartupNotify=true",
        "",
    ])


def write_desktop_entry(prefix: Path, venv: Path, icon_src: Path, models_dir: Path | None = None) -> Path:
    """`PREFIX/applications/trove.desktop` (Exec=VENV/bin/trove app) and the icon under `PREFIX/icons`."""
    icon = prefix / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    icon.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(icon_src, icon)
    args = [str(venv / "bin" / "trove"), "app"]
    if models_dir:
        args = ["env", f"TROVE_MODELS_DIR={models_dir}", *args]
    entry = prefix / "applications" / f"{APP_ID}.desktop"
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(desktop_entry(args, icon))
    entry.chmod(0o755)
    print(f"    {entry}\n    {icon}", flush=True)
    return entry


def link_command(bin_dir: Path, venv: Path) -> Path | None:
    """`BIN_DIR/trove` -> the venv's `trove`, unless something that is not our link is there."""
    link = bin_dir / "trove"
    if link.exists() and not link.is_symlink():
        print(f"    {link} exists and is not a link: left alone", flush=True)
        return None
    bin_dir.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(venv / "bin" / "trove")
    print(f"    {link} -> {venv / 'bin' / 'trove'}", flush=True)
    return link


# -- command line ---------------------------------------------------------------------------------
def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(prog="install.sh", description="Install Trove from this bundle, with no network.")
    p.add_argument("--bundle", type=Path, default=here, help="the bundle folder (default: this script's folder)")
    p.add_argument("--prefix", type=Path, default=DEFAULT_PREFIX,
                   help="where applications/ and icons/ go, and trove/venv by default (default: ~/.local/share)")
    p.add_argument("--venv", type=Path, default=None, help="the venv to create (default: PREFIX/trove/venv)")
    p.add_argument("--models-dir", type=Path, default=None,
                   help="where models go (default: $TROVE_MODELS_DIR, else $TROVE_HOME/models, else "
                        "~/.local/share/trove/models)")
    p.add_argument("--bin-dir", type=Path, default=None,
                   help="where a `trove` link goes (default: PREFIX/../bin, i.e. ~/.local/bin)")
    p.add_argument("--python", default=None, help="the Python to create the venv with (default: this one)")
    p.add_argument("--no-models", action="store_true", help="install the app only")
    p.add_argument("--no-desktop", action="store_true", help="no desktop entry, icon or `trove` link")
    args = p.parse_args(list(argv))
    args.bundle = args.bundle.expanduser().resolve()
    args.prefix = args.prefix.expanduser().absolute()
    args.venv = (args.venv.expanduser() if args.venv else args.prefix / "trove" / "venv").absolute()
    args.bin_dir = (args.bin_dir.expanduser() if args.bin_dir else args.prefix.parent / "bin").absolute()
    if args.models_dir:
        args.models_dir = args.models_dir.expanduser().absolute()
    return args


def install(args: argparse.Namespace) -> None:
    bundle = args.bundle
    desktop = not args.no_desktop and sys.platform.startswith("linux")
    stages = Stages(3 + (not args.no_models) + desktop)
    with stages.stage("check the bundle"):
        manifest = load_manifest(bundle)
        check_wheels(bundle, manifest)
        if not args.no_models:
            check_model_files(bundle, manifest)
        python = pick_python(args.python, manifest)
    with stages.stage(f"python venv {args.venv}"):
        upgrade = venv_python(args.venv).exists()
        py = make_venv(python, args.venv)
    with stages.stage("packages (pip --no-index, from the bundle's wheels)"):
        install_packages(py, bundle, manifest, upgrade)
    if not args.no_models:
        with stages.stage("models (sha256-checked)"):
            run_models_stage(py, bundle, args.models_dir)
    if desktop:
        with stages.stage("desktop entry and icon"):
            write_desktop_entry(args.prefix, args.venv, bundle / ICON, args.models_dir)
            link_command(args.bin_dir, args.venv)
    print(f"installed Trove {manifest['trove']} in {args.venv} ({stages.summary()})")
    print(f"run: {args.venv / 'bin' / 'trove'} --help")


def models_main(argv: Sequence[str]) -> None:
    p = argparse.ArgumentParser(prog="install.py models", description="Install the bundle's models (in the venv).")
    p.add_argument("bundle", type=Path)
    p.add_argument("--models-dir", type=Path, default=None)
    args = p.parse_args(list(argv))
    from engine.errors import TroveError

    try:
        install_models(args.bundle.resolve(), args.models_dir)
    except TroveError as exc:  # a model refused: one line, as the `trove` command prints it
        raise InstallError(str(exc)) from exc


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["models"]:
            models_main(argv[1:])
        else:
            install(parse_args(argv))
    except InstallError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
