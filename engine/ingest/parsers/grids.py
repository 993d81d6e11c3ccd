"""A table inside a document — ruled on a PDF's page, a Word table — made a table of its own: its
grid of cell texts cleaned (glyph-spaced numbers joined, rows stacked in one cell split, empty
columns dropped), its title lines, header (a sub-heading row joined in) and body told apart, the
notes and totals row under it left out, and written as CSV for the table loader. Only what reads
as a grid is kept: at least MIN_ROWS rows of MIN_COLUMNS filled columns under a header, cells
mostly filled and short (boxes of running text laid out with rules are not tables)."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from engine.ingest.parsed import AttachedTable

MIN_ROWS = 3  # data rows under the header
MIN_COLUMNS = 2
MIN_FILLED = 0.6  # share of a table's cells that hold something
MAX_CELL_CHARS = 300  # a cell longer than this on average is a box of running text, not a table's cell
MAX_TABLES = 50  # per document
_SPACED = re.compile(r"\d{1,2}(?: \S{1,2}){3,}")  # "0 3 / 2 5 / 2 0 16": a date drawn one glyph at a time
_TOTALS = re.compile(r"(?:grand\s+)?totals?\b", re.IGNORECASE)
_NUMERIC = re.compile(r"[-+$€£(]?\d[\d,.\s/%)]*")

Grid = list[list[str | None]]  # rows of cell texts, None where a cell is not filled


@dataclass
class PrintedTable:
    """A table as the document gives it: its header and rows of cell texts, and the page it starts
    on and its last (None for a document without pages)."""

    header: list[str]
    rows: list[list[str]]
    page: int | None
    last_page: int | None
    titles: list[str] = field(default_factory=list)  # lines printed above it inside its rules
    unit: str = "page"  # what `page` counts: "page", "slide"
    row_pages: list[int] = field(default_factory=list)  # the page each row is printed on (when it has pages)

    def attached(self, number: int) -> AttachedTable:
        """The table as a CSV file the table loader reads, named by its number and page."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows(self.rows)
        return AttachedTable(f"{self.place(number)}.csv", out.getvalue().encode("utf-8"), self.page,
                             "; ".join(self.titles), printed=True, page_starts=self.page_starts())

    def page_starts(self) -> tuple[tuple[int, int], ...]:
        """For a table printed on several pages, each page with its first row (1-based, as the table
        loader numbers rows in `_row`): a cited row is cited on its page. Empty for one page."""
        if self.last_page in (None, self.page) or len(self.row_pages) != len(self.rows):
            return ()
        return tuple((page, row) for row, page in enumerate(self.row_pages, start=1)
                     if row == 1 or self.row_pages[row - 2] != page)

    def place(self, number: int) -> str:
        """"table 2 on page 5", "table 1 on pages 1-15", "table 1 on slide 4", "table 3" (no pages)."""
        if self.page is None:
            return f"table {number}"
        if self.last_page in (None, self.page):
            return f"table {number} on {self.unit} {self.page}"
        return f"table {number} on {self.unit}s {self.page}-{self.last_page}"


def row_text(row: list[str | None]) -> str:
    """A row as one paragraph: its filled cells, each text once (a merged cell repeats it), joined
    by " | "."""
    return " | ".join(dict.fromkeys(text.strip() for text in row if text and text.strip()))


def span(value: str | None, most: int | None = None) -> int:
    """A cell's column or row span (or repeat count) as a file writes it: a positive whole number,
    at most `most` when given; 1 for anything else."""
    value = (value or "").strip()
    if not value.isdigit() or int(value) < 1:
        return 1
    return int(value) if most is None else min(int(value), most)


def attached(found: list[PrintedTable]) -> list[AttachedTable]:
    """The document's tables (the first MAX_TABLES), numbered in order."""
    return [table.attached(number) for number, table in enumerate(found[:MAX_TABLES], start=1)]


def table_of(grid: Grid, page: int | None, unit: str = "page") -> PrintedTable | None:
    """The grid as a table with a header (on `page`, a page or slide as `unit` says), or None when
    it does not read as one."""
    rows = cleaned(grid)
    if not rows:
        return None
    titles, header, body = _titled(rows)
    body = _without_foot(body)
    if header and len(body) >= MIN_ROWS and grid_like(body):
        return PrintedTable(_names(header), body, page, page, titles, unit,
                            [page] * len(body) if page is not None else [])
    return None


