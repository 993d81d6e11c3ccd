"""The `trove` commands: index, remove, status, search, sql, query, route, ask, models, demo, app."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine import shapes
from engine.cli.base import (
    HOME_OPTION,
    ask_live,
    ask_served,
    cli,
    echo_json,
    open_trove,
    said,
    scope_of,
    scope_options,
    served,
    settings_for,
)
from engine.connections import holdings
from engine.errors import TroveError
from engine.result import citation_place

if TYPE_CHECKING:
    from engine import Progress, Trove
    from engine.models import ModelManager
    from engine.scope import Scope
    from engine.service.client import Client
    from local_stores.results import QueryResult


# -- index / status ----------------------------------------------------------------------------
@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def index(paths: tuple[Path, ...], home: Path | None, as_json: bool) -> None:
    """Index PATHS (folders or files) and re-index every folder added before: only new and
    changed files are read; deleted ones are removed."""
    from tqdm import tqdm

    trove = open_trove(home)
    bars: list[tqdm] = []  # made on the first progress: an error before any (a lock held) stays one line

    def progress(p: Progress) -> None:
        if not bars:
            bars.append(tqdm(total=0, unit="file", file=sys.stderr, disable=as_json or None, dynamic_ncols=True))
        bar = bars[0]
        if bar.total != p.total:
            bar.total = p.total
        bar.n = p.done
        bar.set_postfix_str(Path(p.path).name[-40:] if p.path else p.stage)
        bar.refresh()

    report = trove.index(paths, progress)
    for bar in bars:
        bar.close()
    if as_json:
        echo_json(report.as_dict())
        return
    click.echo(f"{report.seen} files: {report.indexed} indexed, {report.unchanged} unchanged, "
               f"{report.skipped} skipped, {report.failed} failed, {report.removed} removed; "
               f"{report.items} items written" + (f"; {report.ocr_pages} scanned pages read with OCR"
                                                  if report.ocr_pages else ""))
    timing = ", ".join(f"{k} {v:.1f}s" for k, v in sorted(report.timings_s.items(), key=lambda kv: -kv[1]))
    if timing:
        click.echo(f"time: {timing}")
    for path, state, reason in report.problems:
        click.echo(f"  {state}: {path}: {reason}")


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@HOME_OPTION
def remove(path: Path, home: Path | None) -> None:
    """Stop following PATH (a folder or file added with `trove index`); its items are removed.
    Your files are never touched."""
    n = open_trove(home).remove(path)
    click.echo(f"removed {path}: {n} files left the index")


@cli.command()
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def status(home: Path | None, as_json: bool) -> None:
    """What is indexed, what was skipped or failed and why, which models are installed."""
    info = open_trove(home).status()
    if as_json:
        echo_json(info)
        return
    click.echo(f"home: {info['home']}")
    if info["index"].startswith(("postgresql://", "postgres://")):
        click.echo(f"shared index: {info['index']}")
    for root in info["roots"]:
        click.echo(f"folder: {root}")
    files = info["files"]
    click.echo(f"files: {files['indexed']} indexed, {files['skipped']} skipped, {files['failed']} failed")
    for kind, states in sorted(info["by_kind"].items()):
        click.echo(f"  {kind:10} " + ", ".join(f"{n} {s}" for s, n in sorted(states.items())))
    for corpus, n in sorted(info["corpora"].items()):
        click.echo(f"corpus {corpus}: {n} items")
    if info["ocr_pages"]["pages"]:
        click.echo(f"scanned pages read with OCR: {info['ocr_pages']['pages']} in {info['ocr_pages']['files']} files")
    for t in info["tables"]:
        click.echo(f"table {t['name']} ({t['rows']} rows: {', '.join(t['columns'])}) <- {t['file']}")
        for w in t["warnings"]:
            click.echo(f"  warning: {w}")
    for d in info["databases"]:
        tables = ", ".join(f"{name} ({rows})" for name, rows in d["tables"].items())
        click.echo(f"database {d['name']} [{d['engine']}, read in place]: {tables} <- {d['file']}")
    for g in info["graphs"]:
        nodes = ", ".join(f"{label} ({n})" for label, n in g["nodes"].items())
        rels = ", ".join(f"{rel} ({n})" for rel, n in g["relationships"].items())
        click.echo(f"graph {g['name']} [kuzu, from {g['format']}]: {nodes}; {rels} <- {g['file']}")
        for w in g["warnings"]:
            click.echo(f"  warning: {w}")
    for r in info["rdf"]:
        click.echo(f"rdf {r['name']} [oxigraph]: {r['triples']} triples, {r['classes']} classes <- {r['file']}")
    for c in info.get("connections", []):
        click.echo(f"connection {c['name']} [{c['kind']}, queried on the server]: {holdings(c)} <- {c['url']}")
    for p in info["packs"]:
        click.echo(f"knowledge pack {p['name']}: {', '.join(p['entities'])} <- {p['file']}")
    for role, effect in sorted(info["vision_missing"].items()):
        click.echo(f"  no {role} model: {effect}")
    for p in info["problems"]:
        click.echo(f"  {p['state']}: {p['path']}: {p['reason']}")
    for role, name in sorted(info["models"].items()):
        click.echo(f"model {role}: {name}")


@cli.command()
@click.argument("name")
@click.argument("url")
@click.option("--kind", default="postgres", show_default=True,
              help="The kind of server: postgres (postgresql://USER@HOST:PORT/DB), sparql (an endpoint's URL) "
                   "or cypher (falkordb://HOST:PORT/GRAPH).")
@click.option("--schema", "schemas", multiple=True,
              help="A schema to offer to questions (default: public); repeatable.")
@click.option("--passfile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A password file (0600) for the login; otherwise PGPASSWORD or ~/.pgpass, as libpq reads them.")
@click.option("--allow-writable-role", "allow_writable", is_flag=True,
              help="Connect even if the login could write (queries still run in read-only transactions).")
@HOME_OPTION
def connect(name: str, url: str, kind: str, schemas: tuple[str, ...], passfile: str | None, allow_writable: bool,
            home: Path | None) -> None:
    """Add a source on a server as NAME: a PostgreSQL database (URL postgresql://USER@HOST:PORT/DATABASE,
    no password in it), a SPARQL endpoint (--kind sparql) or a FalkorDB graph (--kind cypher). It is
    described now and then asked like your files, read-only."""
    trove = open_trove(home)
    trove.connect(name, url, kind, {"schemas": list(schemas), "passfile": passfile}, allow_writable)
    connected = next(c for c in trove.connections() if c["name"] == name)
    click.echo(f"connected {name} [{kind}]: {holdings(connected) or 'nothing described yet'}")


@cli.command()
@click.argument("name")
@HOME_OPTION
def disconnect(name: str, home: Path | None) -> None:
    """Forget the connected source NAME (nothing on the server changes)."""
    open_trove(home).disconnect(name)
    click.echo(f"disconnected {name}")


# -- search / ask ------------------------------------------------------------------------------
@cli.command()
@click.argument("query")
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True, help="How many results.")
# engine.routing.labels.GRANULARITIES, written out: importing the routing package here would slow every command
@click.option("--granularity", type=click.Choice(["paragraph", "document", "image", "region", "clip", "video"]),
              default="paragraph", show_default=True)
@scope_options(files_only=True)
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def search(query: str, k: int, granularity: str, in_paths: tuple[Path, ...], since: str | None, until: str | None,
           home: Path | None, as_json: bool) -> None:
    """Retrieval only (no LLM): ranked items with scores and locators (of the files in a scope, when
    --in, --since or --until give one)."""
    from engine.routing.labels import LABELS

    said(query, "query")
    corpus = LABELS[granularity]
    assert corpus is not None  # every --granularity choice names a corpus
    scope = scope_of(in_paths, since=since, until=until)
    rows = _search_served(served(home), query, k, granularity, scope)
    if rows is None:
        rows = shapes.hits(open_trove(home).search(query, k, corpus, scope=scope))
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no results")
    for r in rows:
        where = citation_place(r["source"], r["locator"])
        snippet = " ".join(r["text"].split())[:160]
        click.echo(f"{r['rank']:2}. {r['score']:.4f}  {where}  [{r['heading'] or r['title']}]\n    {snippet}")


def _search_served(client: Client | None, query: str, k: int, granularity: str, scope: Scope | None
                   ) -> list[dict] | None:
    """`search`'s rows from the running server; None when there is none, or it did not answer."""
    from engine.service.client import Unreachable

    if client is None:
        return None
    try:
        found = client.post("/search", {"query": query, "k": k, "granularity": granularity,
                                        **({"scope": scope.as_dict()} if scope else {})})
    except Unreachable:
        return None
    return found  # type: ignore[return-value]


