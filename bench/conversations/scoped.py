"""Scoped questions over a home of two similar folders (scoped.toml): each question asked inside
each folder it names and once unscoped; citations outside the scope counted (the target is 0)."""

from __future__ import annotations

import shutil
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bench.answers import disk
from bench.answers.judging import judge

SET = Path(__file__).resolve().parent / "scoped.toml"
PHOTOS = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class Ask:
    """One question inside one folder (`folder` None: unscoped), with what the answer must be there."""

    id: str
    text: str
    folder: str | None
    kind: str
    expect: list[str]
    source: str  # relative to the scope disk; "" when nothing there answers it

    def question(self) -> dict:
        return {"text": self.text, "kind": self.kind, "expect": self.expect,
                "source": [self.source] if self.source else []}


def load(path: Path = SET) -> tuple[dict[str, str], list[Ask]]:
    """The folders to build (disk path -> eval path) and every ask; a SystemExit naming the question
    when one is malformed."""
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    folders, asks = dict(data["folders"]), []
    for raw in data.get("question", []):
        scopes = raw.get("in") or {}
        if not raw.get("id") or not raw.get("text") or not scopes:
            raise SystemExit(f"{path.name}: question {raw.get('id', '?')}: needs an id, a text and `in`")
        for folder, wanted in scopes.items():
            kind = wanted.get("kind", raw["kind"])
            source = wanted.get("source", "")
            if kind != "unanswerable" and not source:
                raise SystemExit(f"{path.name}: question {raw['id']} in {folder}: no source")
            asks.append(Ask(raw["id"], raw["text"], folder, kind, list(wanted.get("expect", [])), source))
        answerable = [a for a in asks if a.id == raw["id"] and a.source]
        if len(answerable) == 1:  # unscoped, a question only one folder answers still has its answer
            only = answerable[0]
            asks.append(Ask(only.id, only.text, None, only.kind, only.expect, only.source))
        else:
            asks.append(Ask(raw["id"], raw["text"], None, "", [], ""))
    return folders, asks


def build(dest: Path, folders: dict[str, str]) -> None:
    """Copy each file (or a folder's photos) from ../shared/eval onto `dest`."""
    if not disk.EVAL.is_dir():
        raise SystemExit(f"{disk.EVAL}: the shared eval data is not here; the scope part needs it")
    for target, origin in folders.items():
        src = disk.EVAL / origin
        files = [src] if src.is_file() else sorted(p for p in src.iterdir() if p.suffix.lower() in PHOTOS)
        for f in files:
            out = dest / target if src.is_file() else dest / target / f.name
            if not (out.is_file() and out.stat().st_size == f.stat().st_size):
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, out)


def open_home(work: Path, llm: str, reindex: bool, models=None):  # noqa: ANN001, ANN201 (Models, Trove)
    from engine.pipeline import Trove
    from engine.settings import default_home, default_models_dir, load_settings

    home, root = work / "home-scope", work / "scope-disk"
    if reindex and home.exists():
        shutil.rmtree(home)
    folders, _ = load()
    build(root, folders)
    trove = Trove(load_settings(home, models_dir=default_models_dir(default_home()), llm=llm), models=models)
    t0 = time.perf_counter()
    report = trove.index([root])
    print(f"scope home: {report.items} new items in {time.perf_counter() - t0:.0f} s; {report.failed} files failed",
          file=sys.stderr, flush=True)
    return trove


def outside(result: dict, root: Path, folder: str) -> list[str]:
    """The cited files that are not under `folder` of the scope disk."""
    inside = (root / folder).resolve()
    return sorted({c["source"] for c in result["citations"] if not Path(c["source"]).resolve().is_relative_to(inside)})


