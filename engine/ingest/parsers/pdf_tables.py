"""Tables printed on a PDF's pages, read with pdfplumber from the lines that rule them: each is
loaded as a table of its own (DuckDB, next to the document's paragraphs), so "how many employees
did the notices in San Jose affect?" is a SQL sum, cited as the table on its page, where the
paragraphs alone would give the model a few rows of it.

A table ruled on several pages (a report's rows going on page after page, the header printed once)
is one table. Rows a PDF stacks in one ruled cell (five states between two rules, one per line)
are split again. Only what reads as a grid is kept: at least MIN_ROWS rows of MIN_COLUMNS filled
columns under a header; a page's ruled boxes of running text (a bulletin's columns) are not tables.
Only pages whose lines carry numbers and that draw rules are looked at (`tabular`, `ruled`): a table
of words alone, or one aligned without rules, stays text. pdfplumber is optional: without it a PDF
is read as text alone."""

from __future__ import annotations

import csv
import io
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.ingest.parsed import AttachedTable

if TYPE_CHECKING:
    import pypdfium2 as pdfium
    from pdfplumber.page import Page
    from pdfplumber.table import Table

MIN_ROWS = 3  # data rows under the header
MIN_COLUMNS = 2
MIN_FILLED = 0.6  # share of a table's cells that hold something
MAX_CELL_CHARS = 300  # a cell longer than this on average is a box of running text, not a table's cell
MAX_TABLES = 50  # per document
MAX_PAGES_READ = 200  # pages a document's tables are looked for on (those that look tabular, first ones first)
BUDGET_S = 30.0  # seconds a document's tables may take to find (0.1-0.5 s a page); later pages are read as text only
TABULAR_LINES = 4  # a page is looked at when at least this many of its lines hold two numbers or more ...
TABULAR_SHARE = 0.15  # ... and they are at least this share of its lines
MIN_RULES = (4, 2)  # ... and it draws as many horizontal and vertical rules at least (pdfium counts them fast),
MIN_BOXES = 12  # or as many boxes, drawn with few curves beside them (cells drawn as rectangles)
THIN = 2.5  # points: a path this thin and longer than twice that is a rule
_NUMBER = re.compile(r"(?<!\w)[-$€£]?\d[\d,./]*(?!\w)")
_SPACED = re.compile(r"\d{1,2}(?: \S{1,2}){3,}")  # "0 3 / 2 5 / 2 0 16": a date drawn one glyph at a time
_TOTALS = re.compile(r"(?:grand\s+)?totals?\b", re.IGNORECASE)
_NUMERIC = re.compile(r"[-+$€£(]?\d[\d,.\s/%)]*")


def tabular(text: str) -> bool:
    """Whether a page's text looks like it holds a table: enough of its lines carry two numbers."""
    lines = [line for line in text.split("\n") if line.strip()]
    numbered = sum(len(_NUMBER.findall(line)) >= 2 for line in lines)
    return numbered >= TABULAR_LINES and numbered >= TABULAR_SHARE * len(lines)


@dataclass
class PrintedTable:
    """A table as printed: its header and rows of cell texts, the page it starts on and its last."""

    header: list[str]
    rows: list[list[str]]
    page: int
    last_page: int
    titles: list[str] = field(default_factory=list)  # lines printed above it inside its rules

    def attached(self, number: int) -> AttachedTable:
        """The table as a CSV file the table loader reads, named by its number and page."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows(self.rows)
        pages = f"page {self.page}" if self.last_page == self.page else f"pages {self.page}-{self.last_page}"
        return AttachedTable(f"table {number} on {pages}.csv", out.getvalue().encode("utf-8"), self.page,
                             "; ".join(self.titles), printed=True)


def read(path: Path, pages: list[int]) -> list[AttachedTable]:
    """The tables printed on the given pages (1-based) of the PDF at `path`; none when pdfplumber
    is not installed or cannot read the file (its text is read all the same)."""
    try:
        import pdfplumber
    except ImportError:
        return []
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    found: list[PrintedTable] = []
    pages = ruled(path, pages)
    try:
        with pdfplumber.open(str(path)) as pdf:
            deadline = time.monotonic() + BUDGET_S
            for number in pages[:MAX_PAGES_READ]:
                if time.monotonic() > deadline:
                    break
                page = pdf.pages[number - 1]
                for table in page.find_tables():
                    _add(found, _with_spans_split(page, table, table.extract()), number)
    except Exception:  # pdfminer raises many kinds on files pypdf reads; the text is kept
        logging.getLogger(__name__).warning("tables of %s not read", path, exc_info=True)
    return [table.attached(i) for i, table in enumerate(found[:MAX_TABLES], start=1)]


def ruled(path: Path, pages: list[int]) -> list[int]:
    """Those of the pages (1-based) that draw rules both ways (MIN_RULES) or boxes (MIN_BOXES): a
    table is found by its rules, and pdfplumber takes 0.1-0.5 s a page to look (a page of formulas
    has numbers on every line too)."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return pages
    try:
        return [number for number in pages if _rules_drawn(document[number - 1])]
    finally:
        document.close()


