"""Tables -> DuckDB (OmniRetrieval: tables stay tables). CSV/TSV in any encoding, Parquet, JSON
arrays of records, JSON lines and workbooks (.xlsx/.xlsm, .xls, .ods). Each file becomes one table
(a workbook one per sheet) and one catalog source per table whose descriptor (columns, types,
samples, row count) is what source selection and SQL writing read.

Every reader of the user's bytes (DuckDB's CSV, JSON and Parquet readers and database files,
openpyxl and calamine for workbooks) runs in a worker process (engine.ingest.isolation) with a time
and memory limit: a file that crashes a reader (200,000 nested `[` are a segfault in DuckDB's JSON
reader) or makes it hang fails alone instead of ending this and every later index run. Tables come
back from the worker as a fresh Parquet file that DuckDB itself wrote, and that is what the table
store loads."""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ParseError, SkipFile
from engine.ingest import archives, spreadsheet
from engine.ingest.isolation import MEMORY_MB, TIMEOUT_S, run_isolated
from engine.ingest.parsed import AttachedTable
from engine.ingest.textio import decode_noting
from local_stores.table_store import (
    Attachment,
    TableInfo,
    TableStore,
    csv_text_to_parquet,
    reading_connection,
    sniff_delimiter,
)

EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".jsonl": "json",
              ".ndjson": "json", ".json": "json", **dict.fromkeys(spreadsheet.FORMATS, "workbook"),
              ".sqlite": "database", ".sqlite3": "database", ".db": "database", ".duckdb": "database"}


KINDS = frozenset(EXTENSIONS.values())
VERSION = 7  # 2: rows that repeat the header left out; numbers with one unit ("3,880 days") as numbers;
# a SQLite file's columns of numbers written as text marked (its queries read them as numbers);
# 3: numbers but for a few words ("No parking") as numbers, the words in the label; 4: those words kept
# beside the label (column "empty_for"), not in it; 5: a last row of totals left out, a sum written out
# with its result ("72-68=140") totalled in a number column beside it; 6: a column of written dates
# ("5 October 1801") gets a DATE column beside it; 7: not a column of days without a year ("January 10")
MAX_JSON_DEPTH = 64  # records nest a few levels; DuckDB's JSON reader recurses (and crashes) on deep input
MAX_COLUMNS = 1000  # the table store's cost grows with the square of the columns (2,000: 29 s; 10,000: 160 s)
MAX_ROW_BYTES = 2_000_000  # DuckDB's CSV line limit (max_line_size): a longer row fails after a long read
_READERS = {"json": ("the JSON reader", "JSON records", "read_json_auto(?)"),  # (worker, file, table function)
            "parquet": ("the Parquet reader", "Parquet file", "read_parquet(?)")}


def kind_of(path: Path) -> str | None:
    return EXTENSIONS.get(path.suffix.lower())


def load(store: TableStore, names: Callable[[str | None], str], path: Path, *,
         timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB,
         max_unpacked_mb: float = archives.MAX_UNPACKED_MB) -> list[TableInfo]:
    """Load `path` as tables (one, or one per sheet), replacing them; `names(sheet)` gives each
    table's name. ParseError/SkipFile with the reason. The limits are the settings
    parse_timeout_s and ingest_memory_mb (the worker reading JSON/Parquet) and max_unpacked_mb (xlsx, ods)."""
    import duckdb

    kind = kind_of(path)
    try:
        if kind in ("csv", "tsv"):
            return [_load_csv(store, names(None), path, kind, timeout_s, memory_mb)]
        if kind == "workbook":
            return _load_workbook(store, names, path, max_unpacked_mb, timeout_s, memory_mb)
        if kind in ("json", "parquet"):
            if kind == "json":
                _check_json(path)
            return [_load_isolated(store, names(None), path, kind, timeout_s, memory_mb)]
    except duckdb.Error as exc:
        what = _READERS[kind][1] if kind in _READERS else "table"
        raise ParseError(f"not a readable {what}: {_first_line(exc)}") from exc
    raise ParseError(f"no table reader for {path.suffix} files")