def continues(last: PrintedTable, grid: Grid, page: int) -> bool:
    """Whether a grid on the page after `last` ends is the rest of it (its columns, no header of its
    own or the same one again); its rows are then added to `last`."""
    rows = cleaned(grid)
    if not rows or last.last_page != page - 1 or len(rows[0]) != len(last.header):
        return False
    body = rows[1:] if rows[0] == last.header else rows
    if not body or header_like(body[0]) or not grid_like(body):
        return False
    added = _without_foot(body)
    last.rows += added
    last.row_pages += [page] * len(added)
    last.last_page = page
    return True


def cleaned(grid: Grid) -> list[list[str]]:
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


def header_like(row: list[str], share: float = 0.5) -> bool:
    """Words in most cells, and no cell a number."""
    filled = [cell for cell in row if cell]
    return len(filled) >= max(MIN_COLUMNS, share * len(row)) and not numbers_in(row)


def numbers_in(row: list[str]) -> bool:
    return any(_NUMERIC.fullmatch(cell) for cell in row if cell)


def grid_like(body: list[list[str]]) -> bool:
    """Cells mostly filled and short: a table, not boxes of running text."""
    cells = [cell for row in body for cell in row]
    if not cells or len(body[0]) < MIN_COLUMNS:
        return False
    filled = [cell for cell in cells if cell]
    return (len(filled) >= MIN_FILLED * len(cells)
            and sum(len(cell) for cell in filled) <= MAX_CELL_CHARS * len(filled))


def _cell(cell: str | None) -> str:
    text = (cell or "").strip()
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(_SPACED.sub(lambda m: m.group(0).replace(" ", ""), line) for line in lines)


def _unstacked(row: list[str]) -> list[list[str]]:
    """A row whose filled cells each hold the same number of lines (more than one, in two cells or
    more) is that many rows drawn between two rules; any other row is one row, its lines joined."""
    filled = [cell for cell in row if cell]
    counts = {cell.count("\n") + 1 for cell in filled}
    if len(filled) >= 2 and len(counts) == 1 and (n := counts.pop()) > 1:
        split = [cell.split("\n") if cell else [""] * n for cell in row]
        return [[column[i] for column in split] for i in range(n)]
    return [[cell.replace("\n", " ") for cell in row]]


def _titled(rows: list[list[str]]) -> tuple[list[str], list[str], list[list[str]]]:
    """The rows as (title lines, header, body): titles fill one cell of the row (or repeat one text
    across it: a merged cell); the header is the first row that fills most of its cells with words,
    the row below it joined in when it fills the header's gaps with words (sub-headings under a
    heading that spans them, left empty or repeated by a merged cell)."""
    titles: list[str] = []
    while rows and len(rows[0]) > 1 and len({cell for cell in rows[0] if cell}) == 1:
        titles.append(next(cell for cell in rows[0] if cell).replace("\n", " "))
        rows = rows[1:]
    if not rows or not header_like(rows[0]):
        return titles, [], rows
    header, body = rows[0], rows[1:]
    gaps = [i for i, cell in enumerate(header) if not cell or (i and cell == header[i - 1])]
    if body and gaps and all(body[0][i] for i in gaps) and header_like(body[0], share=0.3):
        header, body = _joined(header, body[0]), body[1:]
    return titles, header, body


def _joined(header: list[str], below: list[str]) -> list[str]:
    """A header and the sub-headings under it as one: a heading over a sub-heading heads the
    sub-headings after it that have none of their own above ("Dates" over "Start" and "End"); a
    heading a merged cell repeats over each of them, or down into the row below, counts once."""
    names, over = [], ""
    for top, sub in zip(header, below, strict=True):
        if top and sub == top:  # one cell over both rows
            names.append(top)
            over = ""
            continue
        if top and top != over:
            over = top if sub else ""
        heading = over if sub and (not top or top == over) else top
        names.append(" ".join(part for part in (heading, sub) if part))
    return names


def _without_foot(body: list[list[str]]) -> list[list[str]]:
    """The rows without what is printed under them: notes (one filled cell of a wide table) and a
    totals row, which a sum over the rows would count twice (the document's text still holds it)."""
    while body and len(body[-1]) > 1 and len({cell for cell in body[-1] if cell}) == 1:
        body = body[:-1]
    if body and _TOTALS.match(next((cell for cell in body[-1] if cell), "")):
        body = body[:-1]
    return body


def _names(header: list[str]) -> list[str]:
    """Column names: the header's words, an empty or repeated one numbered."""
    names: list[str] = []
    for i, cell in enumerate(header, start=1):
        name = " ".join(cell.split()) or f"column {i}"
        while name in names:
            name = f"{name} {i}"
        names.append(name)
    return names