def _rules_drawn(page: pdfium.PdfPage) -> bool:
    import pypdfium2.raw as pdfium_c

    across = down = boxes = curves = 0
    for drawn in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=2):
        left, bottom, right, top = drawn.get_bounds()
        if top - bottom < THIN and right - left > 2 * THIN:
            across += 1
        elif right - left < THIN and top - bottom > 2 * THIN:
            down += 1
        elif pdfium_c.FPDFPath_CountSegments(drawn.raw) <= 5:
            boxes += 1
        else:
            curves += 1
    return (across >= MIN_RULES[0] and down >= MIN_RULES[1]) or (boxes >= MIN_BOXES and curves * 4 <= boxes)


def _with_spans_split(page: Page, table: Table, grid: list[list[str | None]]) -> list[list[str | None]]:
    """The grid with each header cell that spans several columns ("Permit Handgun Long Gun" over
    three) split by where its words are printed: a word goes to the column under it; the lines above
    the one over most columns ("Pre-Pawn" above "Handgun Long Gun *Other") head each of them."""
    spans = _column_spans(table)
    out = [list(row) for row in grid]
    for r, row in enumerate(table.rows):
        if r >= len(out) or _numbers_in([cell or "" for cell in out[r]]):
            break  # the header ends at the first row of numbers
        for c, box in enumerate(row.cells):
            covered = [i for i, (x0, x1) in enumerate(spans) if box and box[0] <= (x0 + x1) / 2 <= box[2]]
            if box is None or len(covered) < 2 or len(covered) == len(spans) or c + len(covered) > len(out[r]):
                continue
            names = _spread(page.crop(box).extract_words(), [spans[i] for i in covered])
            if names:
                out[r][c:c + len(covered)] = names
    return out


def _column_spans(table: Table) -> list[tuple[float, float]]:
    """Each column's left and right edge: where its cells start, and the nearest end of one."""
    width = max(len(row.cells) for row in table.rows)
    spans = []
    for c in range(width):
        boxes = [box for row in table.rows if c < len(row.cells) and (box := row.cells[c]) is not None]
        spans.append((min(b[0] for b in boxes), min(b[2] for b in boxes)) if boxes else (0.0, 0.0))
    return spans


def _spread(words: list[dict], spans: list[tuple[float, float]]) -> list[str] | None:
    """The words of a spanning cell as one name per column, None when some column gets none."""
    lines: dict[int, list[dict]] = {}
    for word in words:
        lines.setdefault(round(word["top"]), []).append(word)
    placed = [[(_column_of(word, spans), word["text"]) for word in sorted(lines[top], key=lambda w: w["x0"])]
              for top in sorted(lines)]
    if not placed:
        return None
    widest = max(range(len(placed)), key=lambda i: len({c for c, _ in placed[i]}))
    heads = [text for line in placed[:widest] for _, text in line]
    names: list[list[str]] = [[] for _ in spans]
    for line in placed[widest:]:
        for c, text in line:
            names[c].append(text)
    if not all(names):
        return None
    return [" ".join(heads + column) for column in names]


def _column_of(word: dict, spans: list[tuple[float, float]]) -> int:
    middle = (word["x0"] + word["x1"]) / 2
    return min(range(len(spans)), key=lambda i: abs((spans[i][0] + spans[i][1]) / 2 - middle))


def _add(found: list[PrintedTable], grid: list[list[str | None]], page: int) -> None:
    """One ruled grid of a page: a table of its own, the rest of the table before it (the same
    columns on the next page, no header of its own or the same one again), or nothing."""
    rows = _cleaned(grid)
    if not rows:
        return
    last = found[-1] if found else None
    if last and last.last_page == page - 1 and len(rows[0]) == len(last.header):
        body = rows[1:] if rows[0] == last.header else rows
        if not _header_like(body[0] if body else []) and _grid_like(body):
            last.rows += body
            last.last_page = page
            return
    titles, header, body = _titled(rows)
    body = _without_foot(body)
    if header and len(body) >= MIN_ROWS and _grid_like(body):
        found.append(PrintedTable(_names(header), body, page, page, titles))


