"""SQL writing grounded in a source's schema (DuckDB for Trove's tables, SQLite or DuckDB for the
user's own databases), with few-shot examples chosen per question."""

from __future__ import annotations

import re
from pathlib import Path

from engine.native.examples import Example

LANGUAGE = "sql"
SYSTEM = """You write one {dialect} SQL query that answers the user's question from the tables below.
Rules:
- Use only the tables and columns shown; quote text values exactly as in the examples of values.
- One SELECT statement only. Never modify data.
- When the answer is a list of rows, also select the _row column so the rows can be cited.
{row_rules}- For counts, totals and averages use COUNT/SUM/AVG; compare text case-insensitively with lower(...).
- Date columns hold DATE values: filter a month with col >= DATE '2024-03-01' AND col < DATE '2024-04-01'.
- Reply with the SQL only, no explanation."""

# For Trove's own tables, which keep each row's number in its file:
ROW_RULES = """- "The first/last one", "the top of the list", "listed before/after" mean the order of the rows
  in the file: _row.
"""

_TIMESHEET = "CREATE TABLE timesheet (\n  _row BIGINT,\n  work_day DATE,\n  project VARCHAR,\n  hours DOUBLE\n);"
_LIBRARY = "CREATE TABLE library (\n  _row BIGINT,\n  title VARCHAR,\n  writer VARCHAR,\n  published BIGINT\n);"
_RIDES = "CREATE TABLE rides (\n  _row BIGINT,\n  ride_date DATE,\n  distance_km DOUBLE\n);"
_SCHOOL = ("CREATE TABLE teacher (\n  teacher_id INTEGER,\n  name TEXT,\n  age INTEGER\n);\n"
           "CREATE TABLE course (\n  course_id INTEGER,\n  title TEXT,\n  teacher_id INTEGER,\n"
           "  FOREIGN KEY (teacher_id) REFERENCES teacher(teacher_id)\n);")
_PLANTS = "CREATE TABLE plant (\n  plant_id INTEGER,\n  name TEXT,\n  family TEXT,\n  height_cm REAL\n);"

