"""Native queries (OmniRetrieval): pick the sources that can answer, write one query per source in
its own language, validate it, run it read-only on its own engine, and turn the rows into cited
evidence. This package holds the SQL path (tables in DuckDB, the user's SQLite/DuckDB files)."""