def _cleaned(grid: list[list[str | None]]) -> list[list[str]]:
    """Cells as text (glyph-spaced numbers joined), stacked rows split, empty columns and rows left out."""
    rows = [[_cell(cell) for cell in row] for row in grid if row]
    rows = [split for row in rows for split in _unstacked(row)]
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    filled = [c for c in range(width) if any(row[c] for row in rows[1:] or rows)]
    return [[row[c] for c in filled] for row in rows]


def _cell(cell: str | None) -> str:
    text = (cell or "").strip()
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(_SPACED.sub(lambda m: m.group(0).replace(" ", ""), line) for line in lines)


def _unstacked(row: list[str]) -> list[list[str]]:
    """A row whose filled cells each hold the same number of lines (more than one, in two cells or
    more) is that many rows the PDF drew between two rules; any other row is one row, its lines joined."""
    filled = [cell for cell in row if cell]
    counts = {cell.count("\n") + 1 for cell in filled}
    if len(filled) >= 2 and len(counts) == 1 and (n := counts.pop()) > 1:
        split = [cell.split("\n") if cell else [""] * n for cell in row]
        return [[column[i] for column in split] for i in range(n)]
    return [[cell.replace("\n", " ") for cell in row]]


def _titled(rows: list[list[str]]) -> tuple[list[str], list[str], list[list[str]]]:
    """The rows as (title lines, header, body): titles fill one cell of the row; the header is the
    first row that fills most of its cells with words, a second such row below it (sub-headings
    under a spanning one) joined in."""
    titles: list[str] = []
    while rows and sum(1 for cell in rows[0] if cell) == 1 and len(rows[0]) > 1:
        titles.append(next(cell for cell in rows[0] if cell).replace("\n", " "))
        rows = rows[1:]
    if not rows or not _header_like(rows[0]):
        return titles, [], rows
    header, body = rows[0], rows[1:]
    if body and _header_like(body[0], share=0.3) and not _numbers_in(body[0]):
        header, body = _joined(header, body[0]), body[1:]
    return titles, header, body


def _joined(header: list[str], below: list[str]) -> list[str]:
    """A header and the sub-headings under it as one: a heading over a sub-heading heads the
    sub-headings after it that have none of their own above ("Dates" over "Start" and "End")."""
    names, over = [], ""
    for top, sub in zip(header, below, strict=True):
        if top:
            over = top if sub else ""
        names.append(" ".join(part for part in (top or (over if sub else ""), sub) if part))
    return names


def _without_foot(body: list[list[str]]) -> list[list[str]]:
    """The rows without what is printed under them: notes (one filled cell of a wide table) and a
    totals row, which a sum over the rows would count twice (the document's text still holds it)."""
    while body and len(body[-1]) > 1 and sum(1 for cell in body[-1] if cell) == 1:
        body = body[:-1]
    if body and _TOTALS.match(next((cell for cell in body[-1] if cell), "")):
        body = body[:-1]
    return body


def _header_like(row: list[str], share: float = 0.5) -> bool:
    """Words in most cells, and no cell a number."""
    filled = [cell for cell in row if cell]
    return len(filled) >= max(MIN_COLUMNS, share * len(row)) and not _numbers_in(row)


def _numbers_in(row: list[str]) -> bool:
    return any(_NUMERIC.fullmatch(cell) for cell in row if cell)


def _grid_like(body: list[list[str]]) -> bool:
    """Cells mostly filled and short: a table, not boxes of running text."""
    cells = [cell for row in body for cell in row]
    if not cells or len(body[0]) < MIN_COLUMNS:
        return False
    filled = [cell for cell in cells if cell]
    return (len(filled) >= MIN_FILLED * len(cells)
            and sum(len(cell) for cell in filled) <= MAX_CELL_CHARS * len(filled))


def _names(header: list[str]) -> list[str]:
    """Column names: the header's words, an empty or repeated one numbered."""
    names: list[str] = []
    for i, cell in enumerate(header, start=1):
        name = " ".join(cell.split()) or f"column {i}"
        while name in names:
            name = f"{name} {i}"
        names.append(name)
    return names
