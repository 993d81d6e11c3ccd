"""Tables in DuckDB (OmniRetrieval: tables stay tables, queried in SQL).

One DuckDB file under the Trove home holds a table per CSV/TSV/Parquet/JSON file, with `_row`, the
original row number, for provenance. Generated SQL runs through `execute`: a fresh read-only
connection with file and network access off and configuration locked, one SELECT statement only,
a time limit and a row limit. Writes happen only through the `load_*` methods (Trove's own code).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from local_stores import sql_worker
from local_stores.quoting import Quoted
from local_stores.quoting import duckdb_sql as duck
from local_stores.results import MEMORY_MB, QueryFailed, QueryRefused, QueryResult, plain
from local_stores.sql_sandbox import SAFE_CONFIG

# loading connections: the same, set after connecting (allowed_paths can only be set on a started database)
LOADING_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                  "allow_community_extensions": False}
CSV_OPTIONS = "header = true, sample_size = -1, delim = ?"
CSV_LENIENT = "strict_mode = false, null_padding = true, ignore_errors = true"
_FIRST_WORD = re.compile(r"^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*([A-Za-z(]+)", re.DOTALL)
ALLOWED_FIRST_WORDS = {"select", "with", "from", "values", "("}
CATEGORY_LIMIT = 30  # text columns with at most this many distinct values list them all in the descriptor
# A number as people decorate it in a table: a footnote or host mark (*7*, 12†), a currency sign, a
# percent sign, thousands commas (1,234; "12,5" is not one: it may be a decimal comma).
DECORATED_NUMBER = r"[\s*†‡§#~^]*[-+−]?[$€£¥]?\s*(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s*%?[\s*†‡§#~^]*"
NO_VALUE = ("", "-", "—", "–", "n/a", "na", "none", "null", "?")  # placeholders for "nothing here"


@dataclass
class TableInfo:
    name: str
    file: str
    rows: int
    columns: list[dict] = field(default_factory=list)  # {name, type, samples, label}
    warnings: list[str] = field(default_factory=list)
    sheet: str | None = None
    attachment: Attachment | None = None  # the table is a file attached to a message in `file`

    def descriptor(self) -> dict:
        """The table as a catalog source describes it (what its query writer reads)."""
        out = {"table": self.name, "rows": self.rows, "columns": self.columns, "file": self.file,
               "warnings": self.warnings, "language": "sql", "dialect": "duckdb"}
        if self.sheet:
            out["sheet"] = self.sheet
        if self.attachment:
            out["attachment"] = self.attachment.name
            out["message"] = self.attachment.message
            out["message_number"] = self.attachment.number
            if self.attachment.printed:
                out["printed"] = True
            if self.attachment.page_starts:
                out["page_starts"] = [list(start) for start in self.attachment.page_starts]
        return out


@dataclass(frozen=True)
class Attachment:
    """Where a table attached to a mail came from: its file name, its message's subject and number
    (in a mailbox; None for a file of one message); or, `printed`, where a table printed in a
    document is: "table 1 on page 3", its title lines and its page."""

    name: str
    message: str = ""
    number: int | None = None
    printed: bool = False
    page_starts: tuple[tuple[int, int], ...] = ()  # printed on several pages: each page and its first `_row`


def identifier(text: str) -> str:
    """Lower-case ASCII letters, digits and underscores: `Empfänger (EUR)` -> `empfanger_eur`."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")


def unique_identifier(text: str, taken: set[str], fallback: str, digit_prefix: str) -> str:
    """`identifier(text)`, prefixed when it starts with a digit, numbered until not in `taken`."""
    base = identifier(text) or fallback
    if base[0].isdigit():
        base = f"{digit_prefix}_{base}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def table_name(stem: str, taken: set[str]) -> str:
    """A safe, unique SQL identifier from a file name: `2024 Expenses (v2)` -> `t_2024_expenses_v2`."""
    return unique_identifier(stem, taken, "table", "t")


