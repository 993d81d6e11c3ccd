"""Answering with native queries: write a query in the source's language (grounded in its
schema, few-shot examples chosen per question), validate it on the engine, repair it from the
engine's error (bounded), and run it read-only."""

from __future__ import annotations

from dataclasses import dataclass

from engine.native.examples import Example
from engine.native.sources import Source, Stores, run, validate
from engine.native.writers import writer_for
from local_stores.table_store import QueryFailed, QueryRefused, QueryResult


@dataclass
class QueryAttempt:
    query: str
    ok: bool
    error: str | None = None


@dataclass
class QueryOutcome:
    source: Source
    query: str
    result: QueryResult | None
    attempts: list[QueryAttempt]

    @property
    def ok(self) -> bool:
        return self.result is not None

    @property
    def language(self) -> str:
        return self.source.language


def write_and_run(llm, question: str, source: Source, stores: Stores, max_tries: int = 3,  # noqa: ANN001
                  timeout_s: float = 10.0, max_rows: int = 50, examples: list[Example] | None = None
                  ) -> QueryOutcome:
    """Write, validate, repair (feeding the engine's error back), then run; at most `max_tries` writes."""
    writer = writer_for(source.language)
    convo = writer.messages(question, source, examples)
    attempts: list[QueryAttempt] = []
    query = ""
    for _ in range(max_tries):
        query = writer.fix(writer.extract(llm.chat(convo, max_tokens=220)), source)
        try:
            statement = validate(source, query, stores)
            result = run(source, statement, stores, timeout_s, max_rows)
        except (QueryFailed, QueryRefused) as exc:
            attempts.append(QueryAttempt(query, False, str(exc)))
            convo += [{"role": "assistant", "content": query},
                      {"role": "user", "content": f"That query failed: {str(exc)[:400]}\nUse only these "
                                                  f"{writer.names_hint(source)}.\nWrite a corrected query for the "
                                                  f"question: {question}\n{_label(source.language)}:"}]
            continue
        attempts.append(QueryAttempt(query, True))
        return QueryOutcome(source, statement, result, attempts)
    return QueryOutcome(source, query, None, attempts)


def _label(language: str) -> str:
    return {"sql": "SQL", "cypher": "Cypher", "sparql": "SPARQL"}.get(language, language)