def run(trove, root: Path, asks: list[Ask]) -> list[dict]:  # noqa: ANN001
    from engine.errors import TroveError
    from engine.scope import Scope

    rows = []
    for i, ask in enumerate(asks, start=1):
        scope = Scope(paths=(str(root / ask.folder),)) if ask.folder else None
        t0 = time.perf_counter()
        try:
            result = trove.ask(ask.text, scope=scope).to_dict()
        except TroveError as exc:
            result = {"answer": f"ERROR {exc}", "citations": [], "answered": False, "general": False}
        seconds = time.perf_counter() - t0
        row = {"id": ask.id, "folder": ask.folder, "text": ask.text, "kind": ask.kind, "seconds": seconds,
               "result": result, "verdict": judge(result, ask.question()).as_dict() if ask.kind else None}
        if ask.folder:
            row["outside"] = outside(result, root, ask.folder)
        else:
            row["folders_cited"] = sorted({Path(c["source"]).resolve().relative_to(root.resolve()).parts[0]
                                           for c in result["citations"]
                                           if Path(c["source"]).resolve().is_relative_to(root.resolve())})
        rows.append(row)
        mark = "·" if row["verdict"] is None else "✓" if row["verdict"]["correct"] else "✗"
        print(f"[scope {i}/{len(asks)}] {ask.id} in {ask.folder or 'everything'}: {mark}"
              f"{' OUTSIDE ' + ', '.join(row['outside']) if row.get('outside') else ''}", file=sys.stderr, flush=True)
    rows.append(_empty_scope(trove, root))
    return rows


def _empty_scope(trove, root: Path) -> dict:  # noqa: ANN001
    """A folder on the followed disk that holds nothing: refused before anything is asked."""
    from engine.errors import TroveError
    from engine.scope import Scope

    empty = root / "2025"
    empty.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    try:
        trove.ask("Which nation won the most gold medals?", scope=Scope(paths=(str(empty),)))
        refused = ""
    except TroveError as exc:
        refused = str(exc)
    return {"id": "empty-scope", "folder": "2025", "refused": refused, "seconds": time.perf_counter() - t0}


def summarise(rows: list[dict]) -> dict:
    scoped = [r for r in rows if r.get("folder") and "verdict" in r]
    unscoped = [r for r in rows if r.get("folder") is None]
    graded = [r for r in unscoped if r["verdict"] is not None]
    empty = next(r for r in rows if r["id"] == "empty-scope")
    twins = [r for r in unscoped if r["verdict"] is None]
    return {
        "scoped": {"n": len(scoped), "correct": _share(scoped, lambda r: r["verdict"]["correct"]),
                   "wrong_cited": _share(scoped, lambda r: r["verdict"]["wrong_cited"]),
                   "outside": sum(bool(r["outside"]) for r in scoped),
                   "outside_citations": sum(len(r["outside"]) for r in scoped)},
        "unscoped": {"n": len(unscoped), "graded": len(graded),
                     "correct": _share(graded, lambda r: r["verdict"]["correct"]),
                     "both_folders": _share(twins, lambda r: len(r["folders_cited"]) > 1), "twins": len(twins)},
        "empty_scope_refused": bool(empty["refused"]), "empty_scope_message": empty["refused"],
    }


def _share(rows: list[dict], test) -> float:  # noqa: ANN001
    return sum(bool(test(r)) for r in rows) / len(rows) if rows else 0.0


def _refused(summary: dict) -> str:
    if summary["empty_scope_refused"]:
        return f"refused before asking ({summary['empty_scope_message']!r})"
    return "NOT refused"


def render(summary: dict, rows: list[dict]) -> list[str]:
    s, u = summary["scoped"], summary["unscoped"]
    lines = ["A home of two similar folders, 2023/ and 2024/ (bench/conversations/scoped.toml).", "",
             "| | n | correct (values + citation) | wrong with a citation | answers citing outside the scope |",
             "|---|---:|---:|---:|---:|",
             f"| scoped (`--in 2023` / `--in 2024`) | {s['n']} | {s['correct']:.0%} | {s['wrong_cited']:.0%} | "
             f"{s['outside']} ({s['outside_citations']} citations) |",
             f"| unscoped, questions one folder answers | {u['graded']} | {u['correct']:.0%} | | |", "",
             f"Unscoped, the {u['twins']} questions whose answer differs by folder cited both folders in "
             f"{u['both_folders']:.0%} of answers. A scope over a folder that holds nothing: {_refused(summary)}.",
             "", f"Target: no scoped answer cites outside its scope — {'met' if s['outside'] == 0 else 'NOT met'}.", ""]
    wrong = [r for r in rows if r.get("folder") and r.get("verdict") and (not r["verdict"]["correct"] or r["outside"])]
    lines += ["Scoped questions Trove got wrong:", ""] if wrong else []
    for r in wrong:
        lines.append(f"- `{r['id']}` in {r['folder']}: {r['result']['answer'][:160]!r}"
                     f"{' — cites outside: ' + ', '.join(r['outside']) if r['outside'] else ''}")
    return lines + [""]