@cli.command()
@click.argument("query")
@click.option("--source", default=None, help="A database file's source name (trove status); default: the tables.")
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def sql(query: str, source: str | None, home: Path | None, as_json: bool) -> None:
    """Run one read-only SELECT over your indexed tables (see `trove status` for their names)."""
    _print_result(lambda trove: trove.sql(query, source), home, as_json)


@cli.command()
@click.argument("source")
@click.argument("query")
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def query(source: str, query: str, home: Path | None, as_json: bool) -> None:
    """Run one read-only QUERY on SOURCE in its own language: SQL for tables and databases, Cypher
    for graphs, SPARQL for RDF (names in `trove status`)."""
    _print_result(lambda trove: trove.query(source, query), home, as_json)


def _print_result(run: Callable[[Trove], QueryResult], home: Path | None, as_json: bool) -> None:
    from engine.native.hits import cell
    from local_stores.results import QueryFailed, QueryRefused

    try:
        result = run(open_trove(home))
    except (QueryRefused, QueryFailed) as exc:
        raise TroveError(str(exc)) from exc
    if as_json:
        echo_json(shapes.query_result(result))
        return
    click.echo(" | ".join(result.columns))
    for row in result.rows:
        click.echo(" | ".join("" if v is None else cell(v) for v in row))
    if result.truncated:
        click.echo(f"(first {len(result.rows)} rows)")


