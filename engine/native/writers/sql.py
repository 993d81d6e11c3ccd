"""SQL writing grounded in a source's schema (DuckDB for Trove's tables, SQLite or DuckDB for the
user's own databases), with few-shot examples chosen per question."""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING

from engine.generation.budget import Budget
from engine.generation.untrusted import inline, quoted
from engine.native import periods
from engine.native.examples import Example
from engine.native.literals import SQL_QUOTED, outside
from engine.native.numeric_text import NUMBER_TYPE
from engine.native.ranking import flat
from engine.native.writers.fitting import capped, fit, preferred, schema_room
from engine.native.writers.summary import property_words, stem
from local_stores.quoting import Quoted
from local_stores.quoting import duckdb_sql as duck

if TYPE_CHECKING:
    from engine.native.periods import Span
    from engine.native.sources import Source


LANGUAGE = "sql"
REPLY_TOKENS = 220  # a query's tokens at most
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
_SCHOOL = ("CREATE TABLE teacher (\n  teacher_id INTEGER PRIMARY KEY,\n  name TEXT,\n  age INTEGER\n);\n"
           "CREATE TABLE course (\n  course_id INTEGER,\n  title TEXT,\n  teacher_id INTEGER,\n"
           "  FOREIGN KEY (teacher_id) REFERENCES teacher(teacher_id)\n);")
