"""Writing SQL grounded in a source's schema, validating it, repairing it from the engine's error
(bounded), and running it read-only."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.native.sources import Source, run, schema_text, validate
from local_stores.table_store import QueryFailed, QueryRefused, QueryResult, TableStore

SYSTEM = """You write one {dialect} SQL query that answers the user's question from the tables below.
Rules:
- Use only the tables and columns shown; quote text values exactly as in the examples of values.
- One SELECT statement only. Never modify data.
- When the answer is a list of rows, also select the _row column so the rows can be cited.
- For counts, totals and averages use COUNT/SUM/AVG; compare text case-insensitively with lower(...).
- Date columns hold DATE values: filter a month with col >= DATE '2024-03-01' AND col < DATE '2024-04-01'.
- Reply with the SQL only, no explanation."""

# Few-shot examples in a domain unlike the user's data, so that they teach the form, not the content.
EXAMPLES = [
    ("CREATE TABLE timesheet (\n  _row BIGINT,\n  work_day DATE,\n  project VARCHAR,\n  hours DOUBLE\n);",
     "How many hours went into the Apollo project in June 2023?",
     "SELECT SUM(hours) AS hours FROM timesheet WHERE lower(project) = 'apollo' "
     "AND work_day >= DATE '2023-06-01' AND work_day < DATE '2023-07-01'"),
    ("CREATE TABLE library (\n  _row BIGINT,\n  title VARCHAR,\n  writer VARCHAR,\n  published BIGINT\n);",
     "Which books by Le Guin do I have, newest first?",
     "SELECT _row, title, published FROM library WHERE lower(writer) LIKE '%le guin%' ORDER BY published DESC"),
    ("CREATE TABLE rides (\n  _row BIGINT,\n  ride_date DATE,\n  distance_km DOUBLE\n);",
     "In which month did I cycle the longest distance?",
     "SELECT strftime(ride_date, '%Y-%m') AS month, SUM(distance_km) AS km FROM rides GROUP BY month "
     "ORDER BY km DESC LIMIT 1"),
]
SQLITE_EXAMPLE_3 = ("SELECT strftime('%Y-%m', ride_date) AS month, SUM(distance_km) AS km FROM rides GROUP BY month "
                    "ORDER BY km DESC LIMIT 1")
_FENCE = re.compile(r"```(?:sql)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass
class SqlAttempt:
    sql: str
    ok: bool
    error: str | None = None


@dataclass
class SqlOutcome:
    source: Source
    sql: str
    result: QueryResult | None
    attempts: list[SqlAttempt]

    @property
    def ok(self) -> bool:
        return self.result is not None


def messages(question: str, source: Source) -> list[dict]:
    shots = []
    for i, (schema, q, sql) in enumerate(EXAMPLES):
        if source.engine == "sqlite" and i == 2:
            sql = SQLITE_EXAMPLE_3
        shots.append(f"Example {i + 1}:\n{schema}\nQuestion: {q}\nSQL: {sql}")
    system = SYSTEM.format(dialect=source.dialect) + "\n\n" + "\n\n".join(shots)
    user = f"The user's tables:\n{schema_text(source)}\n\nQuestion: {question}\nSQL:"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _columns(source: Source) -> str:
    return "; ".join(f"{t['table']}({', '.join(c['name'] for c in t.get('columns', []))})" for t in source.tables)


_TEMPORAL = ("DATE", "TIMESTAMP", "TIME", "TIMESTAMP WITH TIME ZONE")


def cast_temporal_text_ops(sql: str, source: Source) -> str:
    """Small models treat dates as text (`day LIKE '2024-03%'`, `lower(day)`): make that valid by
    casting those columns to text where they meet a text operator. Only columns the schema says are
    temporal are touched."""
    names = {c["name"] for t in source.tables for c in t.get("columns", []) if c.get("type") in _TEMPORAL}
    for name in names:
        col = rf"(?<![\w.\"])({re.escape(name)}|\"{re.escape(name)}\")(?![\w\"])"
        sql = re.sub(col + r"(\s+(?:NOT\s+)?(?:I?LIKE)\b)", r"CAST(\1 AS VARCHAR)\2", sql, flags=re.IGNORECASE)
        sql = re.sub(r"\b(lower|upper|substr|substring|left)\(\s*" + col, r"\1(CAST(\2 AS VARCHAR)", sql,
                     flags=re.IGNORECASE)
    return sql


def extract_sql(reply: str) -> str:
    """The query in a model reply: a fenced block, else the text from its first SELECT/WITH."""
    if m := _FENCE.search(reply):
        reply = m.group(1)
    m = re.search(r"\b(SELECT|WITH)\b", reply, re.IGNORECASE)
    text = reply[m.start():] if m else reply
    return text.strip().split(";")[0].strip()


def write_and_run(llm, question: str, source: Source, store: TableStore, max_tries: int = 3,  # noqa: ANN001
                  timeout_s: float = 10.0, max_rows: int = 50) -> SqlOutcome:
    """Write, validate, repair (feeding the engine's error back), then run; at most `max_tries` writes."""
    convo = messages(question, source)
    attempts: list[SqlAttempt] = []
    sql = ""
    for _ in range(max_tries):
        sql = cast_temporal_text_ops(extract_sql(llm.chat(convo, max_tokens=200)), source)
        try:
            statement = validate(source, sql, store)
            result = run(source, statement, store, timeout_s, max_rows)
        except (QueryFailed, QueryRefused) as exc:
            attempts.append(SqlAttempt(sql, False, str(exc)))
            convo += [{"role": "assistant", "content": sql},
                      {"role": "user", "content": f"That query failed: {str(exc)[:400]}\nUse only these tables and "
                                                  f"columns: {_columns(source)}.\nWrite a corrected query for the "
                                                  f"question: {question}\nSQL:"}]
            continue
        attempts.append(SqlAttempt(sql, True))
        return SqlOutcome(source, statement, result, attempts)
    return SqlOutcome(source, sql, None, attempts)