def column_names(original: list[str]) -> list[str]:
    """Plain SQL column names (`Amount (EUR)` -> `amount_eur`), unique; the original is kept as a comment."""
    taken: set[str] = {"_row"}
    out = []
    for col in original:
        name = unique_identifier(col, taken, "column", "c")
        taken.add(name)
        out.append(name)
    return out


def sniff_delimiter(text: str) -> str:
    """The delimiter of CSV-like text: the candidate that splits the first lines most consistently."""
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    best, best_score = ",", -1.0
    for cand in (",", "\t", ";", "|"):
        counts = [line.count(cand) for line in lines]
        if not counts or counts[0] == 0:
            continue
        agree = sum(1 for c in counts if c == counts[0]) / len(counts)
        score = agree * 10 + min(counts[0], 9)
        if score > best_score:
            best, best_score = cand, score
    return best


def check_query(sql: str, dialect: str = "duckdb") -> str:
    """The statement to run, or QueryRefused: exactly one SELECT-like statement, nothing else.
    SQLite and PostgreSQL statements get a lexical check here; SQLite's authorizer and PostgreSQL's
    read-only transaction (on a read-only role) enforce the rest."""
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise QueryRefused("empty query")
    if dialect in ("sqlite", "postgres"):
        if ";" in re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", "", text):
            raise QueryRefused("only one statement may run")
        first = _FIRST_WORD.match(text)
        if not first or first.group(1).lower() not in ALLOWED_FIRST_WORDS:
            raise QueryRefused(f"only read-only SELECT queries may run, not {first.group(1).upper() if first else '?'}")
        return text
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as exc:
        raise QueryFailed(f"SQL syntax error: {exc}") from exc
    if len(statements) != 1:
        raise QueryRefused(f"only one statement may run, got {len(statements)}")
    first = _FIRST_WORD.match(text)
    word = first.group(1).lower() if first else ""
    if statements[0].type != duckdb.StatementType.SELECT or word not in ALLOWED_FIRST_WORDS:
        kind = statements[0].type.name if statements[0].type != duckdb.StatementType.SELECT else word.upper()
        raise QueryRefused(f"only read-only SELECT queries may run, not {kind}")
    return text


