"""Workbooks: Excel .xlsx/.xlsm (openpyxl), old Excel .xls and OpenDocument .ods (calamine). Every
sheet, merged cells filled, title rows above the header skipped; each sheet becomes CSV text with
the original sheet row numbers for provenance.

Reading a sheet's grid of cell values is per format; turning a (name, grid) into a Sheet is shared."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from engine.errors import ParseError, SkipFile
from engine.ingest.archives import (
    ENCRYPTED_PACKAGE,
    MAX_UNPACKED_MB,
    OLE_MAGIC,
    PROTECTED,
    check_zip,
    holds,
    odf_encrypted,
)

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.worksheet.worksheet import Worksheet
    from python_calamine import CalamineSheet

Grid = list[list[object]]  # a sheet's cell values, grid[0][0] being cell A1
Span = tuple[int, int, int, int]  # a merged range: first row, first column, last row, last column (0-based)

FORMATS = {".xlsx": "xlsx", ".xlsm": "xlsx", ".xls": "xls", ".ods": "ods"}  # the workbook format by extension
_ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
_TABLE_NS = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
# what reading a zip's part raises when it is damaged, encrypted or packed by a method Python lacks
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, ValueError, EOFError)


@dataclass
class Sheet:
    name: str
    csv_text: str  # first column `_row`: the row number in the sheet
    warnings: list[str] = field(default_factory=list)
    columns: int = 0  # the header's columns (without `_row`)


def read_sheets(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> list[Sheet]:
    """Every sheet with a table in it; SkipFile for a workbook whose parts unpack to more than
    `max_unpacked_mb` (setting max_unpacked_mb) or that has no table, ParseError when unreadable,
    password-protected or another kind of file than its extension says."""
    check_zip(path, max_unpacked_mb)
    fmt = _checked_format(path)
    sheets = _xlsx_sheets(path) if fmt == "xlsx" else _calamine_sheets(path, fmt)
    if not sheets:
        raise SkipFile("no table found in any sheet (no header row with data under it)")
    return sheets


# -- what the file holds -----------------------------------------------------------------------------------
def _checked_format(path: Path) -> str:
    """The format the extension names once the file's bytes do not say otherwise; SkipFile for an
    empty file, ParseError naming what the file is when it is something else."""
    fmt, ext = FORMATS[path.suffix.lower()], path.suffix.lower()
    found = _content(path)
    if found is None or found == fmt:
        return fmt
    if found == "empty":
        raise SkipFile("empty file")
    if found == "encrypted" or (found == "xls" and holds(path, ENCRYPTED_PACKAGE)):
        raise ParseError(PROTECTED.format(what="workbook"))
    if found in ("xlsx", "xls", "ods"):
        raise ParseError(f"a .{found} workbook named {ext}: rename it to .{found} to index it")
    if found == "text":
        raise ParseError(f"a text file (CSV or a web page?) named {ext}, not a workbook: save it as .csv or "
                         "as a workbook to index it")
    raise ParseError(f"a zip archive that holds no workbook, not an {ext} file")


def _content(path: Path) -> str | None:
    """What the file's bytes show: "empty", "xls" (an OLE file), "xlsx", "ods", "encrypted" (an
    encrypted .ods), "zip" (another zip), "text", or None when unclear (its reader says what is wrong)."""
    with path.open("rb") as fh:
        head = fh.read(512)
    if not head:
        return "empty"
    if head.startswith(OLE_MAGIC):
        return "xls"
    if head.startswith(b"PK"):
        return _zip_content(path)
    controls = sum(1 for b in head if b < 32 and b not in b"\t\r\n")
    return "text" if controls <= len(head) // 20 else None


def _zip_content(path: Path) -> str | None:
    """"xlsx", "ods", "encrypted" (an .ods with a password), "zip", or None for a damaged zip."""
    try:
        with zipfile.ZipFile(path) as zf:  # its sizes were checked (check_zip): the parts read are small
            names = set(zf.namelist())
            if any(name.startswith("xl/") for name in names):
                return "xlsx"
            if "mimetype" not in names or not zf.read("mimetype").startswith(_ODS_MIMETYPE):
                return "zip"
            return "encrypted" if odf_encrypted(zf) else "ods"
    except _ZIP_ERRORS:
        return None


# -- one grid per sheet, per format ------------------------------------------------------------------------
def _xlsx_sheets(path: Path) -> list[Sheet]:
    """The sheets of an .xlsx/.xlsm workbook (openpyxl), each with the unsaved formulas it has."""
    import openpyxl
    from lxml import etree
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        workbook = openpyxl.load_workbook(path, data_only=True)  # formulas as their last computed values
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError) as exc:
        raise ParseError(f"corrupt or encrypted workbook: {exc}") from exc
    except (ElementTree.ParseError, etree.XMLSyntaxError) as exc:  # expat and libxml2 refuse entity bombs
        raise ParseError(f"not valid XML inside the workbook: {exc}") from exc
    sheets = _tables((ws.title, _openpyxl_grid(ws)) for ws in workbook.worksheets)
    formulas = _formulas(path) if sheets else None
    for sheet in sheets:
        sheet.warnings += _unsaved_formulas(formulas, workbook[sheet.name])
    return sheets


def _openpyxl_grid(ws: Worksheet) -> Grid:
    """Cell values with every merged range filled with its top-left value."""
    grid = [list(row) for row in ws.iter_rows(values_only=True)]
    return _fill_merged(grid, [(m.min_row - 1, m.min_col - 1, m.max_row - 1, m.max_col - 1)
                               for m in ws.merged_cells.ranges])


def _calamine_sheets(path: Path, fmt: str) -> list[Sheet]:
    """The sheets of an .xls or .ods workbook (calamine); ParseError when it cannot be read."""
    from python_calamine import CalamineError, CalamineWorkbook, PasswordError, SheetTypeEnum, XmlError

    try:
        with CalamineWorkbook.from_path(path) as workbook:
            spans = _ods_spans(path) if fmt == "ods" else {}  # calamine gives no merged ranges for .ods
            names = [m.name for m in workbook.sheets_metadata if m.typ == SheetTypeEnum.WorkSheet]
            return _tables((name, _calamine_grid(workbook.get_sheet_by_name(name), spans.get(name, [])))
                           for name in names)
    except PasswordError as exc:
        raise ParseError(PROTECTED.format(what="workbook")) from exc
    except XmlError as exc:  # calamine refuses entities (no entity bombs)
        raise ParseError(f"not valid XML inside the workbook: {exc}") from exc
    except CalamineError as exc:
        if fmt == "xls" and holds(path, ENCRYPTED_PACKAGE):
            raise ParseError(PROTECTED.format(what="workbook")) from exc
        raise ParseError(f"corrupt .{fmt} workbook: {exc}") from exc


def _calamine_grid(sheet: CalamineSheet, spans: list[Span]) -> Grid:
    """Cell values from A1 on (calamine's empty cells are ""), whole numbers as int as openpyxl gives
    them, every merged range (the sheet's own, else `spans`) filled with its top-left value."""
    grid: Grid = [[_whole(v) for v in row] for row in sheet.to_python(skip_empty_area=False)]
    merged = sheet.merged_cell_ranges
    return _fill_merged(grid, spans if merged is None else [(r0, c0, r1, c1) for (r0, c0), (r1, c1) in merged])


def _whole(value: object) -> object:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _ods_spans(path: Path) -> dict[str, list[Span]]:
    """The merged ranges of each sheet of an .ods: its cells with table:number-columns-spanned /
    number-rows-spanned, placed by counting rows and cells (number-rows/columns-repeated included)."""
    spans: dict[str, list[Span]] = {}
    current: list[Span] = []
    row = col = 0
    for event, el in _ods_content(path):
        name = el.tag[len(_TABLE_NS):] if isinstance(el.tag, str) and el.tag.startswith(_TABLE_NS) else ""
        if event == "start" and name == "table":
            current, row = spans.setdefault(el.get(f"{_TABLE_NS}name", ""), []), 0
        elif event == "start" and name == "table-row":
            col = 0
        elif event == "end" and name in ("table-cell", "covered-table-cell"):
            down, across = _count(el, "number-rows-spanned"), _count(el, "number-columns-spanned")
            if down > 1 or across > 1:
                current.append((row, col, row + down - 1, col + across - 1))
            col += _count(el, "number-columns-repeated")
        elif event == "end" and name == "table-row":
            row += _count(el, "number-rows-repeated")
    return spans


def _ods_content(path: Path) -> Iterator[tuple[str, Any]]:
    """The start and end events of the .ods's content.xml (entities not expanded, nothing fetched),
    each element cleared once its end is read."""
    from lxml import etree

    try:
        with zipfile.ZipFile(path) as zf, zf.open("content.xml") as xml:
            for event, el in etree.iterparse(xml, events=("start", "end"), resolve_entities=False,
                                             no_network=True):
                yield event, el
                if event == "end":
                    el.clear()
    except etree.XMLSyntaxError as exc:
        raise ParseError(f"not valid XML inside the workbook: {exc}") from exc
    except _ZIP_ERRORS + (KeyError,) as exc:
        raise ParseError(f"corrupt .ods workbook: {exc}") from exc


def _count(el: Any, attribute: str) -> int:
    """A table:number-... attribute of an lxml element, 1 when absent."""
    value = el.get(f"{_TABLE_NS}{attribute}")
    try:
        return max(1, int(value)) if value is not None else 1
    except ValueError as exc:
        raise ParseError(f"not a number in the workbook's content.xml: table:{attribute}={value[:20]!r}") from exc


def _fill_merged(grid: Grid, spans: Iterable[Span]) -> Grid:
    """`grid` with each merged range filled with its top-left value (within the grid)."""
    for r0, c0, r1, c1 in spans:
        if r0 >= len(grid) or c0 >= len(grid[r0]):
            continue
        top_left = grid[r0][c0]
        for r in range(r0, min(r1 + 1, len(grid))):
            for c in range(c0, min(c1 + 1, len(grid[r]))):
                grid[r][c] = top_left
    return grid


# -- a grid as a table, whatever the format ----------------------------------------------------------------
def _tables(grids: Iterable[tuple[str, Grid]]) -> list[Sheet]:
    """The sheets among (name, grid) that have a table in them."""
    return [sheet for name, grid in grids if (sheet := to_sheet(name, grid)) is not None]


def to_sheet(name: str, grid: Grid) -> Sheet | None:
    """The table in a sheet's grid as CSV text (rows under the header that have a value, `_row` the
    sheet's row number), or None when it has no header row with data under it."""
    head = header_index(grid)
    if head is None:
        return None
    header = grid[head]
    keep = [c for c, v in enumerate(header) if v not in (None, "")]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["_row", *[str(header[c]).strip() for c in keep]])
    rows = 0
    for number, values in _data_rows(grid, head, keep):
        writer.writerow([number, *values])
        rows += 1
    return Sheet(name, out.getvalue(), [], len(keep)) if rows else None


def _data_rows(grid: Grid, head: int, keep: list[int]) -> Iterator[tuple[int, list[object]]]:
    """(sheet row number, the kept columns' values) of each row under the header with a value."""
    for number, row in enumerate(grid[head + 1:], start=head + 2):
        values = [_cell(row[c]) if c < len(row) else None for c in keep]
        if _filled(values):
            yield number, values


def _filled(row: list[object]) -> int:
    return sum(1 for v in row if v not in (None, ""))


def header_index(grid: Grid) -> int | None:
    """The header row: among the first 10 rows, the first that is mostly text labels and as wide as
    the data below it (title lines and blank rows above a table are skipped)."""
    width = max((_filled(r) for r in grid[:50]), default=0)
    for i, row in enumerate(grid[:10]):
        labels = len({v.strip() for v in row if isinstance(v, str) and v.strip()})  # a merged title repeats
        if labels >= max(2, 0.6 * width) and any(_filled(r) for r in grid[i + 1:i + 6]):
            return i
    return None


def _cell(value: object) -> object:
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    return value


FORMULA_CHECK_MB = 20  # larger workbooks are not read a second time to look for unsaved formulas


def _formulas(path: Path) -> Workbook | None:
    """The workbook read again with its formulas (once, for all its sheets), None when too large."""
    import openpyxl

    if path.stat().st_size > FORMULA_CHECK_MB * 2**20:
        return None
    return openpyxl.load_workbook(path, data_only=False, read_only=True)


def _unsaved_formulas(formulas: Workbook | None, ws: Worksheet) -> list[str]:  # ws: read with values only
    """A warning when formulas have no saved value (a file written by a program, never opened in a
    spreadsheet app): those cells are empty in the table, not computed."""
    if formulas is None:
        return []
    empty = [cell.coordinate for row in formulas[ws.title].iter_rows() for cell in row
             if isinstance(cell.value, str) and cell.value.startswith("=")
             and ws[cell.coordinate].value is None]
    if not empty:
        return []
    shown = ", ".join(empty[:5]) + ("…" if len(empty) > 5 else "")
    return [f"{len(empty)} formula cells have no saved value and are empty here ({shown}): open and save the "
            "file in a spreadsheet app to keep their results"]