@cli.command()
@click.argument("question")
@click.option("--router", default=None, help="Which router, by name (default: the `router` setting); an unknown "
              "name lists those there are.")
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def route(question: str, router: str | None, home: Path | None, as_json: bool) -> None:
    """Which corpora QUESTION would go to, with confidences and the router that decided; nothing is
    retrieved or answered. Only corpora your index has are considered."""
    import time

    from engine.routing import ROUTERS

    said(question)
    if router is not None and router not in ROUTERS:
        raise click.BadParameter(f"{router!r}: choose one of {', '.join(ROUTERS)}", param_hint="--router")
    trove = open_trove(home, **({"router": router} if router else {}))
    t0 = time.perf_counter()
    routes = trove.route(question)
    ms = (time.perf_counter() - t0) * 1000
    if as_json:
        echo_json(shapes.routes(question, routes, ms))
        return
    for r in routes:
        click.echo(f"{r.label:10} {r.confidence:.2f}  ({r.router})")
    click.echo(click.style(f"  {ms:.0f} ms", dim=True))


@cli.command()
@click.argument("question")
@click.option("--image", type=click.Path(exists=True, path_type=Path), default=None,
              help="A photo to ask about (arrives with photo support).")
@click.option("--llm", default=None, help="default | fast | smoke | a model name from `trove models list`.")
@click.option("--follow-up", "follow_up", is_flag=True, help="Continue the last conversation (a follow-up question).")
@click.option("--conversation", "conversation_id", type=int, default=None,
              help="Continue conversation ID (see `trove conversations list`).")
@scope_options()
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def ask(question: str, image: Path | None, llm: str | None, follow_up: bool, conversation_id: int | None,
        in_paths: tuple[Path, ...], sources: tuple[str, ...], kinds: tuple[str, ...], since: str | None,
        until: str | None, home: Path | None, as_json: bool) -> None:
    """Answer QUESTION from your files, citing where each fact comes from. Each question starts a
    conversation (kept in the home) unless it continues one; a scope (--in, --source, --kind,
    --since, --until) keeps it, and the conversation it starts, inside part of the disk."""
    said(question)
    scope = scope_of(in_paths, sources, kinds, since, until)
    client = served(home) if llm is None and image is None else None
    if client is not None:
        body = {"question": question, "conversation": conversation_id, "follow_up": follow_up,
                **({"scope": scope.as_dict()} if scope else {})}
        if ask_served(client, body, as_json):
            return
    trove = open_trove(home, llm=llm)
    conversation = trove.conversation(conversation_id, question, scope, follow_up=follow_up)
    if as_json:
        echo_json(shapes.answer(trove.ask(question, image=image, conversation=conversation, scope=scope),
                                conversation.id))
        return
    ask_live(trove, question, image, conversation, scope)


# -- models ------------------------------------------------------------------------------------
@cli.group()
def models() -> None:
    """List, install, import and verify models."""


def _manager(home: Path | None) -> ModelManager:
    from engine.models import ModelManager

    return ModelManager(settings_for(home).models_folder)