@contextmanager
def reading_connection(paths: Sequence[Path], memory_mb: int) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB that may reach `paths` and no other file, no network and no extension,
    its configuration locked: what reads a user's file (CSV, JSON, Parquet) into Parquet."""
    config: dict[str, str | bool | int | float | list[str]] = {
        **LOADING_CONFIG, "memory_limit": f"{max(memory_mb // 2, 128)}MB", "threads": 1}
    with duckdb.connect(config=config) as con:
        con.execute("SET enable_progress_bar = false")  # its output would fill a worker's log
        con.execute("SET allowed_paths = ?", [[str(p) for p in paths]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con


def csv_to_parquet(con: duckdb.DuckDBPyConnection, csv_file: Path, delimiter: str, target: Path) -> list[str]:
    """The rows of a UTF-8 CSV file, as DuckDB's reader types them, written to `target` as Parquet;
    rows the strict reader rejects are skipped with a warning (returned)."""
    try:
        con.sql(f"SELECT * FROM read_csv(?, {CSV_OPTIONS})", params=[str(csv_file), delimiter]).write_parquet(
            str(target))
        return []
    except duckdb.Error as strict_error:
        warning = f"malformed rows skipped ({str(strict_error).splitlines()[0][:160]})"
    con.sql(f"SELECT * FROM read_csv(?, {CSV_OPTIONS}, {CSV_LENIENT})", params=[str(csv_file), delimiter]
            ).write_parquet(str(target))
    return [warning]


def csv_text_to_parquet(text: str, delimiter: str, target: Path, memory_mb: int) -> list[str]:
    """CSV text into `target` as Parquet (`csv_to_parquet`), through a UTF-8 file beside it that
    only the reading connection may open; the warnings."""
    utf8 = target.with_suffix(".csv")
    utf8.write_text(text, encoding="utf-8")
    try:
        with reading_connection([utf8, target], memory_mb) as con:
            return csv_to_parquet(con, utf8, delimiter, target)
    finally:
        utf8.unlink(missing_ok=True)


class TableStore:
    def __init__(self, path: Path, memory_mb: int = MEMORY_MB) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.memory_mb = memory_mb

    # -- writing (Trove's own code only) --------------------------------------------------------
    def _writer(self, readable: Path | None = None) -> duckdb.DuckDBPyConnection:
        """A connection that writes the tables file and may read `readable` and nothing else: no
        other file, no network, no extensions, configuration locked (least privilege while loading)."""
        con = duckdb.connect(str(self.path), config={**LOADING_CONFIG, "memory_limit": f"{self.memory_mb}MB"})
        con.execute("SET allowed_paths = ?", [[str(readable)] if readable else []])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        return con

    def tables(self) -> list[str]:
        if not self.path.exists():
            return []
        with duckdb.connect(str(self.path), read_only=True, config=SAFE_CONFIG) as con:
            return [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                              "WHERE table_schema = 'main' ORDER BY 1").fetchall()]

    def load_csv(self, name: str, path: Path, text: str, delimiter: str | None = None,
                 sheet: str | None = None) -> TableInfo:
        """Load CSV/TSV text (already decoded: any encoding the file had) as table `name`. When the
        text's first column is `_row` it holds the original row numbers (spreadsheets). Ingest reads
        the user's files in a worker process with `csv_text_to_parquet` and loads the result instead."""
        with tempfile.TemporaryDirectory() as tmp:
            rows = Path(tmp) / "rows.parquet"
            warnings = csv_text_to_parquet(text, delimiter or sniff_delimiter(text), rows, self.memory_mb)
            info = self.load_parquet(name, rows, file=path)
        info.warnings, info.sheet = warnings, sheet
        return info

    def load_parquet(self, name: str, path: Path, file: Path | None = None) -> TableInfo:
        """Load a Parquet file as table `name`; `file` is the user's file it was read from, when
        another (a CSV, a workbook, JSON records) was read into it."""
        info = self._load_copy(name, path, Quoted("read_parquet(?)"))
        info.file = str(file or path)
        return info

    def _load_copy(self, name: str, path: Path, reader: Quoted) -> TableInfo:
        """Load a copy of the file, so the loading connection can reach nothing of the user's."""
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / f"data{path.suffix.lower()}"
            shutil.copyfile(path, copy)
            return self._create(name, path, copy, reader, [], [])

    def _create(self, name: str, path: Path, readable: Path, reader: Quoted, options: list[object],
                warnings: list[str]) -> TableInfo:
        """Table `name` from `reader` (a table function whose first parameter is the file to read,
        then `options`); columns renamed to plain identifiers, each original name kept as its comment."""
        params = [str(readable), *options]
        with self._writer(readable) as con:
            original = [d[0] for d in con.execute(f"SELECT * FROM {reader} LIMIT 0", params).description]
            has_rows = bool(original) and original[0] == "_row"  # row numbers given by the reader
            if has_rows:
                original = original[1:]
            renamed = column_names(original)
            select = ", ".join(f"{duck.ident(o)} AS {duck.ident(n)}" for o, n in zip(original, renamed, strict=True))
            row = '"_row"' if has_rows else "row_number() OVER ()"
            con.execute(f"CREATE OR REPLACE TABLE {duck.ident(name)} AS SELECT {row} AS _row, {select} FROM {reader}",
                        params)
            for o, n in zip(original, renamed, strict=True):
                if o != n:
                    con.execute(f"COMMENT ON COLUMN {duck.ident(name)}.{duck.ident(n)} IS {duck.literal(o)}")
            _header_rows_dropped(con, name, dict(zip(renamed, original, strict=True)))
            _totals_row_dropped(con, name, renamed)
            _numbers_undecorated(con, name)
            _worked_sums_totalled(con, name, set(renamed))
            _written_dates_dated(con, name, set(renamed))
        info = self.describe(name)
        info.file, info.warnings = str(path), warnings
        return info

    def replace_rows(self, name: str, columns: dict[str, str], rows: list[dict]) -> TableInfo:
        """(Re)create table `name` with `columns` ({name: DuckDB type}) holding `rows`, in one transaction."""
        cols = ", ".join(f"{duck.ident(c)} {duck.type_name(t)}" for c, t in columns.items())
        marks = duck.marks(len(columns) + 1)
        with self._writer() as con:
            con.execute("BEGIN")
            con.execute(f"CREATE OR REPLACE TABLE {duck.ident(name)} (_row INTEGER, {cols})")
            con.executemany(f"INSERT INTO {duck.ident(name)} VALUES ({marks})",
                            [[i, *(row.get(c) for c in columns)] for i, row in enumerate(rows, start=1)])
            con.execute("COMMIT")
        return self.describe(name)

    def drop(self, name: str) -> None:
        if self.path.exists():
            with self._writer() as con:
                con.execute(f"DROP TABLE IF EXISTS {duck.ident(name)}")

    # -- reading ----------------------------------------------------------------------------------
    def describe(self, name: str, samples: int = 3) -> TableInfo:
        """Columns, types, a few sample values and the row count: what a model needs to write SQL."""
        table = duck.ident(name)
        with duckdb.connect(str(self.path), read_only=True, config=SAFE_CONFIG) as con:
            rows = _one(con, Quoted(f"SELECT count(*) FROM {table}"))
            columns = []
            for col, typ, label in con.execute(
                    "SELECT column_name, data_type, comment FROM duckdb_columns() WHERE table_name = ? "
                    "ORDER BY column_index", [name]).fetchall():
                values = [r[0] for r in con.execute(sample_values_sql(col, table, samples)).fetchall()]
                column = {"name": col, "type": typ, "samples": [plain(v) for v in values]}
                if typ == "VARCHAR":  # a short list of categories is worth giving whole
                    column.update(_categories(con, table, duck.ident(col)))
                if label:
                    column.update(_comment(str(label)))
                columns.append(column)
        return TableInfo(name=name, file="", rows=rows, columns=columns)

    def execute(self, sql: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        """Run one generated SELECT safely: read-only, no file/network access, time and row limits."""
        statement = check_query(sql)
        if not self.path.exists():
            raise QueryFailed("no tables are indexed yet")
        return sql_worker.run("duckdb", self.path, statement, timeout_s, max_rows, params)

    def explain(self, sql: str) -> str:
        """The checked statement, once DuckDB has planned it without running it."""
        statement = check_query(sql)
        if not self.path.exists():
            raise QueryFailed("no tables are indexed yet")
        sql_worker.run("duckdb", self.path, "EXPLAIN " + statement, timeout_s=5.0, max_rows=1)
        return statement

    def table(self, name: str) -> IndexedTable:
        return IndexedTable(self, name)


class IndexedTable:
    """One table Trove copied into its DuckDB file, as a native store (SQL over the whole file:
    a question may join it with another table)."""

    language, dialect = "sql", "DuckDB"

    def __init__(self, store: TableStore, name: str) -> None:
        self.store, self.name = store, name

    def describe(self) -> dict:
        return self.store.describe(self.name).descriptor()

    def explain(self, query: str) -> str:
        return self.store.explain(query)

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        return self.store.execute(query, timeout_s, max_rows, params)


def _header_rows_dropped(con: duckdb.DuckDBPyConnection, name: str, headers: dict[str, str]) -> None:
    """Rows that repeat the header line, every cell its column's name (a table pasted from pages,
    a header printed again halfway down), are no data: left out, so that a number column stays
    numbers and MAX over a text column does not pick "Duration (Days)"."""
    if len(headers) < 2:
        return
    same = " AND ".join(f"lower(trim(CAST({duck.ident(column)} AS VARCHAR))) = lower(trim(?))" for column in headers)
    con.execute(f"DELETE FROM {duck.ident(name)} WHERE {same}", list(headers.values()))


TOTALS = re.compile(r"(?:grand\s+)?(?:totals?|totaal|totale|totalt|gesamt|insgesamt|summe)\b", re.IGNORECASE)


def _totals_row_dropped(con: duckdb.DuckDBPyConnection, name: str, columns: list[str]) -> None:
    """A last row that says it is the total ("Total", "Totals", "Grand total") and whose numbers are
    mostly the sums of the rows above is no data: left out, so that SUM does not count everything
    twice, MAX does not pick it and "the last row" is the last of the data. A sum over the rows still
    gives each of its figures."""
    table = duck.ident(name)
    last = con.execute(f"SELECT max(_row), count(*) FROM {table}").fetchone()
    if last is None or last[0] is None or last[1] < 3:
        return
    cells = [str(v).strip() if v is not None else "" for v in con.execute(
        f"SELECT {', '.join(f'CAST({duck.ident(c)} AS VARCHAR)' for c in columns)} FROM {table} WHERE _row = ?",
        [last[0]]).fetchone() or ()]
    if not TOTALS.match(next((cell for cell in cells if cell), "")):
        return
    figures = {column: figure for column, cell in zip(columns, cells, strict=True)
               if (figure := _number(cell)) is not None}
    agree = sum(_sums_to(figure, _column_sum(con, table, column, last[0])) for column, figure in figures.items())
    if figures and agree * 2 >= len(figures):
        con.execute(f"DELETE FROM {table} WHERE _row = ?", [last[0]])


def _sums_to(figure: float, total: float | None) -> bool:
    """Whether a totals row's figure is the column's sum, as rounded where it was written."""
    return total is not None and abs(total - figure) <= 0.005 * abs(total) + 0.51


def _number(cell: str) -> float | None:
    """A cell's number without its decoration ("1,500", "$5", "12%"), None when it is not one."""
    match = re.fullmatch(DECORATED_NUMBER, cell)
    if not match:
        return None
    sign = -1.0 if re.match(r"[\s*†‡§#~^]*[-−]", cell) else 1.0
    return sign * float(match.group(1).replace(",", "") + (match.group(3) or ""))


def _column_sum(con: duckdb.DuckDBPyConnection, table: Quoted, column: str, before: int) -> float | None:
    """The sum of a column's numbers (decorations taken off) in the rows before row `before`."""
    digits = _digits(Quoted(f"CAST({duck.ident(column)} AS VARCHAR)"))
    found = con.execute(f"SELECT sum(TRY_CAST({digits} AS DOUBLE)) FROM {table} WHERE _row < ?", [before]).fetchone()
    return float(found[0]) if found and found[0] is not None else None


def _numbers_undecorated(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Text columns whose every value is a number once its decoration is taken off ("*7*", "$5",
    "1,234", "12%"; placeholders such as "—" as nothing) become number columns, so that SQL sorts
    and adds them as numbers (ORDER BY over "*7*", "4", "3" as text put 4 first). So do columns whose
    every value is a number with the same unit after it ("3,880 days", "5.05 m"): the unit goes into
    the column's label ("Station Parking (spaces)") unless its name says it already. A column of
    numbers but for a few words ("2050 Spaces" … "No parking"; "TBA") becomes numbers too, the words
    empty and kept beside the label, so that "the most parking spaces" is not "No parking" sorted as text."""
    text_columns = [c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                                              "AND data_type = 'VARCHAR'", [name]).fetchall()]
    for column in text_columns:
        if _to_numbers(con, name, column, DECORATED_NUMBER):
            continue
        unit = _one_unit(con, name, column)
        pattern = DECORATED_NUMBER + UNIT if unit else DECORATED_NUMBER
        if unit is not None and _to_numbers(con, name, column, pattern):
            _label_with_unit(con, name, column, unit)
        elif (words := _few_words(con, name, column, pattern)) and _to_numbers(con, name, column, pattern, words):
            _label_with_unit(con, name, column, unit or "", words)


WORKED_SUM = r"\s*\d+(?:\s*[-+]\s*\d+)+\s*=\s*(\d+)\s*"  # a sum with its result: a golfer's "72-68-70-69=279"


def _worked_sums_totalled(con: duckdb.DuckDBPyConnection, name: str, taken: set[str]) -> None:
    """A text column whose every value is a sum written out with its result ("72-68-70-69=279") gets
    a number column beside it holding the results (`score_total`, "Score (total)"), so that "his
    total score" is read and ranked as a number; the rounds stay readable in the column itself."""
    table = duck.ident(name)
    for (column,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                                 "AND data_type = 'VARCHAR'", [name]).fetchall():
        value = duck.ident(column)
        given = _given(name, value)
        counts = con.execute(f"SELECT count(*), count(*) FILTER (WHERE regexp_full_match({value}, ?)) {given}",
                             [WORKED_SUM, *NO_VALUE]).fetchone()
        total = f"{column}_total"
        if not counts or not counts[0] or counts[0] != counts[1] or total in taken:
            continue
        con.execute(f"ALTER TABLE {table} ADD COLUMN {duck.ident(total)} BIGINT")
        con.execute(f"UPDATE {table} SET {duck.ident(total)} = TRY_CAST(regexp_extract({value}, ?, 1) AS BIGINT)",
                    [WORKED_SUM])
        label = duck.literal(f"{_label(con, name, column)} (total)")
        con.execute(f"COMMENT ON COLUMN {table}.{duck.ident(total)} IS {label}")


# Dates written as people write them, which DuckDB's reader leaves as text; a month alone is its first day.
WRITTEN_DATES = ["%d %B %Y", "%B %d, %Y", "%B %d %Y", "%d %b %Y", "%b %d, %Y", "%b %d %Y", "%b. %d, %Y",
                 "%d %B, %Y", "%B %Y", "%b %Y", "%Y-%m-%d"]
AS_DATE = "_as_date"  # ends the name of the DATE column beside a column of written dates
DATED_SHARE = 0.8  # of a column's values written as dates, from which it gets a date column beside it
DATES_SAMPLED = 200  # first values tried before all of them (a big table's other text columns stay cheap)


def _written_dates_dated(con: duckdb.DuckDBPyConnection, name: str, taken: set[str]) -> None:
    """A text column of dates written out ("5 October 1801", "September 6, 1998", "October 1761") gets
    a DATE column beside it (`date_from_as_date`, "Date from (as a date)"), so that SQL orders, compares
    and subtracts them as dates: as text, "5 October 1801" sorts before "October 1761" and
    `date_until - date_from` fails. Ordinals ("1st May") and a footnote mark ("[2]") are read past."""
    table = duck.ident(name)
    formats = Quoted("[" + ", ".join(duck.literal(f) for f in WRITTEN_DATES) + "]")
    for (column,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                                 "AND data_type = 'VARCHAR'", [name]).fetchall():
        dated = f"{column}{AS_DATE}"
        value = duck.ident(column)
        dates = _as_date(value, formats)
        held = _given(name, value)
        first = Quoted(f"FROM (SELECT {value} {held} LIMIT {DATES_SAMPLED}) AS first_values")
        if dated in taken or not _dated(con, Quoted(f"SELECT count(*), count({dates}) {first}")) or \
                not _dated(con, Quoted(f"SELECT count(*), count({dates}) {held}")):
            continue
        con.execute(f"ALTER TABLE {table} ADD COLUMN {duck.ident(dated)} DATE")
        con.execute(f"UPDATE {table} SET {duck.ident(dated)} = {dates}")
        label = duck.literal(f"{_label(con, name, column)} (as a date)")
        con.execute(f"COMMENT ON COLUMN {table}.{duck.ident(dated)} IS {label}")


def _dated(con: duckdb.DuckDBPyConnection, counts: Quoted) -> bool:
    """Whether (values given, dates among them) of `counts` make a column of dates: three at least,
    DATED_SHARE of them."""
    given, parsed = con.execute(counts, list(NO_VALUE)).fetchone() or (0, 0)
    return parsed >= 3 and parsed >= DATED_SHARE * given


def _as_date(value: Quoted, formats: Quoted) -> Quoted:
    """The DATE a written date means, or NULL; only a text with a year of four digits is one ("January
    10" is a day of a year the file does not give, not January of the year 10)."""
    footnote, ordinal = duck.literal(r"\s*\[[^\]]*\]$"), duck.literal(r"(\d)(st|nd|rd|th)\b")
    bare = f"regexp_replace(regexp_replace(trim({value}), {footnote}, ''), {ordinal}, '\\1', 'g')"
    year = duck.literal(r"(^|\D)\d{4}(\D|$)")
    return Quoted(f"CAST(CASE WHEN regexp_matches({bare}, {year}) THEN try_strptime({bare}, {formats}) END AS DATE)")


UNIT = r"\s*([A-Za-z]{1,12})\.?"  # after a number: "days", "m", "Spaces", "km."


def _given(name: str, value: Quoted) -> Quoted:
    """The rows of `name` whose `value` holds something (not a placeholder such as "—")."""
    return Quoted(f"FROM {duck.ident(name)} WHERE {value} IS NOT NULL AND lower({value}) NOT IN "
                  f"({duck.marks(len(NO_VALUE))})")


def _to_numbers(con: duckdb.DuckDBPyConnection, name: str, column: str, pattern: str,
                words: Sequence[str] = ()) -> bool:
    """The column made a number column when every value it holds fully matches `pattern` or is
    one of `words` (which become empty)."""
    col = duck.ident(column)
    value = Quoted(f"nullif(trim({col}), '')")
    given, numbers, whole = con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE regexp_full_match({value}, ?)), "
        f"count(*) FILTER (WHERE regexp_full_match({value}, ?) AND NOT contains({value}, '.')) {_given(name, value)}",
        [pattern, pattern, *NO_VALUE]).fetchone() or (0, 0, 0)
    worded = _one(con, Quoted(f"SELECT count(*) {_given(name, value)} AND {value} IN ({duck.marks(len(words))})"),
                  [*NO_VALUE, *words]) if words else 0
    if given < 2 or numbers + worded < given:
        return False
    kind = "BIGINT" if whole == numbers else "DOUBLE"
    digits = _digits(value)
    literal = duck.literal(pattern)  # an ALTER cannot take parameters
    con.execute(f"ALTER TABLE {duck.ident(name)} ALTER {col} SET DATA TYPE {kind} USING CASE WHEN "
                f"regexp_full_match({value}, {literal}) THEN TRY_CAST({digits} AS {kind}) END")
    return True


def _digits(value: Quoted) -> Quoted:
    """A text value's number as text, its decoration taken off ("$1,500" -> "1500"; "−5" -> "-5")."""
    return Quoted(f"regexp_replace(replace({value}, '−', '-'), '[^0-9.\\-]', '', 'g')")


def _one_unit(con: duckdb.DuckDBPyConnection, name: str, column: str) -> str | None:
    """The one unit every value of the column writes after its number ("days" of "1 day", "3 days"),
    or None when they write none, or several."""
    value = Quoted(f"nullif(trim({duck.ident(column)}), '')")
    units = con.execute(
        f"SELECT DISTINCT rtrim(lower(regexp_extract({value}, ?, 4)), 's') {_given(name, value)} "
        f"AND regexp_matches({value}, '[0-9]')", [f"^{DECORATED_NUMBER}{UNIT}$", *NO_VALUE]).fetchall()
    return str(units[0][0]) if len(units) == 1 and units[0][0] else None


MOST_WORDS = 3  # distinct wordings a column of numbers may hold instead of a number ("No parking", "TBA")
WORDED_SHARE = 0.2  # of its values, at most


def _few_words(con: duckdb.DuckDBPyConnection, name: str, column: str, pattern: str) -> list[str]:
    """The values without a digit of a column whose other values all match `pattern`, when they are
    a few wordings and a small share of its values ("No parking" among "403 Spaces"); [] otherwise."""
    value = Quoted(f"nullif(trim({duck.ident(column)}), '')")
    given, numbers = con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE regexp_full_match({value}, ?)) {_given(name, value)}",
        [pattern, *NO_VALUE]).fetchone() or (0, 0)
    words = con.execute(f"SELECT {value}, count(*) {_given(name, value)} AND NOT regexp_matches({value}, '[0-9]') "
                        f"GROUP BY 1 ORDER BY 1", NO_VALUE).fetchall()
    worded = sum(int(count) for _, count in words)
    if not words or len(words) > MOST_WORDS or numbers + worded < given or worded > WORDED_SHARE * given or numbers < 3:
        return []
    return [str(word) for word, _ in words]


