"""Quoting for every statement Trove composes itself, one module per engine.

Values always travel as bound parameters. Where an engine cannot take a parameter (an identifier, a
`COMMENT ON` text, a Kùzu `CALL` argument, a SPARQL term), text goes into a statement only through
the functions of these modules, which escape the engine's quote characters or refuse what cannot
be quoted. Their results are `Quoted`: text that is safe to paste into a statement of that engine.
`tests/local_stores/test_statement_lint.py` fails on statement text built any other way.

- `duckdb_sql`: DuckDB (Trove's tables, the user's DuckDB files)
- `sqlite_sql`: SQLite (the index, the catalog, the user's SQLite files; FTS5 match expressions)
- `kuzu_cypher`: Kùzu's Cypher (graphs)
- `sparql`: SPARQL (Oxigraph stores)
- `postgres_sql`: PostgreSQL (a server's database; psycopg's placeholders)
"""

from __future__ import annotations

from typing import NewType

Quoted = NewType("Quoted", str)


class Unquotable(ValueError):
    """A name that cannot be written into a statement of the engine at all."""
