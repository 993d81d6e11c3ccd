"""Excel workbooks (.xlsx/.xlsm): every sheet, merged cells filled, title rows above the header
skipped; each sheet becomes CSV text with the original sheet row numbers for provenance."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

from engine.errors import ParseError, SkipFile
from engine.ingest.archives import MAX_UNPACKED_MB, check_zip

if TYPE_CHECKING:
    from openpyxl.worksheet.worksheet import Worksheet


@dataclass
class Sheet:
    name: str
    csv_text: str  # first column `_row`: the row number in the sheet
    warnings: list[str] = field(default_factory=list)
    columns: int = 0  # the header's columns (without `_row`)


def _grid(ws: Worksheet) -> list[list[object]]:
    """Cell values with every merged range filled with its top-left value."""
    grid = [list(row) for row in ws.iter_rows(values_only=True)]
    for merged in ws.merged_cells.ranges:
        top_left = ws.cell(merged.min_row, merged.min_col).value
        for r in range(merged.min_row, merged.max_row + 1):
            for c in range(merged.min_col, merged.max_col + 1):
                if r - 1 < len(grid) and c - 1 < len(grid[r - 1]):
                    grid[r - 1][c - 1] = top_left
    return grid


def _filled(row: list[object]) -> int:
    return sum(1 for v in row if v not in (None, ""))


def header_index(grid: list[list[object]]) -> int | None:
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


def _unsaved_formulas(path: Path, ws: Worksheet) -> list[str]:  # ws: read with values only
    """A warning when formulas have no saved value (a file written by a program, never opened in a
    spreadsheet app): those cells are empty in the table, not computed."""
    import openpyxl

    if path.stat().st_size > FORMULA_CHECK_MB * 2**20:
        return []
    formulas = openpyxl.load_workbook(path, data_only=False, read_only=True)[ws.title]
    empty = [cell.coordinate for row in formulas.iter_rows() for cell in row
             if isinstance(cell.value, str) and cell.value.startswith("=")
             and ws[cell.coordinate].value is None]
    if not empty:
        return []
    shown = ", ".join(empty[:5]) + ("…" if len(empty) > 5 else "")
    return [f"{len(empty)} formula cells have no saved value and are empty here ({shown}): open and save the "
            "file in a spreadsheet app to keep their results"]


def read_sheets(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> list[Sheet]:
    """Every sheet with a table in it; SkipFile for a workbook whose parts unpack to more than
    `max_unpacked_mb` (setting max_unpacked_mb) or that has no table, ParseError when unreadable."""
    import openpyxl
    from lxml import etree
    from openpyxl.utils.exceptions import InvalidFileException

    check_zip(path, max_unpacked_mb)
    try:
        workbook = openpyxl.load_workbook(path, data_only=True)  # formulas as their last computed values
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError) as exc:
        raise ParseError(f"corrupt or encrypted workbook: {exc}") from exc
    except (ElementTree.ParseError, etree.XMLSyntaxError) as exc:  # expat and libxml2 refuse entity bombs
        raise ParseError(f"not valid XML inside the workbook: {exc}") from exc
    sheets = []
    for ws in workbook.worksheets:
        grid = _grid(ws)
        head = header_index(grid)
        if head is None:
            continue
        header = grid[head]
        keep = [c for c, v in enumerate(header) if v not in (None, "")]
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["_row", *[str(header[c]).strip() for c in keep]])
        rows = 0
        for number, row in enumerate(grid[head + 1:], start=head + 2):
            values = [_cell(row[c]) if c < len(row) else None for c in keep]
            if _filled(values):
                writer.writerow([number, *values])
                rows += 1
        if rows:
            sheets.append(Sheet(ws.title, out.getvalue(), _unsaved_formulas(path, ws), len(keep)))
    if not sheets:
        raise SkipFile("no table found in any sheet (no header row with data under it)")
    return sheets