def _label_with_unit(con: duckdb.DuckDBPyConnection, name: str, column: str, unit: str,
                     words: Sequence[str] = ()) -> None:
    """The column's label with its unit unless it says it ("Station Parking (spaces)"); the wordings
    its numbers replaced ("No parking"), which are now empty, kept after the label (`_comment`)."""
    label = _label(con, name, column)
    label += f" ({unit})" if unit and unit.lower() not in label.lower() else ""
    comment = label + (_EMPTIED + json.dumps(list(words)) if words else "")
    con.execute(f"COMMENT ON COLUMN {duck.ident(name)}.{duck.ident(column)} IS {duck.literal(comment)}")


def _label(con: duckdb.DuckDBPyConnection, name: str, column: str) -> str:
    """The column's label: its comment (the file's header), or its name when it has none."""
    row = con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = ? AND column_name = ?",
                      [name, column]).fetchone()
    return str(row[0]) if row and row[0] else column


_EMPTIED = "\nempty for: "  # in a column's comment, after its label: the wordings that are now NULL (JSON)


def _comment(text: str) -> dict:
    """A column's comment as its description: {"label": …} and, for a column of numbers that held a
    few words instead ("No parking"), {"empty_for": those words}."""
    label, _, emptied = text.rpartition(_EMPTIED)
    try:
        words = json.loads(emptied) if label else None
    except ValueError:  # a header of the file that happens to hold the marker: all of it is the label
        words = None
    if not isinstance(words, list):
        return {"label": text}
    return {"label": label, "empty_for": [str(word) for word in words]}