def load_attached(store: TableStore, names: Callable[[str | None], str], attached: AttachedTable, file: Path, *,
                  timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB,
                  max_unpacked_mb: float = archives.MAX_UNPACKED_MB) -> list[TableInfo]:
    """A table file attached to a message in the mail file `file` (or printed in the document
    `file`), loaded as `load` loads a file of its kind (with its limits); its tables say the message
    they are attached to (the page they are printed on)."""
    with tempfile.TemporaryDirectory(prefix="trove-attached-") as folder:
        path = Path(folder) / f"attachment{Path(attached.name).suffix.lower()}"
        path.write_bytes(attached.data)
        loaded = load(store, names, path, timeout_s=timeout_s, memory_mb=memory_mb, max_unpacked_mb=max_unpacked_mb)
    for info in loaded:
        info.file = str(file)
        info.attachment = Attachment(Path(attached.name).stem if attached.printed else attached.name,
                                     attached.message, attached.page, attached.printed, attached.page_starts)
    return loaded


def stem(path: str, attached: AttachedTable | None) -> str:
    """What a table's name starts from: its file's name, its attachment's, or, for one printed in a
    document, the document's with its place ("senate-expenditures table 1 on page 1")."""
    if attached is None:
        return Path(path).stem
    if attached.printed:
        return f"{Path(path).stem} {Path(attached.name).stem}"
    return Path(attached.name).stem


def same_attachment(descriptor: dict, attached: AttachedTable | None) -> bool:
    """Whether a table source's descriptor is of this attachment (by its name and its message's
    number), or, with `attached` None, of no attachment (a table file's own)."""
    held = (descriptor.get("attachment"), descriptor.get("message_number"))
    if attached is None:
        return held == (None, None)
    return held == (Path(attached.name).stem if attached.printed else attached.name, attached.page)


def _load_csv(store: TableStore, name: str, path: Path, kind: str, timeout_s: float, memory_mb: int) -> TableInfo:
    """A CSV/TSV file as a table, read into Parquet in a worker process (`csv_file_to_parquet`)."""
    with tempfile.TemporaryDirectory(prefix="trove-table-") as tmp:
        rows = Path(tmp) / "rows.parquet"
        warnings = run_isolated(csv_file_to_parquet, str(path), kind, str(rows), memory_mb, timeout_s=timeout_s,
                                memory_mb=memory_mb, what="the CSV reader")
        info = store.load_parquet(name, rows, file=path)
    info.warnings += warnings
    return info


def csv_file_to_parquet(source: str, kind: str, target: str, memory_mb: int) -> list[str]:
    """(In the worker.) The user's CSV/TSV file decoded (any encoding), checked and read by DuckDB
    into `target` as Parquet; returns the warnings. SkipFile for one with no data rows, a row over
    DuckDB's line limit or more than MAX_COLUMNS columns (refused at once rather than after a long read)."""
    text, notes = decode_noting(Path(source).read_bytes(), Path(source))
    lines = text.strip().splitlines()
    if len(lines) < 2:
        raise SkipFile("no data rows (a header at most)")
    _check_rows(lines)
    delimiter = "\t" if kind == "tsv" else sniff_delimiter("\n".join(lines[:20]))
    _check_width(len(next(csv.reader(lines[:1], delimiter=delimiter))))
    return notes + _text_to_parquet(text, delimiter, Path(target), memory_mb)


def _text_to_parquet(text: str, delimiter: str, target: Path, memory_mb: int) -> list[str]:
    """CSV text into `target` as Parquet, DuckDB's failures as the worker reports them."""
    import duckdb

    try:
        return csv_text_to_parquet(text, delimiter, target, memory_mb)
    except duckdb.OutOfMemoryException as exc:
        raise MemoryError(str(exc)) from exc
    except duckdb.Error as exc:
        raise ParseError(f"not a readable table: {_first_line(exc)}") from exc


