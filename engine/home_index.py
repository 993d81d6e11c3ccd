"""The index a Trove home uses: the catalog and the corpora, in the home's SQLite file or, when
`index_backend` names one, on a PostgreSQL server a team shares. The one place that chooses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlean

from engine.errors import TroveError
from local_stores.catalog import Catalog
from local_stores.index_database import IndexDatabase, is_server
from local_stores.sqlite_db import writable

if TYPE_CHECKING:
    from engine.settings import Settings
    from local_stores.corpus_store import CorpusStore


@dataclass(frozen=True)
class HomeIndex:
    db: IndexDatabase
    catalog: Catalog
    corpora: CorpusStore


def backend_problem(backend: str) -> str | None:
    """What is wrong with a shared index's URL before it is tried (not PostgreSQL's, a password in
    it), None when nothing: the checks the index makes when it opens, for the app to say first."""
    from local_stores.postgres_database import safe_url

    try:
        safe_url(backend)
    except ValueError as exc:
        return str(exc)
    return None


def open_index(settings: Settings, read_only: bool | None) -> HomeIndex:
    """The home's index; read-only (`read_only` None: when this process may not write it, e.g. a
    read-only home or a login that may only read the shared index). A home that is not a folder, or
    an index that cannot be opened, is a TroveError."""
    home = settings.home
    if home.exists() and not home.is_dir():
        raise TroveError(f"{home}: not a folder (the Trove home must be a folder)")
    if is_server(settings.index_backend):
        return _on_server(settings, read_only)
    return _in_home(settings, read_only)


def _in_home(settings: Settings, read_only: bool | None) -> HomeIndex:
    from local_stores.sqlite_db import Database
    from local_stores.vector_store import VectorStore

    home, path = settings.home, settings.index_path
    read_only = not writable(path) if read_only is None else read_only
    if read_only and not path.is_file():
        raise TroveError(f"{home}: nothing is indexed here, and this home cannot be written (read-only)")
    try:
        db = Database(path, read_only=read_only)
        return HomeIndex(db, Catalog(db), VectorStore(db))
    except OSError as exc:
        raise TroveError(f"{home}: cannot open this Trove home: {exc.strerror or exc}") from exc
    except sqlean.DatabaseError as exc:
        raise TroveError(f"{path}: cannot open the index: {exc}") from exc


def _on_server(settings: Settings, read_only: bool | None) -> HomeIndex:
    import psycopg

    from local_stores.index_database import IndexUnreachable
    from local_stores.postgres_corpora import PostgresCorpora
    from local_stores.postgres_db import PostgresDb

    try:
        db = PostgresDb(settings.index_backend, read_only=read_only, passfile=settings.index_passfile or None)
        return HomeIndex(db, Catalog(db), PostgresCorpora(db))
    except ValueError as exc:  # the URL holds a password, or is not PostgreSQL's
        raise TroveError(f"index_backend: {exc}") from None
    except IndexUnreachable as exc:
        raise TroveError(str(exc)) from None
    except psycopg.Error as exc:
        raise TroveError(f"{settings.index_backend}: cannot open the shared index: {str(exc).strip()}") from None