_PLANTS = "CREATE TABLE plant (\n  plant_id INTEGER,\n  name TEXT,\n  family TEXT,\n  height_cm REAL\n);"
_COACHES = "CREATE TABLE coach (\n  name TEXT,\n  club TEXT,\n  start_year INTEGER,\n  end_year INTEGER\n);"
_TRIPS = "CREATE TABLE trip_budget (\n  _row BIGINT,\n  trip VARCHAR,\n  planned_eur DOUBLE,\n  spent_eur DOUBLE\n);"

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
    Example(_COACHES, "Which coach of Ajax stayed the longest?",  # a duration, not the latest end
            "SELECT name, end_year - start_year AS years FROM coach WHERE lower(club) = 'ajax' "
            "ORDER BY years DESC LIMIT 1"),
    Example(_PLANTS, "How many different plant families are there?", "SELECT COUNT(DISTINCT family) FROM plant"),
    Example(_TRIPS, "Which trips went over budget, and by how much?",  # over: spent more than planned
            "SELECT _row, trip, spent_eur - planned_eur AS over_by FROM trip_budget WHERE spent_eur > planned_eur",
            ("duckdb",)),
    Example(_PLANTS, "Show the name and height of plants taller than the average plant.",
            "SELECT name, height_cm FROM plant WHERE height_cm > (SELECT AVG(height_cm) FROM plant)"),
]
DEFAULT_EXAMPLES = 3
_FENCE = re.compile(r"```(?:sql)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


# Renderings of a schema, most detailed first: (samples per column, columns per table)
LEVELS = [(3, None), (1, None), (1, 200), (0, 100), (0, 50), (0, 25), (0, 12), (0, 6)]


def schema_text(source: Source, budget: Budget | None = None, room: int = 0,
                question: str = "") -> str:
    """CREATE TABLE statements with sample values and original headers as comments (file-given
    texts on one line, cut). With a `budget`, the first rendering within `room` tokens: fewer
    samples, then fewer columns per table (those the question's words name first), a note saying
    how many are not shown."""
    if budget is None:
        return _schema(source, *LEVELS[0], question)
    return fit(budget, room, [partial(_schema, source, s, c, question) for s, c in LEVELS])


def _schema(source: Source, samples: int, max_cols: int | None, question: str) -> str:
    out = []
    for table in source.tables:
        columns = table.get("columns", [])
        shown = _shown(columns, max_cols, question)
        cols = [_column(c, samples) for i, c in enumerate(columns) if i in shown]
        for fk in table.get("foreign_keys", []):
            target = ".".join(duck.shown(part) for part in str(fk["references"]).split(".", 1))
            cols.append(Quoted(f"  FOREIGN KEY ({duck.shown(fk['column'])}) REFERENCES {inline(target)}"))
        more = f"\n  -- ... and {len(columns) - len(shown):,} more columns, not shown" if len(shown) < len(columns) \
            else ""
        where = inline(source.shown, 120) + (
            f", sheet {quoted(table['sheet'])}" if table.get("sheet") else "")
        comment = f"-- from {where}, {inline(table.get('rows', '?'))} rows"
        create = f"CREATE TABLE {duck.shown(table['table'])} (\n" + ",\n".join(cols) + more + "\n);"
        out.append(comment + "\n" + create)
    return "\n".join(out)


def _shown(columns: list[dict], max_cols: int | None, question: str) -> set[int]:
    """The columns a rendering shows: all, or `max_cols` of them (_row, then those the question names)."""
    if max_cols is None or len(columns) <= max_cols:
        return set(range(len(columns)))
    names = [f"{c['name']} {c.get('label') or ''}" for c in columns]
    rows = {i for i, c in enumerate(columns) if c["name"] == "_row"}
    return rows | preferred(names, question, max_cols - len(rows))


def _column(c: dict, samples: int) -> Quoted:
    """One column line: its name and type as `duck.shown` shows them, notes from the file neutralised."""
    notes = []
    if c.get("label"):
        notes.append(f"header {quoted(c['label'])}")
    if c.get("empty_for"):  # a column of numbers whose few words were made NULL ("No parking")
        notes.append("NULL where the file says " + ", ".join(quoted(word) for word in c["empty_for"]))
    if samples and c.get("values"):
        notes.append("values: " + ", ".join(quoted(v) for v in c["values"]))
    elif samples and c.get("samples"):
        notes.append("e.g. " + ", ".join(quoted(v) for v in c["samples"][:samples]))
    if c["name"] == "_row":
        notes = ["original row number in the file"]
    note = f"  -- {'; '.join(notes)}" if notes else ""
    return Quoted(f"  {duck.shown(c['name'])} {duck.shown_type(c['type'])}{note}")


def default_examples(source: Source) -> list[Example]:
    usable = [e for e in EXAMPLES if not e.engines or source.engine in e.engines]
    return usable[:DEFAULT_EXAMPLES]


def messages(question: str, source: Source, examples: list[Example] | None = None,
             budget: Budget | None = None) -> list[dict]:
    """Rules and examples, then the user's schema and the question, fitted to `budget` (the model's
    context; an estimate when not given) with room kept for the query and its repairs."""
    budget = budget or Budget()
    question = budget.question(question)
    shots = [f"Example {i}:\n{e.schema}\nQuestion: {e.question}\nSQL: {e.query}"
             for i, e in enumerate(examples if examples is not None else default_examples(source), start=1)]
    rows = any(c["name"] == "_row" for c in source.columns)
    system = SYSTEM.format(dialect=source.dialect, row_rules=ROW_RULES if rows else "") + "\n\n" + "\n\n".join(shots)
    head, tail = "The user's tables:\n", f"\n\nQuestion: {question}\nSQL:"
    room = schema_room(budget, question, names_hint(source), system, head + tail)
    return [{"role": "system", "content": system},
            {"role": "user", "content": head + schema_text(source, budget, room, question) + tail}]


def names_hint(source: Source) -> str:
    """The tables and columns to remind the model of after a failed query (cut when long)."""
    return capped("tables and columns: " + "; ".join(
        f"{t['table']}({', '.join(c['name'] for c in t.get('columns', []))})" for t in source.tables))


_TEMPORAL = ("DATE", "TIMESTAMP", "TIME", "TIMESTAMP WITH TIME ZONE")


def fix(sql: str, source: Source) -> str:
    """Small models treat dates as text (`day LIKE '2024-03%'`, `lower(day)`): make that valid by
    casting those columns to text where they meet a text operator. Only columns the schema says are
    temporal are touched. A compound query whose parts have their own ORDER BY or LIMIT is written
    so SQL accepts it (`ordered_branches`)."""
    sql = ordered_branches(sql)
    for name in _columns_typed(source, _TEMPORAL):
        col = _named_column(name)
        sql = re.sub(col + r"(\s+(?:NOT\s+)?(?:I?LIKE)\b)", r"CAST(\1 AS VARCHAR)\2", sql, flags=re.IGNORECASE)
        sql = re.sub(r"\b(lower|upper|substr|substring|left)\(\s*" + col, r"\1(CAST(\2 AS VARCHAR)", sql,
                     flags=re.IGNORECASE)
    sql = _dates_as_text(sql, _columns_typed(source, ("VARCHAR",)))
    sql = _cased_like_the_call(sql)
    return _like_any_case(sql) if source.engine in ("duckdb", "postgres") else sql


_CASED_CALL = re.compile(r"\b(lower|upper)\s*\(([^()']*)\)(\s*(?:=|<>|!=|(?:NOT\s+)?I?LIKE)\s*)('(?:[^']|'')*')",
                         re.IGNORECASE)


def _cased_like_the_call(sql: str) -> str:
    """`lower(mvp) = 'greg Sutton'` can never hold: the text compared with lower() (upper()) of a
    column is written in lower (upper) case too, as the model meant."""
    def cased(m: re.Match[str]) -> str:
        text = m[4].lower() if m[1].lower() == "lower" else m[4].upper()
        return f"{m[1]}({m[2]}){m[3]}{text}"
    return _CASED_CALL.sub(cased, sql)


def _columns_typed(source: Source, types: tuple[str, ...]) -> set[str]:
    """The names of the source's columns of one of `types`, as its schema gives them."""
    return {c["name"] for c in source.columns if c.get("type") in types}


def _named_column(name: str) -> str:
    """A pattern for the column `name` written bare or quoted, not as part of a longer name; group 1 is it."""
    return rf"(?<![\w.\"])({re.escape(name)}|\"{re.escape(name)}\")(?![\w\"])"


_LIKE = re.compile(r"(?<![\w.])(NOT\s+)?LIKE(?!\w)", re.IGNORECASE)


def _like_any_case(sql: str) -> str:
    """LIKE as ILIKE, outside quoted text: people and small models write "%west yorkshire%" for a
    cell that reads "West Yorkshire"; SQLite's LIKE ignores case, DuckDB's and PostgreSQL's do not."""
    return outside(sql, SQL_QUOTED, lambda text: _LIKE.sub(lambda m: f"{m[1] or ''}ILIKE", text))


_DATE_LITERAL = r"DATE\s*('\d{4}-\d{2}(?:-\d{2})?')"


def _dates_as_text(sql: str, texts: set[str]) -> str:
    """A text column of dates ('2024-02') compared with a date (`since >= DATE '2024-01-01'`: "Cannot compare
    values of type VARCHAR and type DATE"): compared with the date's text, which orders the same."""
    for name in texts:
        col = _named_column(name)
        sql = re.sub(col + r"(\s*(?:>=|<=|<>|!=|=|<|>)\s*)" + _DATE_LITERAL, r"\1\2\3", sql, flags=re.IGNORECASE)
        sql = re.sub(col + r"(\s+(?:NOT\s+)?BETWEEN\s+)" + _DATE_LITERAL + r"(\s+AND\s+)" + _DATE_LITERAL,
                     r"\1\2\3\4\5", sql, flags=re.IGNORECASE)
    return sql


_COMPOUND = re.compile(r"\b(?:UNION(?:\s+ALL)?|INTERSECT|EXCEPT)\b", re.IGNORECASE)
_ORDERED = re.compile(r"\b(?:ORDER\s+BY|LIMIT)\b", re.IGNORECASE)


def ordered_branches(sql: str) -> str:
    """"… ORDER BY rooms DESC LIMIT 1 UNION SELECT … ORDER BY rooms DESC LIMIT 1" (the best of each of
    two groups) as `SELECT * FROM (…) UNION SELECT * FROM (…)`: SQL allows ORDER BY and LIMIT only
    after the last part of a compound query, and a part inside brackets keeps its own. A compound
    query whose parts before the last have none is left as it is."""
    top = flat(sql)
    cuts = list(_COMPOUND.finditer(top))
    if not cuts:
        return sql
    starts = [0, *(m.end() for m in cuts)]
    ends = [*(m.start() for m in cuts), len(sql)]
    if not any(_ORDERED.search(top[a:b]) for a, b in zip(starts[:-1], ends[:-1], strict=True)):
        return sql
    parts = [sql[a:b].strip() for a, b in zip(starts, ends, strict=True)]
    words = [m.group(0).upper() for m in cuts]
    # sandboxed: the model's own query, its parts bracketed; explained and run read-only like it
    out = f"SELECT * FROM ({parts[0]})"
    for word, part in zip(words, parts[1:], strict=True):
        # sandboxed: the model's own query, its parts bracketed; explained and run read-only like it
        out += f" {word} SELECT * FROM ({part})"
    return out


_QUERY_START = re.compile(r"\bSELECT\b|\bWITH\s+(?:RECURSIVE\s+)?(?:\w+|\"[^\"]+\")\s*(?:\([^)]*\)\s*)?AS\s*\(",
                          re.IGNORECASE)


def extract(reply: str) -> str:
    """The query in a model reply: a fenced block, else the text from its first SELECT or common
    table expression ("with a table that..." in prose is not one)."""
    if m := _FENCE.search(reply):
        reply = m.group(1)
    m = _QUERY_START.search(reply)
    text = reply[m.start():] if m else reply
    return text.strip().split(";")[0].strip()


def check(statement: str, source: Source) -> str | None:  # noqa: ARG001
    """Nothing to add: the engine's EXPLAIN already names unknown tables and columns."""
    return None


# -- Trove's own queries: what the source is about, the values it holds -----------------------------
_TEXT_TYPE = re.compile(r"CHAR|TEXT|STRING|CLOB|^$|^ANY$", re.IGNORECASE)
_TEXT_LITERAL = re.compile(r"'((?:[^']|'')*)'")


def summary_words(source: Source) -> list[str]:
    """The names a question about the source would use: tables, sheets, columns and their values."""
    words = []
    for table in source.tables:
        words.append(table["table"].replace("_", " "))
        if table.get("sheet"):
            words.append(str(table["sheet"]))
        words += property_words([c for c in table.get("columns", []) if c["name"] != "_row"])
    return words


def part_texts(source: Source) -> list[str]:
    """One short text per table: the file, the table and its column names."""
    out = []
    for table in source.tables:
        cols = [str(c.get("label") or c["name"]).replace("_", " ") for c in table.get("columns", [])
                if c["name"] != "_row"]
        out.append(f"{stem(source)}: {table['table'].replace('_', ' ')}: " + ", ".join(cols))
    return out


def _table_ref(source: Source, name: str) -> Quoted:
    """A table of the source, quoted; DuckDB files and PostgreSQL databases name tables outside their
    default schema as `schema.table`."""
    if source.descriptor.get("dialect") in ("duckdb", "postgres") and source.kind != "table" and "." in name:
        return duck.qualified(*name.split(".", 1))
    return duck.ident(name)


def _text_columns(source: Source) -> list[tuple[str, Quoted, Quoted]]:
    """Every text column of the source's tables, as (`table.column`, the quoted table, the column's
    value as text in SQL)."""
    return [(f"{table['table']}.{column['name']}", _table_ref(source, table["table"]),
             Quoted(f"CAST({duck.ident(column['name'])} AS VARCHAR)"))
            for table in source.tables for column in table.get("columns", [])
            if column["name"] != "_row" and _TEXT_TYPE.search(str(column.get("type") or ""))]


# what parts a cell holding several values ('Belgian/French', 'Rock; Pop', one per line) is split into
PART_SEPARATORS = r"\s*[/;,&|\n()]\s*"  # "Kelly McCormick (USA)": "kelly mccormick", "usa"
MAX_PARTED_CHARS = 60  # longer texts are sentences, not lists of values


def value_lookup(source: Source, wanted: list[str], limit: int) -> tuple[str, list[object]] | None:
    """One statement finding, in every text column, the stored values equal (ignoring case and
    surrounding spaces) to one of `wanted`, as (place, value) rows; the texts are bound values. In
    DuckDB, a short value one of whose parts ('Belgian/French') is wanted is found too."""
    columns = _text_columns(source)
    if not columns or not wanted:
        return None
    parted = source.kind == "table" or source.descriptor.get("dialect") == "duckdb"
    parts = [f"SELECT DISTINCT CAST(? AS VARCHAR) AS place, {value} AS value FROM {table} "
             f"WHERE lower(trim({value})) IN (SELECT phrase FROM wanted)"
             + (f" OR (length({value}) <= {duck.number(MAX_PARTED_CHARS)} AND len(list_intersect("
                f"string_split_regex(lower(trim({value})), {duck.literal(PART_SEPARATORS)}), "
                "(SELECT list(phrase) FROM wanted))) > 0)" if parted else "")
             for _, table, value in columns]
    phrases_sql = ", ".join("(?)" for _ in wanted)
    statement = (f"WITH wanted(phrase) AS (VALUES {phrases_sql}) SELECT place, value FROM ("
                 + " UNION ALL ".join(parts) + f") AS found LIMIT {duck.number(limit)}")
    return statement, [*(w.strip().lower() for w in wanted), *(place for place, _, _ in columns)]


def held_statements(source: Source, per_place: int, max_chars: int) -> list[tuple[str | None, str]]:
    """(place, statement) reading one text column's distinct short values, at most `per_place`."""
    return [(place, f"SELECT DISTINCT {value} FROM {table} WHERE {value} IS NOT NULL AND "
                    f"length({value}) BETWEEN 2 AND {duck.number(max_chars)} LIMIT {duck.number(per_place)}")
            for place, table, value in _text_columns(source)]


def most_numbers_statements(source: Source, numbers: list[float]) -> list[str]:
    """Per table with number columns, a statement giving the most of `numbers` one of its rows holds."""
    out = []
    for table in source.tables:
        held = [str(c["name"]) for c in table.get("columns", [])
                if NUMBER_TYPE.match(str(c.get("type", ""))) and c["name"] != "_row"]
        if held:
            listed = duck.idents(held)
            counted = " + ".join(f"CASE WHEN {duck.number(n)} IN ({listed}) THEN 1 ELSE 0 END" for n in numbers)
            out.append(f"SELECT max({counted}) FROM {_table_ref(source, table['table'])}")
    return out


def compared_literals(statement: str) -> list[str]:
    """Every quoted text of the query (LIKE patterns and dates left out by the caller)."""
    return [t.replace("''", "'") for t in _TEXT_LITERAL.findall(statement)]


def span_hint(found: list[Span], source: Source) -> str | None:
    """The question's date spans against the source's date and timestamp columns: DuckDB and
    PostgreSQL compare them with DATE literals, SQLite (dates kept as ISO text) with the text itself."""
    fields = [f"{inline(t['table'], 60)}.{inline(c['name'], 60)}" for t in source.tables
              for c in t.get("columns", []) if _dated(str(c.get("type", "")))]
    literal = (lambda day: f"DATE '{day.isoformat()}'") if source.engine in ("duckdb", "postgres") else \
        (lambda day: f"'{day.isoformat()}'")
    return periods.hint(found, fields, literal)


def _dated(column_type: str) -> bool:
    return column_type.upper().startswith(("DATE", "TIMESTAMP"))


def place_name(place: object, source: Source) -> str:  # noqa: ARG001 (the same signature in every writer)
    """Where a value is held, as the schema text names it: `table.column`."""
    return str(place)