def _check_rows(lines: list[str]) -> None:
    """SkipFile naming the first line longer than MAX_ROW_BYTES in UTF-8 (a 50 MB cell, a log)."""
    for number, line in enumerate(lines, start=1):
        if len(line) * 4 > MAX_ROW_BYTES and len(size := line.encode("utf-8", "replace")) > MAX_ROW_BYTES:
            raise SkipFile(f"line {number} is {len(size) / 2**20:.1f} MB long, over the "
                           f"{MAX_ROW_BYTES / 1e6:g} MB a table row may have (not a table?)")


def _check_width(columns: int, sheet: str | None = None) -> None:
    if columns > MAX_COLUMNS:
        where = f"sheet {sheet!r} has" if sheet else "the table has"
        raise SkipFile(f"{where} {columns} columns, more than the {MAX_COLUMNS} a table may have")


def _load_workbook(store: TableStore, names: Callable[[str | None], str], path: Path,
                   max_unpacked_mb: float, timeout_s: float, memory_mb: int) -> list[TableInfo]:
    """One table per sheet with a table in it, read in a worker process; a sheet too wide is left
    out with a warning."""
    with tempfile.TemporaryDirectory(prefix="trove-workbook-") as tmp:
        sheets = run_isolated(workbook_to_parquet, str(path), tmp, max_unpacked_mb, memory_mb, timeout_s=timeout_s,
                              memory_mb=memory_mb, what="the workbook reader")
        loaded = []
        for sheet in sheets:
            if sheet.rows is None:
                continue
            info = store.load_parquet(names(sheet.name), Path(sheet.rows), file=path)
            info.sheet, info.warnings = sheet.name, info.warnings + sheet.warnings
            loaded.append(info)
    refused = [sheet.refused for sheet in sheets if sheet.rows is None]
    if not loaded:
        raise SkipFile("; ".join(refused))
    for info in loaded:
        info.warnings += [f"not loaded: {reason}" for reason in refused]
    return loaded


@dataclass
class SheetRows:
    """A sheet as the workbook worker left it: a Parquet file of its rows, or why it has none."""

    name: str
    rows: str | None
    warnings: list[str] = field(default_factory=list)
    refused: str = ""


def workbook_to_parquet(source: str, folder: str, max_unpacked_mb: float, memory_mb: int) -> list[SheetRows]:
    """(In the worker.) Every sheet of the user's workbook with a table in it, as a Parquet file in
    `folder` (first column `_row`: the sheet's row numbers)."""
    out = []
    for number, sheet in enumerate(spreadsheet.read_sheets(Path(source), max_unpacked_mb)):
        try:
            _check_width(sheet.columns, sheet.name)
        except SkipFile as exc:
            out.append(SheetRows(sheet.name, None, refused=str(exc)))
            continue
        target = Path(folder) / f"sheet{number}.parquet"
        warnings = _text_to_parquet(sheet.csv_text, ",", target, memory_mb)
        out.append(SheetRows(sheet.name, str(target), sheet.warnings + warnings))
    return out