def _one(con: duckdb.DuckDBPyConnection, statement: Quoted, params: Sequence[object] = ()) -> int:
    """The single number a statement of Trove's own gives (a count)."""
    row = con.execute(statement, list(params)).fetchone()
    if row is None:
        raise QueryFailed(f"no result from {statement}")
    return int(row[0])


def _categories(con: duckdb.DuckDBPyConnection, table: Quoted, column: Quoted) -> dict[str, list]:
    """{"values": every distinct value} when a text column has at most CATEGORY_LIMIT of them."""
    distinct = _one(con, Quoted(f"SELECT count(DISTINCT {column}) FROM {table}"))
    if distinct > CATEGORY_LIMIT:
        return {}
    return {"values": [r[0] for r in con.execute(
        f"SELECT DISTINCT {column} FROM {table} WHERE {column} IS NOT NULL ORDER BY 1").fetchall()]}


def sample_values_sql(column: str, table_ref: Quoted, n: int) -> Quoted:
    """The `n` most frequent non-NULL values of a column (ties by value): stable samples for prompts.
    `table_ref` is already quoted (it may be schema-qualified); the same text serves SQLite."""
    col = duck.ident(column)
    return Quoted(f"SELECT {col} FROM {table_ref} WHERE {col} IS NOT NULL GROUP BY 1 "
                  f"ORDER BY count(*) DESC, 1 LIMIT {duck.number(n)}")
