"""Native queries (OmniRetrieval): pick the sources that can answer, write one query per source in
its own language, validate it, run it read-only on its own engine, and turn the rows into cited
evidence. One registry (kinds) says which native store runs each kind of source: tables in DuckDB,
the user's SQLite/DuckDB files, property graphs in Kùzu, RDF in Oxigraph."""