def _check_json(path: Path) -> None:
    """SkipFile for a .json that is not an array of records, or JSON nested too deep to read safely."""
    if path.suffix.lower() == ".json" and _first_char(path) != "[":
        raise SkipFile("JSON that is not an array of records (settings or data of an app?)")
    if json_depth(path, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise SkipFile(f"JSON nested deeper than {MAX_JSON_DEPTH} levels: not records a table can hold")


def json_depth(path: Path, stop_above: int = MAX_JSON_DEPTH, chunk_bytes: int = 1 << 20) -> int:
    """The deepest nesting of `[`/`{` in a JSON file outside strings, read in chunks (about 2 s per
    100 MB of records on 2 cores, a fifth of DuckDB's load); it stops once past `stop_above`."""
    import numpy as np

    depth = deepest = 0
    in_string, carry = False, b""
    with path.open("rb") as fh:
        while chunk := fh.read(chunk_bytes):
            chunk = carry + chunk
            if b"\\" in chunk:  # drop escaped backslashes and quotes; an escape cut at the end waits
                odd = (len(chunk) - len(chunk.rstrip(b"\\"))) % 2
                chunk, carry = (chunk[:-1], b"\\") if odd else (chunk, b"")
                chunk = chunk.replace(b"\\\\", b"").replace(b'\\"', b"")
            steps = np.frombuffer(chunk.translate(_STEPS), np.int8)  # +1 opens, -1 closes, 0 the rest
            quotes = np.flatnonzero(np.frombuffer(chunk, np.uint8) == ord('"'))
            brackets = np.flatnonzero(steps)
            outside = brackets[(np.searchsorted(quotes, brackets) + in_string) % 2 == 0]
            in_string ^= len(quotes) % 2 == 1
            if len(outside):
                levels = depth + np.cumsum(steps[outside], dtype=np.int64)
                deepest, depth = max(deepest, int(levels.max())), int(levels[-1])
                if deepest > stop_above:
                    break
    return deepest


_STEPS = bytes(1 if b in b"[{" else 255 if b in b"]}" else 0 for b in range(256))


def _load_isolated(store: TableStore, name: str, path: Path, kind: str, timeout_s: float,
                   memory_mb: int) -> TableInfo:
    """A JSON or Parquet file read by DuckDB in a worker process, loaded from the Parquet it wrote."""
    with tempfile.TemporaryDirectory(prefix="trove-table-") as tmp:
        clean = Path(tmp) / "records.parquet"
        run_isolated(to_parquet, str(path), kind, str(clean), memory_mb, timeout_s=timeout_s,
                     memory_mb=memory_mb, what=_READERS[kind][0])
        return store.load_parquet(name, clean, file=path)


def to_parquet(source: str, kind: str, target: str, memory_mb: int) -> int:
    """(In the worker.) Read the user's JSON/Parquet `source` with DuckDB, which may reach only it
    and `target`, and write its rows to `target` as Parquet; returns the number of columns."""
    import duckdb

    _, what, reader = _READERS[kind]
    try:
        with reading_connection([Path(source), Path(target)], memory_mb) as con:
            rows = con.sql(f"SELECT * FROM {reader}", params=[source])
            _check_width(len(rows.columns))
            rows.write_parquet(target)
            return len(rows.columns)
    except duckdb.OutOfMemoryException as exc:
        raise MemoryError(str(exc)) from exc
    except duckdb.Error as exc:
        raise ParseError(f"not a readable {what}: {_first_line(exc)}") from exc


def describe_database(path: Path, *, timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB) -> dict:
    """A database the user keeps, described in place (never copied): engine, dialect, every table.
    Read in a worker process: a damaged database file must not crash the index run."""
    from local_stores import database_files

    engine = database_files.engine_of(path)
    if engine is None:
        raise SkipFile("not a SQLite or DuckDB database")
    described = run_isolated(_describe, str(path), engine, timeout_s=timeout_s, memory_mb=memory_mb,
                             what=f"the {engine} reader")
    if not described:
        raise SkipFile(f"the {engine} database has no tables")
    return database_files.descriptor(path, engine, described)


def _describe(path: str, engine: str) -> list[dict]:
    """(In the worker.) Every table of the database, or ParseError with the engine's reason."""
    from local_stores import database_files

    try:
        return database_files.describe(Path(path), engine)
    except Exception as exc:  # a locked, encrypted or damaged database file
        raise ParseError(f"cannot read this {engine} database: {_first_line(exc)}") from exc


def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [""])[0][:200]


def _first_char(path: Path) -> str:
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1].decode("ascii", "replace")