@models.command("list")
@HOME_OPTION
@click.option("--json", "as_json", is_flag=True)
def models_list(home: Path | None, as_json: bool) -> None:
    """Every role, its candidate models and whether they are installed."""
    manager = _manager(home)
    rows: list[dict] = []
    for spec in manager.catalog.models:
        states = [manager.status_of(spec, f).state for f in spec.files]
        state = "installed" if all(s in ("installed", "unverified") for s in states) else (
            "corrupt" if "corrupt" in states else "missing")
        size = sum(f.size or 0 for f in spec.files)
        rows.append({"role": spec.role, "name": spec.name, "tags": list(spec.tags), "state": state,
                     "size_mb": round(size / 2**20, 1), "licence": spec.licence})
    filled = {r["role"] for r in rows if r["state"] == "installed"}
    empty = [role for role in manager.catalog.roles if role not in filled]
    if as_json:
        echo_json({"models": rows, "empty_roles": empty, "models_dir": str(manager.models_dir)})
        return
    click.echo(f"models folder: {manager.models_dir}")
    for r in rows:
        click.echo(f"  {r['role']:20} {r['name']:38} {','.join(r['tags']):14} {r['size_mb']:8.1f} MB  {r['state']}")
    for role in empty:
        click.echo(f"  {role:20} (nothing installed: {manager.catalog.roles[role]})")


@models.command("install")
@click.argument("targets", nargs=-1, required=True)
@click.option("--from", "use", type=click.Choice(["any", "mirror", "pypi", "url"]), default="any",
              show_default=True, help="Only this kind of source.")
@HOME_OPTION
def models_install(targets: tuple[str, ...], use: str, home: Path | None) -> None:
    """Install TARGETS: roles (llm, text-embedder), role:tag (llm:fast) or model names."""
    from tqdm import tqdm

    manager = _manager(home)
    sources = ("mirror", "pypi", "url") if use == "any" else (use,)
    bars: list[tqdm] = []

    def progress(label: str, total: int | None) -> Callable[[int], None]:
        bar = tqdm(total=total, unit="B", unit_scale=True, desc=label[-48:], file=sys.stderr, leave=False)
        bars.append(bar)
        return bar.update

    for target in targets:
        paths = manager.install(target, progress, use=sources)
        for bar in bars:
            bar.close()
        bars.clear()
        click.echo(f"{target}: " + ", ".join(str(p) for p in paths))


@models.command("import")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--role", default=None, help="Role of a model not in the catalog (e.g. vlm, image-text-embedder).")
@click.option("--name", default=None, help="Name for a model not in the catalog.")
@HOME_OPTION
def models_import(path: Path, role: str | None, name: str | None, home: Path | None) -> None:
    """Import model files from PATH (a file, a folder, a USB stick), hash-checked."""
    names = _manager(home).import_path(path, role=role, name=name)
    click.echo("imported: " + ", ".join(names))


@models.command("verify")
@HOME_OPTION
def models_verify(home: Path | None) -> None:
    """Re-hash every installed model file; exit 1 when one is corrupt."""
    bad = 0
    for st in _manager(home).status(full=True):
        if st.state == "missing":
            continue
        click.echo(f"  {st.state:9} {st.model}/{st.file}" + (f": {st.detail}" if st.detail else ""))
        bad += st.state == "corrupt"
    if bad:
        raise click.ClickException(f"{bad} corrupt file(s): reinstall with trove models install NAME")


# -- demo ---------------------------------------------------------------------------------------
@cli.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path), default="examples")
@HOME_OPTION
@click.option("--llm", default=None)
def demo(folder: Path, home: Path | None, llm: str | None) -> None:
    """Index FOLDER (the bundled examples) and answer its questions.toml with citations."""
    trove = open_trove(home, llm=llm)
    report = trove.index([folder])
    click.echo(f"indexed {folder}: {report.indexed} new/changed, {report.unchanged} unchanged, "
               f"{report.skipped + report.failed} not indexed\n")
    questions_file = folder / "questions.toml"
    with questions_file.open("rb") as fh:
        questions = tomllib.load(fh)["question"]
    for q in questions:
        click.echo(click.style(f"Q: {q['text']}", bold=True))
        ask_live(trove, q["text"])
        click.echo()


@cli.command()
@HOME_OPTION
def app(home: Path | None) -> None:
    """Open the desktop app: sources, questions with clickable citations, models."""
    try:
        from desktop.app import main as app_main
    except ImportError as exc:
        if not (exc.name or "").startswith(("PySide6", "shiboken6")):
            raise
        raise click.ClickException("the desktop app needs PySide6: pip install PySide6-Essentials==6.11.3 "
                                   "(and PySide6-Addons==6.11.3 to play videos)") from exc
    sys.exit(app_main(home, sys.argv[:1]))



