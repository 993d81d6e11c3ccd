"""Query writers, one module per language, chosen by the source's language.

A writer module has: `LANGUAGE`, `EXAMPLES` (few-shot pool of `Example`), `schema_text(source)`,
`messages(question, source, examples, budget)` (fitted to the model's context, see `fitting`; file
content in it neutralised by `engine.generation.untrusted`), `extract(reply)`, `names_hint(source)`
(at most 800 characters), `fix(query, source)` and `check(statement, source)` (a message for a query
the engine accepts but that cannot match, else None). A new language is one module plus one line here.
"""

from __future__ import annotations

from types import ModuleType

from engine.native.writers import cypher, sparql, sql

WRITERS: dict[str, ModuleType] = {"sql": sql, "cypher": cypher, "sparql": sparql}


def writer_for(language: str) -> ModuleType:
    try:
        return WRITERS[language]
    except KeyError:
        raise ValueError(f"no query writer for {language!r} (known: {', '.join(WRITERS)})") from None