# Examples in domains unlike the user's data, so that they teach the form, not the content.
EXAMPLES = [
    Example(_TIMESHEET, "How many hours went into the Apollo project in June 2023?",
            "SELECT SUM(hours) AS hours FROM timesheet WHERE lower(project) = 'apollo' "
            "AND work_day >= DATE '2023-06-01' AND work_day < DATE '2023-07-01'", ("duckdb",)),
    Example(_LIBRARY, "Which books by Le Guin do I have, newest first?",
            "SELECT _row, title, published FROM library WHERE lower(writer) LIKE '%le guin%' ORDER BY published DESC"),
    Example(_RIDES, "In which month did I cycle the longest distance?",
            "SELECT strftime(ride_date, '%Y-%m') AS month, SUM(distance_km) AS km FROM rides GROUP BY month "
            "ORDER BY km DESC LIMIT 1", ("duckdb",)),
    Example(_RIDES, "In which month did I cycle the longest distance?",
            "SELECT strftime('%Y-%m', ride_date) AS month, SUM(distance_km) AS km FROM rides GROUP BY month "
            "ORDER BY km DESC LIMIT 1", ("sqlite",)),
    Example(_SCHOOL, "Which teacher teaches the most courses?",
            "SELECT t.name, COUNT(*) AS courses FROM teacher t JOIN course c ON c.teacher_id = t.teacher_id "
            "GROUP BY t.teacher_id, t.name ORDER BY courses DESC LIMIT 1"),
    Example(_SCHOOL, "List the names of teachers who do not teach any course.",
            "SELECT name FROM teacher WHERE teacher_id NOT IN (SELECT teacher_id FROM course)"),
    Example(_SCHOOL, "How many teachers are older than 40?", "SELECT COUNT(*) FROM teacher WHERE age > 40"),
    Example(_SCHOOL, "What is the average age of teachers who teach a course titled Algebra?",
            "SELECT AVG(t.age) FROM teacher t JOIN course c ON c.teacher_id = t.teacher_id "
            "WHERE lower(c.title) = 'algebra'"),
    Example(_LIBRARY, "Which book is listed right after Dune?",
            "SELECT _row, title FROM library WHERE _row > (SELECT _row FROM library WHERE lower(title) = 'dune') "
            "ORDER BY _row LIMIT 1", ("duckdb",)),
    Example(_LIBRARY, "What is the last book on the list?",
            "SELECT _row, title FROM library ORDER BY _row DESC LIMIT 1", ("duckdb",)),
    Example(_PLANTS, "Which plant families have more than three plants?",
            "SELECT family, COUNT(*) AS plants FROM plant GROUP BY family HAVING COUNT(*) > 3"),
    Example(_PLANTS, "What is the name of the tallest plant?",
            "SELECT name FROM plant ORDER BY height_cm DESC LIMIT 1"),
    Example(_PLANTS, "How many different plant families are there?", "SELECT COUNT(DISTINCT family) FROM plant"),
    Example(_PLANTS, "Show the name and height of plants taller than the average plant.",
            "SELECT name, height_cm FROM plant WHERE height_cm > (SELECT AVG(height_cm) FROM plant)"),
]
DEFAULT_EXAMPLES = 3
_FENCE = re.compile(r"```(?:sql)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def _value(v: object) -> str:
    return repr(v) if isinstance(v, str) else str(v)


def schema_text(source) -> str:  # noqa: ANN001 (engine.native.sources.Source)
    """CREATE TABLE statements with sample values and original headers as comments."""
    out = []
    for table in source.tables:
        cols = []
        for c in table.get("columns", []):
            notes = []
            if c.get("label"):
                notes.append(f"header {c['label']!r}")
            if c.get("values"):
                notes.append("values: " + ", ".join(_value(v) for v in c["values"]))
            elif c.get("samples"):
                notes.append("e.g. " + ", ".join(_value(v) for v in c["samples"][:3]))
            if c["name"] == "_row":
                notes = ["original row number in the file"]
            cols.append(f"  {c['name']} {c['type']}" + (f"  -- {'; '.join(notes)}" if notes else ""))
        for fk in table.get("foreign_keys", []):
            cols.append(f"  FOREIGN KEY ({fk['column']}) REFERENCES {fk['references']}")
        where = Path(source.location).name + (f", sheet {table['sheet']!r}" if table.get("sheet") else "")
        out.append(f"-- from {where}, {table.get('rows', '?')} rows\nCREATE TABLE {table['table']} (\n"
                   + ",\n".join(cols) + "\n);")
    return "\n".join(out)


def default_examples(source) -> list[Example]:  # noqa: ANN001
    usable = [e for e in EXAMPLES if not e.engines or source.engine in e.engines]
    return usable[:DEFAULT_EXAMPLES]


def messages(question: str, source, examples: list[Example] | None = None) -> list[dict]:  # noqa: ANN001
    shots = [f"Example {i}:\n{e.schema}\nQuestion: {e.question}\nSQL: {e.query}"
             for i, e in enumerate(examples if examples is not None else default_examples(source), start=1)]
    rows = any(c["name"] == "_row" for t in source.tables for c in t.get("columns", []))
    system = SYSTEM.format(dialect=source.dialect, row_rules=ROW_RULES if rows else "") + "\n\n" + "\n\n".join(shots)
    user = f"The user's tables:\n{schema_text(source)}\n\nQuestion: {question}\nSQL:"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def names_hint(source) -> str:  # noqa: ANN001
    return "tables and columns: " + "; ".join(
        f"{t['table']}({', '.join(c['name'] for c in t.get('columns', []))})" for t in source.tables)


_TEMPORAL = ("DATE", "TIMESTAMP", "TIME", "TIMESTAMP WITH TIME ZONE")


def fix(sql: str, source) -> str:  # noqa: ANN001
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


def extract(reply: str) -> str:
    """The query in a model reply: a fenced block, else the text from its first SELECT/WITH."""
    if m := _FENCE.search(reply):
        reply = m.group(1)
    m = re.search(r"\b(SELECT|WITH)\b", reply, re.IGNORECASE)
    text = reply[m.start():] if m else reply
    return text.strip().split(";")[0].strip()


def check(statement: str, source) -> str | None:  # noqa: ANN001, ARG001
    """Nothing to add: the engine's EXPLAIN already names unknown tables and columns."""
    return None
